"""A broker that holds small messages back (a stock Mosquitto: no set_tcp_nodelay) is
measured at the host's start and named once, in words, with the one-line fix."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from broker.mosquitto_runner import find_mosquitto, render_config
from netplay.nagle import SLOW_MS, probe
from tests.e2e.conftest import ROOT, SCALE, stacks_command, wait_for_port
from tests.support import free_port

STOCK = "listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"


def _mosquitto(tmp_path: Path, text: str, port: int) -> subprocess.Popen[bytes]:
    try:
        exe = find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")
    conf = tmp_path / f"m{port}.conf"
    conf.write_text(text)
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    wait_for_port(port, proc)
    return proc


@pytest.fixture
def stock_and_shipped(tmp_path: Path) -> Iterator[tuple[str, str]]:
    stock_port, shipped_port = free_port(), free_port()
    stock = _mosquitto(tmp_path, STOCK.format(port=stock_port), stock_port)
    shipped = _mosquitto(tmp_path, render_config(bind="127.0.0.1", port=shipped_port,
                                                 secure=False), shipped_port)
    try:
        yield f"mqtt://127.0.0.1:{stock_port}", f"mqtt://127.0.0.1:{shipped_port}"
    finally:
        for proc in (stock, shipped):
            proc.terminate()
            proc.wait(5)


@pytest.mark.asyncio
async def test_the_probe_tells_a_stock_mosquitto_from_the_shipped_config(
    stock_and_shipped: tuple[str, str],
) -> None:
    stock, shipped = stock_and_shipped
    slow = await probe(stock)
    fast = await probe(shipped)
    assert slow is not None and fast is not None
    assert slow > SLOW_MS, slow  # ~40 ms: Nagle waiting for a delayed ACK
    assert fast < SLOW_MS, fast


def test_a_host_on_a_stock_mosquitto_says_so_with_the_fix(
    stock_and_shipped: tuple[str, str], tmp_path: Path,
) -> None:
    stock, _ = stock_and_shipped
    host = subprocess.Popen(
        stacks_command("host", "--headless", "--players", "2", "--bots", "1", "--table",
                       "nagle", "--broker", stock, "--block-window", "0.3", "--record",
                       str(tmp_path / "r.json"), "--verify-wait", "5"),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    bot = subprocess.run(stacks_command("bot", "nagle", "--broker", stock), cwd=ROOT,
                         capture_output=True, text=True, timeout=180 * SCALE)
    out, err = host.communicate(timeout=60 * SCALE)
    assert bot.returncode == 0, bot.stdout + bot.stderr
    assert host.returncode == 0, out + err
    assert err.count("holds small messages back") == 1, err
    assert "set_tcp_nodelay true" in err

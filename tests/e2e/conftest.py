"""Fixtures for multi-process tests: brokers in their own processes on free loopback ports."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from broker.mosquitto_runner import render_config
from tests.support import SCALE as SCALE  # the suite's one factor, as the e2e tests import it
from tests.support import free_port as free_port
from tests.support import listening, wait_until

ROOT = Path(__file__).resolve().parents[2]


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    """Until something listens on 127.0.0.1:``port``; an error at once if ``proc`` (the
    server meant to) ends first."""

    def up() -> bool:
        if proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode} before listening")
        return listening(port)

    wait_until(up, f"something to listen on 127.0.0.1:{port}", timeout)


def wait_for_table(url: str, table: str, host: subprocess.Popen[str], timeout: float = 30.0,
                   ) -> None:
    """Until the broker at ``url`` lists ``table`` (its host announced it); an error at
    once if the ``host`` program ends first."""
    from netplay.lobby import list_tables

    def listed() -> bool:
        if host.poll() is not None:
            raise AssertionError(f"the host of {table} ended with {host.returncode}")
        return any(t.table == table for t in asyncio.run(list_tables(url, 0.3)))

    wait_until(listed, f"table {table} to be announced on {url}", timeout, interval=0.1)


def stacks_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "stacks.cli", *args]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def mosquitto_exe() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[str]:
    """Mosquitto with the shipped LAN config (broker/mosquitto/lan.conf) on a free
    loopback port."""
    exe = mosquitto_exe()
    if exe is None:
        pytest.skip("mosquitto is not installed (apt-get install mosquitto; .ci/run does)")
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(render_config(bind="127.0.0.1", port=port, secure=False))
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        _stop(proc)


@pytest.fixture
def embedded(tmp_path: Path) -> Iterator[str]:
    """The embedded amqtt broker, run by ``stacks broker`` in its own process."""
    port = free_port()
    proc = subprocess.Popen(
        stacks_command("broker", "--bind", f"127.0.0.1:{port}"),
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, proc)
        yield f"mqtt://127.0.0.1:{port}"
    finally:
        _stop(proc)


@pytest.fixture(params=["mosquitto", "embedded"])
def broker_url(request: pytest.FixtureRequest) -> str:
    url: str = request.getfixturevalue(request.param)
    return url

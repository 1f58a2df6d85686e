"""``broker.cli``: --bind parsing, and the foreground broker run as a real process."""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import sys
from pathlib import Path

import pytest

from broker.cli import BindAddress, add_arguments, parse_bind
from broker.embedded import EmbeddedBroker, probe_mqtt
from tests.support import free_port

from .conftest import LOOPBACK, TIMEOUT

ROOT = Path(__file__).resolve().parents[2]
# A tiny harness standing in for ``stacks broker`` until stacks/cli.py wires it.
HARNESS = (
    "import argparse, sys\n"
    "from broker.cli import add_arguments, run\n"
    "parser = argparse.ArgumentParser(prog='stacks broker')\n"
    "add_arguments(parser)\n"
    "sys.exit(run(parser.parse_args()))\n"
)


# -- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.0.0.0:1883", BindAddress("0.0.0.0", 1883)),
        ("127.0.0.1:0", BindAddress("127.0.0.1", 0)),
        ("192.168.1.20", BindAddress("192.168.1.20", 1883)),
        ("localhost:1884", BindAddress("localhost", 1884)),
        (":1884", BindAddress("0.0.0.0", 1884)),
        ("1884", BindAddress("0.0.0.0", 1884)),
        ("[::1]:1884", BindAddress("::1", 1884)),
        ("[::]", BindAddress("::", 1883)),
    ],
)
def test_bind_accepts_addr_port_forms(text: str, expected: BindAddress) -> None:
    assert parse_bind(text) == expected


@pytest.mark.parametrize("text", ["host:port", "::1", "[::1", "[::1]1884", "1.2.3.4:70000"])
def test_bind_rejects_malformed_addresses(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        parse_bind(text)


def test_defaults_are_every_interface_port_1883_and_no_password() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert args.bind == BindAddress("0.0.0.0", 1883)
    assert args.password is None
    args = parser.parse_args(["--bind", "127.0.0.1:0", "--password", "pw"])
    assert (args.bind, args.password) == (BindAddress("127.0.0.1", 0), "pw")


# -- the real process -----------------------------------------------------------------------


async def start_cli(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        HARNESS,
        *args,
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def finish(proc: asyncio.subprocess.Process) -> tuple[int, str, str]:
    try:
        out, err = await asyncio.wait_for(proc.communicate(), TIMEOUT)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.asyncio
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
async def test_cli_prints_status_serves_and_exits_0_on_signal(sig: signal.Signals) -> None:
    port = free_port(LOOPBACK)
    proc = await start_cli("--bind", f"{LOOPBACK}:{port}")
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)).decode()
        assert f"MQTT broker on mqtt://127.0.0.1:{port}" in line
        assert "0 clients connected" in line
        assert await probe_mqtt(LOOPBACK, port, timeout=TIMEOUT)
        proc.send_signal(sig)
    finally:
        code, out, err = await finish(proc)
    assert code == 0, err
    assert "MQTT broker stopped" in out
    assert "Traceback" not in err


@pytest.mark.asyncio
async def test_cli_exits_2_when_another_program_holds_the_port() -> None:
    with socket.socket() as squatter:
        squatter.bind((LOOPBACK, 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        code, _out, err = await finish(await start_cli("--bind", f"{LOOPBACK}:{port}"))
    assert code == 2
    assert f"address 127.0.0.1:{port} is already in use" in err
    assert "Another program uses that port" in err
    assert "Traceback" not in err


@pytest.mark.asyncio
async def test_cli_exit_2_says_when_an_mqtt_broker_holds_the_port() -> None:
    async with EmbeddedBroker(LOOPBACK, 0) as running:
        code, _, err = await finish(await start_cli("--bind", f"{LOOPBACK}:{running.port}"))
    assert code == 2
    assert "already in use" in err
    assert "An MQTT broker already answers" in err

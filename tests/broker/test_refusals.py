"""A broker that answers and says no is reported as a refusal, in words: never as a
broker that can't be reached."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from broker.mosquitto_runner import MosquittoProcess, find_mosquitto, shipped
from netplay.identity import Identity
from netplay.transport import BrokerAddress, MqttTransport
from tests.support import SCALE, free_port, wait_until_async

from .conftest import TIMEOUT


@pytest.fixture
def need_mosquitto() -> None:
    try:
        find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")


async def _refusal(url: str, username: str | None, password: str | None = None) -> str:
    transport = MqttTransport(BrokerAddress.parse(url), ["sstacks/v1/x/events"],
                              client_name="refused", username=username, password=password)
    await transport.start()
    try:
        await asyncio.wait_for(transport.refused.wait(), TIMEOUT)
        assert not transport.connected.is_set()
        assert transport.refusal is not None
        return transport.refusal
    finally:
        await transport.stop()


@pytest.mark.asyncio
@pytest.mark.usefixtures("need_mosquitto")
async def test_logins_a_password_broker_refuses_are_said_as_such(tmp_path: Path) -> None:
    peer = Identity.generate()
    passwords = tmp_path / "passwords"
    passwords.touch()
    subprocess.run(["mosquitto_passwd", "-b", str(passwords), peer.peer_id, "right"],
                   check=True, capture_output=True)
    acl = tmp_path / "acl"
    acl.write_text(shipped("acl"))
    port = free_port()
    async with MosquittoProcess("127.0.0.1", port, secure=True, password_file=passwords,
                                acl_file=acl):
        wrong = await _refusal(f"mqtt://{peer.peer_id}:wrong@127.0.0.1:{port}", None)
        assert "refused the connection" in wrong
        assert "Check the user name and password in the broker address" in wrong
        assert ":wrong@" not in wrong  # the password is never echoed
        # No login at all (the peer id as user name, then anonymous): it wants one.
        none = await _refusal(f"mqtt://127.0.0.1:{port}", peer.peer_id)
        assert "refused the connection" in none
        assert "mqtt://USER:PASSWORD@HOST:PORT" in none


@pytest.mark.asyncio
async def test_nobody_answering_is_not_a_refusal() -> None:
    transport = MqttTransport(BrokerAddress.parse(f"mqtt://127.0.0.1:{free_port()}"), [],
                              client_name="nobody", username="x", connect_timeout=0.5)
    await transport.start()
    try:
        await wait_until_async(lambda: transport.failures >= 2, "two failed connections",
                               TIMEOUT / SCALE, interval=0.05)
        assert transport.refusal is None and not transport.refused.is_set()
    finally:
        await transport.stop()

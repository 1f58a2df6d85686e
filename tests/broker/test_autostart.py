"""Where ``stacks host`` meets its players when no broker is given."""

from __future__ import annotations

import asyncio

import pytest

from broker.autostart import start_meeting_point
from broker.embedded import EmbeddedBroker, probe_mqtt
from tests.support import free_port


@pytest.mark.asyncio
async def test_a_free_port_gets_the_embedded_broker() -> None:
    port = free_port()
    meeting = await start_meeting_point("127.0.0.1", port)
    try:
        assert meeting.embedded is not None and meeting.embedded.port == port
        assert meeting.url == f"mqtt://127.0.0.1:{port}"
        assert "started the embedded MQTT broker" in meeting.note
        assert await probe_mqtt("127.0.0.1", port)
    finally:
        await meeting.close()


@pytest.mark.asyncio
async def test_a_port_held_by_an_mqtt_broker_is_used_as_it_is() -> None:
    async with EmbeddedBroker("127.0.0.1", 0) as other:
        meeting = await start_meeting_point("127.0.0.1", other.port)
        try:
            assert meeting.embedded is None
            assert meeting.url == f"mqtt://127.0.0.1:{other.port}"
            assert "already has an MQTT broker" in meeting.note
        finally:
            await meeting.close()


@pytest.mark.asyncio
async def test_a_port_held_by_something_else_moves_to_another_port() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    taken = server.sockets[0].getsockname()[1]
    try:
        meeting = await start_meeting_point("127.0.0.1", taken)
        try:
            assert meeting.embedded is not None
            assert meeting.embedded.port != taken
            assert "not MQTT" in meeting.note and str(meeting.embedded.port) in meeting.note
            assert await probe_mqtt("127.0.0.1", meeting.embedded.port)
        finally:
            await meeting.close()
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.asyncio
async def test_a_loopback_only_broker_on_the_port_is_not_offered_to_the_lan() -> None:
    # The "LAN address" is 127.0.0.2 here: loopback like every address a test may use,
    # and not where a broker bound to 127.0.0.1 listens.
    async with EmbeddedBroker("127.0.0.1", 0) as local:
        meeting = await start_meeting_point("0.0.0.0", local.port, lan=lambda: "127.0.0.2")
        try:
            assert meeting.embedded is not None, meeting.note
            assert meeting.embedded.port != local.port
            assert "only this machine reaches" in meeting.note
            assert str(meeting.embedded.port) in meeting.note
            assert await probe_mqtt("127.0.0.2", meeting.embedded.port)
        finally:
            await meeting.close()


"""The event loop never watches a socket that is closed, and a peer that meets one says so
in a line and connects all the same.

1,500 tables on one Mosquitto on 2 cores (keepalive timeouts, reconnects by the hundred)
put 53 tracebacks on stderr: ``FileNotFoundError`` from the loop's ``add_reader``. A frame
the socket took in parts had the loop's writer registered behind paho's back, so paho,
closing the socket when the link dropped, did not let it go; the next socket got the same
descriptor and the loop's record of the old one made watching it fail, in a callback no
one could catch, and the new connection never read its CONNACK. Checked here against a
broker of a few lines that reads slowly (a frame goes out in parts) and then drops the
link or stops answering pings, and against a record of a closed socket left in the loop.
The same broker holds a CONNACK back (an attempt given up closes its socket) and sends a
topic that is not UTF-8 (dropped, the link kept).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from netplay.transport import BrokerAddress, MqttTransport
from netplay.wire import Outgoing
from tests.broker.conftest import LOOPBACK, TIMEOUT, eventually


class SlowBroker:
    """An MQTT 3.1.1 broker of a few lines, on loopback, whose sockets have a 4 KiB receive
    buffer. On its first link it stops reading (``paused``) until ``resume`` is set, once
    it answered the SUBSCRIBE (``drop``) or got the first ping (else), so the peer's socket
    fills; then it drops the link at the frame on ``x/last`` (``drop``) or never answers a
    ping. Later links answer everything."""

    def __init__(self, *, drop: bool, hold_connack: bool = False) -> None:
        self.drop = drop
        self.connack = asyncio.Event()
        """Set: the first link gets its CONNACK (at once, unless ``hold_connack``)."""
        if not hold_connack:
            self.connack.set()
        self.ended: Counter[int] = Counter()
        """Links whose client closed them, and (``disconnects``) said DISCONNECT first."""
        self.disconnects: Counter[int] = Counter()
        self.after_suback = b""
        """Bytes the broker sends after each SUBACK (packets for the peer)."""
        self.links = 0
        self.paused = asyncio.Event()
        self.resume = asyncio.Event()
        self.frames: Counter[int] = Counter()
        """Frames read, per link."""
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # the accepted ones too
        sock.bind((LOOPBACK, 0))
        sock.listen()
        self._server = await asyncio.start_server(self._serve, sock=sock)
        self.port = sock.getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        self.resume.set()
        for writer in self._writers:
            writer.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.links += 1
        link = self.links
        self._writers.append(writer)
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                first = (await reader.readexactly(1))[0]
                length, shift = 0, 0
                while True:
                    byte = (await reader.readexactly(1))[0]
                    length |= (byte & 0x7F) << shift
                    shift += 7
                    if not byte & 0x80:
                        break
                body = await reader.readexactly(length)
                kind = first & 0xF0
                if kind == 0x10:  # CONNECT
                    if link == 1:
                        await self.connack.wait()
                    writer.write(b"\x20\x02\x00\x00")
                elif kind == 0x80:  # SUBSCRIBE: granted at QoS 0
                    writer.write(b"\x90\x03" + body[:2] + b"\x00" + self.after_suback)
                elif kind == 0xC0 and (link > 1 or self.drop):  # PINGREQ
                    writer.write(b"\xd0\x00")
                elif kind == 0x30:
                    self.frames[link] += 1
                    size = int.from_bytes(body[:2], "big")
                    if first & 0x06:  # QoS 1: PUBACK
                        writer.write(b"\x40\x02" + body[2 + size:4 + size])
                    if link == 1 and self.drop and body[2:2 + size] == b"x/last":
                        return
                elif kind == 0xE0:  # DISCONNECT
                    self.disconnects[link] += 1
                if link == 1 and not self.resume.is_set() and kind == (
                        0x80 if self.drop else 0xC0):
                    self.paused.set()
                    await self.resume.wait()
        except (asyncio.IncompleteReadError, ConnectionError):
            self.ended[link] += 1
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def _running(broker: SlowBroker, keepalive: int) -> AsyncIterator[MqttTransport]:
    await broker.start()
    # A connection that never read its CONNACK must fail the test, not time out and retry.
    transport = MqttTransport(BrokerAddress(LOOPBACK, broker.port), ["x/in"],
                              client_name="slow", keepalive=keepalive, connect_timeout=600)
    await transport.start()
    try:
        yield transport
    finally:
        await transport.stop()
        await broker.stop()


def _tracebacks(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.exc_info is not None or record.levelno >= logging.ERROR]


async def _fill_and_drain(transport: MqttTransport, broker: SlowBroker) -> None:
    """Publish small frames while the broker does not read until one goes out in parts
    (else the test proves nothing), then let the broker read them all."""
    await asyncio.wait_for(broker.paused.wait(), TIMEOUT)
    live = transport._live
    assert live is not None
    paho = live._client
    for _ in range(100_000):
        transport.publish(Outgoing("x/out", bytes(1000), qos=0))
        if paho.want_write():
            break
    assert paho.want_write(), "the socket never filled"
    broker.resume.set()
    await eventually(lambda: not paho.want_write())


@pytest.mark.asyncio
@pytest.mark.parametrize("drop", [True, False], ids=["link-dropped", "keepalive-timeout"])
async def test_a_link_lost_after_a_frame_went_out_in_parts_reconnects_without_a_traceback(
    drop: bool, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str],
) -> None:
    broker = SlowBroker(drop=drop)
    caplog.set_level(logging.INFO)
    async with _running(broker, keepalive=1) as transport:
        assert await transport.wait_connected(TIMEOUT)
        # After the ping (keepalive-timeout) and before the broker fails to answer it in time.
        await _fill_and_drain(transport, broker)
        if drop:
            transport.publish(Outgoing("x/last", b"", qos=0))
        await eventually(lambda: transport.connects == 2, timeout=3 * TIMEOUT)
        # The new link is whole: it reads (the broker's PUBACK comes in).
        transport.publish(Outgoing("x/out", b"again", qos=1))
        await asyncio.wait_for(transport.flushed(), TIMEOUT)
    assert "lost the broker" in caplog.text
    assert _tracebacks(caplog) == []
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.asyncio
async def test_the_loop_lets_go_of_the_writer_once_a_frame_in_parts_is_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Else the loop calls the writer on every turn until the next ping (a busy loop)."""
    broker = SlowBroker(drop=True)
    async with _running(broker, keepalive=60) as transport:
        assert await transport.wait_connected(TIMEOUT)
        await _fill_and_drain(transport, broker)
        live = transport._live
        assert live is not None
        sock = live._client.socket()
        assert sock is not None
        assert not asyncio.get_running_loop().remove_writer(sock.fileno())
    assert _tracebacks(caplog) == []


@pytest.mark.asyncio
async def test_a_closed_socket_the_loop_still_watches_is_said_in_a_line_and_the_peer_connects(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str],
) -> None:
    """Whoever left it there, the next socket on that descriptor is watched all the same."""
    broker = SlowBroker(drop=False)
    await broker.start()
    loop = asyncio.get_running_loop()
    stale = socket.socket()
    fd = stale.fileno()
    loop.add_writer(fd, lambda: None)
    stale.close()  # the loop's record of it stays; the next socket gets its descriptor
    caplog.set_level(logging.INFO)
    transport = MqttTransport(BrokerAddress(LOOPBACK, broker.port), ["x/in"],
                              client_name="stale", connect_timeout=600)
    await transport.start()
    try:
        assert await transport.wait_connected(TIMEOUT)
        live = transport._live
        assert live is not None
        sock = live._client.socket()
        assert sock is not None and sock.fileno() == fd  # else this tests nothing
    finally:
        await transport.stop()
        await broker.stop()
    assert "closed socket" in caplog.text
    assert _tracebacks(caplog) == []
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.asyncio
async def test_a_connection_attempt_given_up_leaves_no_connection_behind(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A CONNACK that comes after the attempt gave up (a broker slow under load) found
    the attempt's socket open and watched: paho took it, and the connection lived on,
    pinging, beside the next one, its will armed, till the process ended."""
    broker = SlowBroker(drop=False, hold_connack=True)
    await broker.start()
    transport = MqttTransport(BrokerAddress(LOOPBACK, broker.port), ["x/in"],
                              client_name="late", connect_timeout=0.5)
    await transport.start()
    try:
        await eventually(lambda: transport.failures >= 1)  # "Operation timed out"
        broker.connack.set()  # too late for the first attempt
        assert await transport.wait_connected(TIMEOUT)
        await eventually(lambda: broker.ended[1] == 1)
        assert broker.disconnects[1] == 1  # its will was dropped, not published
        assert transport.connects == 1 and broker.ended[transport.failures + 1] == 0
    finally:
        await transport.stop()
        await broker.stop()
    assert _tracebacks(caplog) == []


@pytest.mark.asyncio
async def test_a_qos1_message_whose_topic_is_not_utf8_is_dropped_and_the_link_stays(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """paho raises reading the topic of such a message (a QoS 0 one the transport reads
    itself, and drops): out of paho's read, that ended the link, each time it came."""
    broker = SlowBroker(drop=True)
    broker.resume.set()
    broker.after_suback = (b"\x32\x09\x00\x02\xff\xfe\x00\x01" + b"bad"  # QoS 1, id 1
                           + b"\x32\x0c\x00\x04x/in\x00\x02" + b"good")
    caplog.set_level(logging.INFO)
    async with _running(broker, keepalive=60) as transport:
        assert await transport.wait_connected(TIMEOUT)
        topic, payload = await asyncio.wait_for(transport.receive(), TIMEOUT)
        assert (topic, payload, transport.connects) == ("x/in", b"good", 1)
    assert "topic is not UTF-8" in caplog.text
    assert "lost the broker" not in caplog.text
    assert _tracebacks(caplog) == []


@pytest.mark.asyncio
async def test_a_peer_stopped_while_it_waits_for_its_connack_leaves_no_connection_behind(
) -> None:
    broker = SlowBroker(drop=False, hold_connack=True)
    await broker.start()
    transport = MqttTransport(BrokerAddress(LOOPBACK, broker.port), ["x/in"],
                              client_name="stopped", connect_timeout=600)
    await transport.start()
    try:
        await eventually(lambda: broker.links == 1)
        await transport.stop()
        broker.connack.set()  # what a broker slow to answer sends after all
        await eventually(lambda: broker.ended[1] == 1)
        assert broker.links == 1
    finally:
        await transport.stop()
        await broker.stop()

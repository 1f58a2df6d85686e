"""A peer's own reading and writing of the MQTT packets it handles most, beside paho.

paho makes a message object, a lock, a condition and a debug log line for every PUBLISH
and PUBACK, and reads each packet a few bytes at a time: a good part of a peer's CPU
under load (issue #28). For a plain TCP link the transport reads the broker's socket
ahead (:class:`ReadAhead`), takes QoS 0 PUBLISH and PUBACK packets whole from what was
read (:func:`fast_reader`), and builds the PUBLISH packets it sends itself
(:func:`fast_sender`); everything else, and everything on a TLS link, goes paho's own
way. This works on paho's internals, listed in :mod:`netplay.upstream` (which checks
the installed paho is one they were tested with).
"""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import paho.mqtt
import paho.mqtt.client as mqtt
from paho.mqtt.matcher import MQTTMatcher

from netplay.upstream import PAHO, require
from netplay.wire import Outgoing

require(PAHO, paho.mqtt.__version__)

log = logging.getLogger("netplay.transport")


class NoFilters(MQTTMatcher):
    """paho's per-topic callbacks, of which a peer has none.

    paho asks its matcher for the callbacks of every message it receives, and
    ``MQTTMatcher.iter_match`` builds a recursive closure for that, a reference cycle (a
    function, its cells, a list and a tuple) per message, which only the cyclic garbage
    collector frees. A process of many peers (``stacks bench load``: a hundred tables)
    then collected its young objects every ~700 messages, 2.5 ms a time, its older ones
    every ten of those, 25 ms, and all of them every few seconds, up to 0.4 s, holding up
    every table of the process each time."""

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]

    def iter_match(self, topic: str) -> Iterator[Any]:
        return iter(())


READ_AHEAD = 65536
"""Bytes asked of the broker's socket at once (see :class:`ReadAhead`)."""


class ReadAhead:
    """The broker's (plain TCP) socket, read ahead into a buffer.

    paho reads a packet in three or four ``recv`` calls (its first byte, each byte of its
    length, the rest) and one packet per call of ``loop_read``: each frame a peer
    received cost four system calls and a turn of the event loop of its own. Here one
    ``recv`` takes whatever the kernel holds (many frames, under load) and paho's small
    reads are served from it; :meth:`pending` tells the reader to go on while bytes are
    left, as it does for TLS (whose socket decrypts ahead likewise). Everything else is
    the socket's own."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = b""
        self._at = 0
        self.send = sock.send
        self.fileno = sock.fileno
        self.close = sock.close

    def recv(self, size: int) -> bytes:
        buffer, at = self._buffer, self._at
        if at >= len(buffer):
            buffer = self.sock.recv(READ_AHEAD)  # BlockingIOError when nothing is there
            if not buffer:
                return buffer  # the broker closed the link
            self._buffer, at = buffer, 0
        out = buffer[at:at + size]
        self._at = at + len(out)
        return out

    def pending(self) -> int:
        return len(self._buffer) - self._at

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


def fast_publish(paho: mqtt.Client, deliver: Callable[[str, bytes], None]) -> Callable[[], int]:
    """paho's handling of a received PUBLISH, for the QoS 0 ones (every frame a peer
    receives: it subscribes at QoS 0) in a few lines: topic and payload straight to
    ``deliver``, without paho's message object, its debug log line, its callback lock and
    its topic matcher (of which a peer has none). A PUBLISH of QoS 1 or 2 (a broker that
    ignores the subscription's QoS) goes paho's own way, acknowledged by it. A topic
    that is not UTF-8 is dropped (paho would raise in the callback)."""
    own = paho._handle_publish
    success = int(mqtt.MQTT_ERR_SUCCESS)
    protocol = int(mqtt.MQTT_ERR_PROTOCOL)

    def handle_publish() -> int:
        packet = paho._in_packet
        if packet["command"] & 0x06:
            return own()
        data = packet["packet"]
        size = int.from_bytes(data[:2], "big")
        if size == 0 or len(data) < 2 + size:
            return protocol  # malformed: paho drops the link, as it would itself
        try:
            topic = data[2:2 + size].decode()
        except UnicodeDecodeError:
            log.info("dropped a message whose topic is not UTF-8")
            return success
        deliver(topic, bytes(data[2 + size:]))
        return success

    return handle_publish


def fast_puback(paho: mqtt.Client, fast: dict[int, Sent]) -> Callable[[str], int]:
    """paho's handling of a PUBACK (MQTT 3.1.1: two bytes, the packet id), which a peer
    gets for every frame it publishes at QoS 1, without the reason code and properties
    objects paho makes for it (MQTT 5's, empty here) and its debug log line: the frame
    is marked published and the next waiting one sent, as paho does. We take no
    ``on_publish`` callback (see ``MqttTransport._hook``). Anything else (a PUBCOMP, a
    PUBACK of another length) goes paho's own way. The PUBACK of a frame
    :func:`fast_sender` sent (kept in ``fast``) marks its :class:`Sent`."""
    own = paho._handle_pubackcomp
    success = int(mqtt.MQTT_ERR_SUCCESS)

    def handle_pubackcomp(cmd: str) -> int:
        data = paho._in_packet["packet"]
        if cmd != "PUBACK" or len(data) != 2 or paho.on_publish is not None:
            return own(cmd)  # type: ignore[arg-type]
        mid = int.from_bytes(data, "big")
        sent = fast.pop(mid, None)
        if sent is not None:
            sent.published = True
            return success
        with paho._out_message_mutex:
            message = paho._out_messages.pop(mid, None)
            if message is None:
                return success
            message.info._set_as_published()
            if message.qos > 0:
                paho._inflight_messages -= 1
                if paho._max_inflight_messages > 0:
                    return int(paho._update_inflight())
        return success

    return handle_pubackcomp


class Sent:
    """A frame :func:`fast_sender` handed to the socket: what paho's ``MQTTMessageInfo``
    would tell of it (whether the broker has it), without its lock and condition."""

    __slots__ = ("mid", "published")

    def __init__(self, mid: int) -> None:
        self.mid = mid
        self.published = False

    def is_published(self) -> bool:
        return self.published

    def _set_as_published(self) -> None:
        """What paho's ``_packet_write`` calls once it wrote a QoS 0 frame's last bytes."""
        self.published = True


_PUBLISH = 0x30
_MAX_REMAINING = 268_435_455
"""MQTT's largest remaining length (four bytes of it)."""


def fast_sender(
    paho: mqtt.Client, want_writer: Callable[[], None], fast: dict[int, Sent],
) -> Callable[[Outgoing], Sent | None]:
    """paho's ``publish`` of a frame, for a plain TCP link, in a few lines: the PUBLISH
    packet (MQTT 3.1.1) made here and written to the socket at once, without paho's
    ``MQTTMessage``, its ``MQTTMessageInfo`` (a lock and a condition each), its debug log
    lines and its out-packet queue: 0.1 ms a frame of a peer's CPU, a host publishing
    a frame or more per action and every seat one per action (issue #28).

    A QoS 1 frame takes its packet id from paho (``_mid_generate``, so none is given
    twice with paho's own) and waits in ``fast`` for its PUBACK (:func:`fast_puback`).
    What the socket would not take is queued where paho queues its own, and the loop's
    writer asked for (``want_writer``): paho writes the rest as it writes its own. The
    sender answers ``None``, and the frame goes paho's own way, whenever that way could
    matter: paho holds bytes not written yet or frames over its in-flight limit (the
    frame goes after them, in order), as many frames of ours wait for a PUBACK as paho
    would let be in flight, a TLS link (its socket's partial writes are paho's to
    handle), or a frame of a size or QoS it would not make."""
    out_packets = paho._out_packet
    out_messages = paho._out_messages
    limit = paho._max_inflight_messages or 1 << 30

    def send(out: Outgoing) -> Sent | None:
        sock = paho._sock
        qos = out.qos
        payload = out.payload
        if (not isinstance(sock, ReadAhead) or out_packets or qos not in (0, 1)
                or len(out_messages) != paho._inflight_messages or len(fast) >= limit
                or type(payload) is not bytes):
            return None
        topic = out.topic.encode()
        remaining = 2 + len(topic) + len(payload) + 2 * qos
        if remaining > _MAX_REMAINING or len(topic) > 0xFFFF:
            return None
        header = bytearray((_PUBLISH | qos << 1 | bool(out.retain),))
        while remaining > 0x7F:
            header.append(remaining & 0x7F | 0x80)
            remaining >>= 7
        header.append(remaining)
        header += len(topic).to_bytes(2, "big")
        header += topic
        mid = 0
        if qos:
            mid = paho._mid_generate()
            header += mid.to_bytes(2, "big")
        packet = bytes(header) + payload
        sent = Sent(mid)
        if qos:
            fast[mid] = sent
        try:
            written = sock.send(packet)
        except OSError:  # full (BlockingIOError), or a broken link the reader will notice
            written = 0
        paho._last_msg_out = time.monotonic()  # paho's keepalive: no PINGREQ while busy
        if written < len(packet):
            out_packets.append({"command": packet[0], "mid": mid, "qos": qos, "pos": written,
                                "to_process": len(packet) - written, "packet": packet,
                                "info": sent})  # type: ignore[typeddict-item]
            want_writer()
        elif not qos:
            sent.published = True
        return sent

    return send


_READ_NOTHING, _READ_ALL, _READ_PAHO = 0, 1, 2
"""What :func:`fast_reader`'s reader did: the socket had nothing; it took every whole
packet that was read and nothing is left; it stopped at bytes for paho to read."""


def fast_reader(
    paho: mqtt.Client, sock: ReadAhead, deliver: Callable[[str, bytes], None],
    fast: dict[int, Sent],
) -> Callable[[], int]:
    """paho's reading of the packets a peer gets most, for a plain TCP link: a QoS 0
    PUBLISH (every frame a peer receives) and the PUBACK of a frame :func:`fast_sender`
    sent, taken whole from what :class:`ReadAhead` read, without paho's byte-at-a-time
    reads of each packet's header, its in-packet dictionary and its dispatch (0.05 ms a
    packet of a peer's CPU, issue #28). It stops at the first packet that is anything
    else, not whole yet, or malformed, and paho reads that one (from the same buffer),
    as it reads everything on a TLS link: what paho would do with it, it still does.
    Only called between packets (paho holds none half read)."""
    success = _READ_ALL

    def take() -> int:
        buffer, at = sock._buffer, sock._at
        if at >= len(buffer):
            try:
                buffer = sock.sock.recv(READ_AHEAD)
            except BlockingIOError:
                return _READ_NOTHING
            except OSError:
                return _READ_PAHO  # paho's own read meets the error and says so
            sock._buffer, sock._at, at = buffer, 0, 0
            if not buffer:
                return _READ_PAHO  # the broker closed the link: paho's read sees the end
        end = len(buffer)
        result = _READ_PAHO
        taken = at
        while True:
            if at >= end:
                result = success
                break
            command = buffer[at]
            if command & 0xF6 != 0x30 and command != 0x40:
                break  # not a QoS 0 PUBLISH nor a PUBACK: paho's
            length, shift, i = 0, 0, at + 1
            while i < end and shift <= 21:
                byte = buffer[i]
                i += 1
                length |= (byte & 0x7F) << shift
                if not byte & 0x80:
                    break
                shift += 7
            else:
                break  # the length is not all here (or too long: paho refuses it)
            start, stop = i, i + length
            if stop > end:
                break  # not whole yet
            if command == 0x40:
                if length != 2:
                    break
                sent = fast.pop(int.from_bytes(buffer[start:stop], "big"), None)
                if sent is None:
                    break  # one of paho's own frames: paho does its bookkeeping
                sent.published = True
            else:
                size = int.from_bytes(buffer[start:start + 2], "big")
                if length < 2 or size == 0 or length < 2 + size:
                    break  # malformed: paho drops the link, as it would
                try:
                    topic = buffer[start + 2:start + 2 + size].decode()
                except UnicodeDecodeError:
                    log.info("dropped a message whose topic is not UTF-8")
                else:
                    sock._at = stop
                    deliver(topic, buffer[start + 2 + size:stop])
            at = sock._at = stop
        if at != taken:
            paho._last_bytes_received = time.monotonic()  # as paho's read would mark it
        return result

    return take


def read_socket(paho: mqtt.Client, take: Callable[[], int] | None) -> None:
    """Read what the socket holds: the usual packets by ``take`` (:func:`fast_reader`,
    on a plain TCP link), the others by paho, until nothing that was read is left."""
    while True:
        if take is not None and paho._in_packet["command"] == 0 and take() != _READ_PAHO:
            return
        paho.loop_read()
        pending = getattr(paho._sock, "pending", None)  # TLS: decoded bytes left
        if pending is None or pending() <= 0:
            return

"""Does this broker fire the last will of a client that went silent? Found out, not assumed.

A peer frozen by SIGSTOP (or a machine that hung, or a half-open link) keeps its socket
open and sends nothing. A broker that enforces MQTT's keepalive drops such a client after
1.5 x its keepalive and publishes its will (Mosquitto, NATS, RabbitMQ, each on its own
schedule); amqtt, the embedded broker, does not in time (in its own process it fired
after 11 s for a keepalive of 2 s). Presence may rest on wills only where the broker is
known to do it, so the host asks its broker once, in the background (docs/protocol.md,
*Presence*):

* a throw-away client connects with a short keepalive (:data:`PROBE_KEEPALIVE`) and a will
  whose payload is a fresh random nonce (in a frame the host signed: whoever reads the
  topic finds a frame there, as everywhere), on a topic the host reads (its own ``out``: the
  host user may write it under the shipped ACL);
* it then says nothing at all (no PINGREQ: this is a hand-written client, not paho) and
  keeps its socket open, exactly like a frozen process;
* the host takes the broker as enforcing keepalive when that nonce arrives within
  1.5 x the keepalive plus :data:`PROBE_MARGIN` of the CONNACK.

Only the broker and the host know the nonce (it travels in the CONNECT), so nobody else
can make a broker look trustworthy; a broker that refuses the probe's login or its will
(an ACL), or is slow, is simply not trusted, and the table keeps its heartbeats.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("netplay.probe")

PROBE_KEEPALIVE = 2
"""Seconds of keepalive the probe connects with: the peers' own
(``netplay.transport.PRESENCE_KEEPALIVE``), so the probe measures what a frozen peer gets."""
PROBE_MARGIN = 7.0
"""Seconds allowed beyond 1.5 x the keepalive for the will to arrive. Mosquitto 2.0 counts
the silence in whole seconds and checks its clients only every 6 s (``keepalive__check``:
``last_keepalive_check + 5 < now``), so a client silent for more than 1.5 x its keepalive
is dropped up to ~7 s later (measured from the CONNACK: 5.1-6.0 s for 2 s, 12 s for
5 s); newer brokers check every second. With 2 s the deadline is 10 s: the ``away_after``
a frozen seat must be found within."""
CONNECT_TIMEOUT = 5.0


def probe_deadline(keepalive: int = PROBE_KEEPALIVE) -> float:
    """Seconds after the CONNACK by which the will must have come."""
    return 1.5 * keepalive + PROBE_MARGIN


def _string(data: str | bytes) -> bytes:
    raw = data.encode() if isinstance(data, str) else data
    return len(raw).to_bytes(2, "big") + raw


def _remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n % 128, n // 128
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def connect_packet(client_id: str, keepalive: int, will_topic: str, will: bytes,
                   username: str | None, password: str | None) -> bytes:
    """An MQTT 3.1.1 CONNECT: clean session, a will at QoS 1 (not retained)."""
    flags = 0x02 | 0x04 | (1 << 3)
    payload = _string(client_id) + _string(will_topic) + _string(will)
    if username is not None:
        flags |= 0x80
        payload += _string(username)
        if password is not None:
            flags |= 0x40
            payload += _string(password)
    body = _string("MQTT") + bytes([4, flags]) + keepalive.to_bytes(2, "big") + payload
    return b"\x10" + _remaining_length(len(body)) + body


@dataclass(frozen=True)
class Probe:
    """One probe: the will's topic, nonce and payload, and the keepalive it connected
    with. The payload is the nonce as a frame the host signed (``wrap``), so that
    everything on the table's topics decodes as a frame for whoever reads it; bare, the
    nonce itself."""

    topic: str
    nonce: bytes
    keepalive: int = PROBE_KEEPALIVE
    will: bytes = b""

    @classmethod
    def new(cls, topic: str, keepalive: int = PROBE_KEEPALIVE,
            wrap: Callable[[bytes], bytes] | None = None) -> Probe:
        nonce = os.urandom(16)
        return cls(topic, nonce, keepalive, nonce if wrap is None else wrap(nonce))


async def go_silent(
    probe: Probe, host: str, port: int, *, tls: bool = False, username: str | None = None,
    password: str | None = None, connected: asyncio.Future[float] | None = None,
    hold: float | None = None,
) -> bool:
    """Connect as the probe's silent client and stay silent, socket open, for ``hold``
    seconds (default: until the deadline has passed), then close. ``connected`` gets the
    loop time of the CONNACK. ``False`` when the broker can't be reached or refused the
    client (then there is nothing to wait for)."""
    loop = asyncio.get_running_loop()
    writer: asyncio.StreamWriter | None = None
    try:
        context = ssl.create_default_context() if tls else None
        async with asyncio.timeout(CONNECT_TIMEOUT):
            reader, writer = await asyncio.open_connection(host, port, ssl=context)
            writer.write(connect_packet(f"probe-{uuid.uuid4().hex[:12]}", probe.keepalive,
                                        probe.topic, probe.will, username, password))
            await writer.drain()
            ack = await reader.readexactly(4)
        if ack[0] != 0x20 or ack[3] != 0:
            log.info("the broker refused the keepalive probe (CONNACK %s)", ack.hex())
            return False
        if connected is not None and not connected.done():
            connected.set_result(loop.time())
        # Silent from here on: no PINGREQ, nothing read, the socket left open.
        await asyncio.sleep(probe_deadline(probe.keepalive) + 1.0 if hold is None else hold)
        return True
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ssl.SSLError) as exc:
        log.info("the keepalive probe could not connect: %s", exc)
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

"""Which tables a broker carries: its retained, signed announcements, and the answers of
its live hosts to a query (``netplay.listing``: for brokers that don't deliver retained
messages to a wildcard subscription, or keep them on one node of a cluster)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, replace
from typing import Any

import aiomqtt

from netplay.codec import decode
from netplay.errors import FrameError
from netplay.hosts import fingerprint
from netplay.listing import QUERY, is_reply_topic, reply_topic
from netplay.messages import clean_text
from netplay.topics import ANNOUNCE_WILDCARD, PREFIX, TABLE_NAME
from netplay.transport import SUBSCRIBE_QOS, BrokerAddress

EVENTS_WILDCARD = f"{PREFIX}/+/events"
HEARD_WINDOW = 2.0
"""A listing this long or longer also expects a heartbeat from each live table's host (it
sends one a second): a frozen host, whose last will may never fire, shows as offline."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    table: str
    name: str
    broker: str
    players: int
    seated: tuple[str, ...]
    free: int
    status: str
    password: bool
    host: bytes = b""
    """The announcing host's key."""

    fingerprint: str = ""
    """The host key's fingerprint: ``stacks join TABLE@FINGERPRINT`` follows only it."""
    keys: tuple[bytes, ...] = ()
    """The keys of the seated players and bots, as announced (a returning player finds its
    own seat among them)."""

    def has_seat(self, key: bytes) -> bool:
        """Whether the player of ``key`` holds a seat at this table now."""
        return not self.offline and key in self.keys

    @property
    def offline(self) -> bool:
        return self.status == "offline"

    @property
    def pinned(self) -> str:
        return f"{self.table}@{self.fingerprint}" if self.fingerprint else self.table

    def line(self, me: bytes | None = None) -> str:
        """The table in one line; ``me``: the key of the player reading it (its own seat
        is said so, not counted among the seats taken)."""
        lock = " (password)" if self.password else ""
        if self.offline:
            return (f"{self.pinned}{lock} on {self.broker}: offline, its host is gone "
                    f"({self.players} seats); it comes back if the host resumes")
        who = ", ".join(self.seated) or "nobody yet"
        if me is not None and self.has_seat(me):
            return (f"{self.pinned}{lock} on {self.broker}: {self.status}, your seat is "
                    f"waiting — {who}")
        return (f"{self.pinned}{lock} on {self.broker}: {self.status}, "
                f"{self.free} of {self.players} seats free — {who}")


def table_from_announcement(topic: str, payload: bytes, broker: str) -> TableInfo | None:
    """A verified announcement as a :class:`TableInfo`, or ``None`` if it isn't one.

    It came retained on its table's ``announce`` topic, or as a live host's answer on a
    listing's reply topic (then the table is the one the signed frame names).
    """
    if not payload:
        return None
    parts = topic.split("/")
    reply = is_reply_topic(topic)
    if not reply and (len(parts) != 4 or "/".join(parts[:2]) != PREFIX
                      or parts[3] != "announce"):
        return None
    try:
        frame = decode(payload)
    except FrameError:
        return None
    body: dict[str, Any] = frame.body
    table = frame.table if reply else parts[2]
    kinds = ("announce",) if reply else ("announce", "offline")
    if frame.type not in kinds or frame.table != table or body.get("host") != frame.sender \
            or not TABLE_NAME.match(table):
        return None
    if frame.type == "offline":
        # The host's last will: the table exists but nobody can join it now.
        players = body.get("players")
        return TableInfo(
            table=table, name=clean_text(str(body.get("name", table)), 40),
            broker=broker, players=players if type(players) is int else 0, seated=(),
            free=0, status="offline", password=False, host=frame.sender,
            fingerprint=fingerprint(frame.sender),
        )
    if body.get("status") == "closed":
        return None  # the host's signed close: the table is gone
    seats = body.get("seats")
    players = body.get("players")
    if not isinstance(seats, list) or type(players) is not int or len(seats) != players:
        return None
    seated = tuple(
        clean_text(str(s.get("name", "?")), 24) for s in seats if isinstance(s, dict)
    )
    keys = tuple(
        s["key"] for s in seats
        if isinstance(s, dict) and isinstance(s.get("key"), bytes) and len(s["key"]) == 32
    )
    return TableInfo(
        table=table,
        name=clean_text(str(body.get("name", table)), 40),
        broker=broker,
        players=players,
        seated=seated,
        free=sum(1 for s in seats if s is None),
        status=str(body.get("status", "?"))[:10],
        password=body.get("password") is True,
        host=frame.sender,
        fingerprint=fingerprint(frame.sender),
        keys=keys,
    )


def _heartbeat_of(topic: str, payload: bytes) -> tuple[str, bytes] | None:
    """``(table, host key)`` of a host's signed frame on a table's ``events`` topic: its
    heartbeat, or a batch or other frame that stood for one (``HostSession._beat``)."""
    parts = topic.split("/")
    if len(parts) != 4 or parts[3] != "events":
        return None
    try:
        frame = decode(payload)
    except FrameError:
        return None
    if frame.table != parts[2]:
        return None
    return frame.table, frame.sender


async def list_tables(url: str, timeout: float = 1.0) -> list[TableInfo]:
    """The tables announced on the broker at ``url`` (empty if it can't be reached)."""
    address = BrokerAddress.parse(url)
    tables: dict[str, TableInfo] = {}
    heard: set[tuple[str, bytes]] = set()
    answered: set[str] = set()
    judge = False
    with contextlib.suppress(aiomqtt.MqttError, OSError):
        async with aiomqtt.Client(
            address.host, address.port, username=address.username, password=address.password,
            identifier=f"lobby-{uuid.uuid4().hex[:10]}", timeout=timeout + 2,
        ) as client:
            nonce = uuid.uuid4().hex
            await client.subscribe(ANNOUNCE_WILDCARD, qos=SUBSCRIBE_QOS)
            await client.subscribe(reply_topic(nonce), qos=SUBSCRIBE_QOS)
            await client.publish(QUERY, nonce.encode(), qos=1)
            if timeout >= HEARD_WINDOW:
                granted = await client.subscribe(EVENTS_WILDCARD, qos=0)
                judge = _granted(granted)

            async def collect() -> None:
                async for message in client.messages:
                    payload = message.payload
                    if not isinstance(payload, bytes):
                        continue
                    topic = message.topic.value
                    if topic.endswith("/events"):
                        beat = _heartbeat_of(topic, payload)
                        if beat is not None:
                            heard.add(beat)
                        continue
                    info = table_from_announcement(topic, payload, address.url)
                    if info is None:
                        continue
                    if is_reply_topic(topic):
                        # A live host's answer: it wins over a retained announcement (which
                        # may be a dead host's), and the host was heard.
                        heard.add((info.table, info.host))
                        answered.add(info.table)
                        tables[info.table] = info
                    elif info.table not in answered:
                        tables[info.table] = info

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(collect(), timeout)
    if judge:
        for name, info in list(tables.items()):
            if info.status in ("lobby", "playing") and (name, info.host) not in heard:
                tables[name] = replace(info, status="offline", free=0)
    return sorted(tables.values(), key=lambda t: t.table)


def _granted(result: object) -> bool:
    """Whether a SUBACK granted the subscription (MQTT 3.1.1: 0x80 is a refusal)."""
    codes = result if isinstance(result, tuple | list) else (result,)
    return all(not (isinstance(c, int) and c >= 0x80)
               and getattr(c, "is_failure", False) is not True for c in codes)

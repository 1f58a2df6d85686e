"""Which tables a broker carries: its retained, signed announcements, and the answers of
its live hosts to a query (``netplay.listing``: for brokers that don't deliver retained
messages to a wildcard subscription, or keep them on one node of a cluster).

Whose table it is: the retained announcement is the authority (with the shipped ACL only
the table's host may write it), and an answer counts only for the key it names. Every user
may write the reply topics, so an answer signed by another key, or a second key on the
announce topic, makes the table a conflict that names both fingerprints (:class:`Listing`);
with no retained announcement (RabbitMQ), two keys answering are a conflict too.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass, field, replace
from typing import Any

import aiomqtt

from netplay.codec import decode
from netplay.errors import FrameError
from netplay.hosts import fingerprint
from netplay.listing import QUERY, is_reply_topic, reply_topic
from netplay.messages import clean_text
from netplay.names import is_table_name
from netplay.topics import ANNOUNCE_WILDCARD, PREFIX
from netplay.transport import SUBSCRIBE_QOS, BrokerAddress

EVENTS_WILDCARD = f"{PREFIX}/+/events"
HEARD_WINDOW = 2.0
"""A listing this long or longer also expects a heartbeat from each live table's host (it
sends one a second): a frozen host, whose last will may never fire, shows as offline."""
MAX_CLAIMS = 8
"""Host keys a listing keeps per table (a flood of signed answers from fresh keys costs a
bounded list; the table is a conflict from the second key on anyway)."""
MAX_TABLES = 1000
"""Tables a listing keeps (answers naming fresh table names are dropped past it)."""
_COUNT = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


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
    """The host key's fingerprint: ``stacks join TABLE@FINGERPRINT`` follows only it. In a
    conflict, the retained announcement's (or empty when none was delivered)."""

    conflict: tuple[str, ...] = ()
    """When two or more host keys claim the table: their fingerprints, the retained
    announcement's first (the other fields are that announcement's, else the first
    answer's); empty when one host claims it."""
    catching_up: bool = False
    """The game is over for the players; its spectators, behind the spectator delay,
    have not seen the end yet (the table stays up until they have)."""
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
        if self.conflict:
            hosts = _COUNT.get(len(self.conflict), str(len(self.conflict)))
            return (f"{self.table} — {hosts} hosts claim it: {', '.join(self.conflict)} "
                    f"(on {self.broker}; ask your host which fingerprint is theirs and join "
                    f"{self.table}@FINGERPRINT)")
        lock = " (password)" if self.password else ""
        if self.offline:
            return (f"{self.pinned}{lock} on {self.broker}: offline, its host is gone "
                    f"({self.players} seats); it comes back if the host resumes")
        who = ", ".join(self.seated) or "nobody yet"
        status = "game over, spectators catching up" if self.catching_up else self.status
        if me is not None and self.has_seat(me):
            return (f"{self.pinned}{lock} on {self.broker}: {status}, your seat is "
                    f"waiting — {who}")
        return (f"{self.pinned}{lock} on {self.broker}: {status}, "
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
            or not is_table_name(table):
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
        catching_up=body.get("status") == "over" and body.get("catching_up") is True,
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


@dataclass
class _Claims:
    """What a listing heard about one table."""

    retained: TableInfo | None = None
    """The newest announcement on the table's announce topic (retained, or published while
    the listing listened): the authority on whose table it is."""
    replies: dict[bytes, TableInfo] = field(default_factory=dict)
    """The newest answer to the query per host key."""
    live: dict[bytes, None] = field(default_factory=dict)
    """Every key that claimed the table as open (an answer, or a live announcement), in
    the order first heard."""


class Listing:
    """A listing's merge of announcements, answers and heartbeats into one line per table.
    No I/O: :func:`list_tables` feeds it what the broker delivers."""

    def __init__(self, broker: str) -> None:
        self.broker = broker
        self.claims: dict[str, _Claims] = {}
        self.heard: set[tuple[str, bytes]] = set()
        """``(table, host key)`` pairs of which a frame proved the host live."""

    def receive(self, topic: str, payload: bytes) -> None:
        """One message from the broker (an announcement, an answer, a heartbeat)."""
        if topic.endswith("/events"):
            beat = _heartbeat_of(topic, payload)
            if beat is not None and len(self.heard) < MAX_TABLES * MAX_CLAIMS:
                self.heard.add(beat)
            return
        info = table_from_announcement(topic, payload, self.broker)
        if info is None:
            return
        claims = self.claims.get(info.table)
        if claims is None:
            if len(self.claims) >= MAX_TABLES:
                return
            claims = self.claims[info.table] = _Claims()
        if not info.offline and info.host not in claims.live:
            if len(claims.live) >= MAX_CLAIMS:
                return
            claims.live[info.host] = None
        if is_reply_topic(topic):
            # A live host's answer: fresher than a retained announcement of the same key
            # (which may be its last will), and the host was heard.
            self.heard.add((info.table, info.host))
            claims.replies[info.host] = info
        else:
            claims.retained = info

    def tables(self, *, judge: bool = False) -> list[TableInfo]:
        """One entry per table, by name; ``judge``: the listing lasted long enough to
        expect a heartbeat from each live host (:data:`HEARD_WINDOW`), and one whose key
        was not heard shows as offline."""
        found = []
        for name, claims in self.claims.items():
            retained = claims.retained
            if retained is not None:
                info = claims.replies.get(retained.host, retained)
                keys = [retained.host, *(k for k in claims.live if k != retained.host)]
            elif claims.replies:
                keys = list(claims.replies)
                info = claims.replies[keys[0]]
            else:
                continue
            if judge and info.status in ("lobby", "playing") \
                    and (name, info.host) not in self.heard:
                info = replace(info, status="offline", free=0)
            if len(keys) > 1:
                info = replace(info, conflict=tuple(fingerprint(k) for k in keys),
                               fingerprint=info.fingerprint if retained is not None else "")
            found.append(info)
        return sorted(found, key=lambda t: t.table)


async def list_tables(url: str, timeout: float = 1.0) -> list[TableInfo]:
    """The tables announced on the broker at ``url`` (empty if it can't be reached)."""
    address = BrokerAddress.parse(url)
    listing = Listing(address.url)
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
                    if isinstance(message.payload, bytes):
                        listing.receive(message.topic.value, message.payload)

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(collect(), timeout)
    return listing.tables(judge=judge)


def _granted(result: object) -> bool:
    """Whether a SUBACK granted the subscription (MQTT 3.1.1: 0x80 is a refusal)."""
    codes = result if isinstance(result, tuple | list) else (result,)
    return all(not (isinstance(c, int) and c >= 0x80)
               and getattr(c, "is_failure", False) is not True for c in codes)

"""Which tables a broker carries: its retained, signed announcements, and the answers of
its live hosts to a query (``netplay.listing``: brokers that don't deliver retained
messages to a wildcard subscription)."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from typing import Any

import aiomqtt

from netplay.codec import decode
from netplay.errors import FrameError
from netplay.listing import QUERY, is_reply_topic, reply_topic
from netplay.messages import clean_text
from netplay.topics import ANNOUNCE_WILDCARD, PREFIX, TABLE_NAME
from netplay.transport import BrokerAddress


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

    def line(self) -> str:
        lock = " (password)" if self.password else ""
        who = ", ".join(self.seated) or "nobody yet"
        return (f"{self.table}{lock} on {self.broker}: {self.status}, "
                f"{self.free} of {self.players} seats free — {who}")


def table_from_announcement(topic: str, payload: bytes, broker: str) -> TableInfo | None:
    """A verified announcement as a :class:`TableInfo`, or ``None`` if it isn't one.

    It came retained on its table's ``announce`` topic, or as a host's answer on a
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
    if frame.type != "announce" or frame.table != table or body.get("host") != frame.sender \
            or not TABLE_NAME.match(table):
        return None
    seats = body.get("seats")
    players = body.get("players")
    if not isinstance(seats, list) or type(players) is not int or len(seats) != players:
        return None
    seated = tuple(
        clean_text(str(s.get("name", "?")), 24) for s in seats if isinstance(s, dict)
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
    )


async def list_tables(url: str, timeout: float = 1.0) -> list[TableInfo]:
    """The tables announced on the broker at ``url`` (empty if it can't be reached)."""
    address = BrokerAddress.parse(url)
    tables: dict[str, TableInfo] = {}
    answered: set[str] = set()
    with contextlib.suppress(aiomqtt.MqttError, OSError):
        async with aiomqtt.Client(
            address.host, address.port, username=address.username, password=address.password,
            identifier=f"lobby-{uuid.uuid4().hex[:10]}", timeout=timeout + 2,
        ) as client:
            nonce = uuid.uuid4().hex
            await client.subscribe(ANNOUNCE_WILDCARD, qos=1)
            await client.subscribe(reply_topic(nonce), qos=1)
            await client.publish(QUERY, nonce.encode(), qos=1)

            async def collect() -> None:
                async for message in client.messages:
                    payload = message.payload
                    if isinstance(payload, bytes):
                        info = table_from_announcement(message.topic.value, payload,
                                                       address.url)
                        live = is_reply_topic(message.topic.value)
                        if info is not None and (live or info.table not in answered):
                            # A live host's answer wins over a retained announcement,
                            # which may be a dead host's.
                            tables[info.table] = info
                            if live:
                                answered.add(info.table)

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(collect(), timeout)
    return sorted(tables.values(), key=lambda t: t.table)

"""Which tables a broker carries: its retained, signed announcements."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from dataclasses import dataclass
from typing import Any

import aiomqtt

from netplay.codec import decode
from netplay.errors import FrameError
from netplay.hosts import fingerprint
from netplay.messages import clean_text
from netplay.topics import ANNOUNCE_WILDCARD, PREFIX
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
    fingerprint: str = ""
    """The host key's fingerprint: ``stacks join TABLE@FINGERPRINT`` follows only it."""

    @property
    def pinned(self) -> str:
        return f"{self.table}@{self.fingerprint}" if self.fingerprint else self.table

    def line(self) -> str:
        lock = " (password)" if self.password else ""
        who = ", ".join(self.seated) or "nobody yet"
        return (f"{self.pinned}{lock} on {self.broker}: {self.status}, "
                f"{self.free} of {self.players} seats free — {who}")


def table_from_announcement(topic: str, payload: bytes, broker: str) -> TableInfo | None:
    """A verified announcement as a :class:`TableInfo`, or ``None`` if it isn't one."""
    parts = topic.split("/")
    if len(parts) != 4 or "/".join(parts[:2]) != PREFIX or parts[3] != "announce" or not payload:
        return None
    try:
        frame = decode(payload)
    except FrameError:
        return None
    body: dict[str, Any] = frame.body
    if frame.type != "announce" or frame.table != parts[2] or body.get("host") != frame.sender:
        return None
    if body.get("status") == "closed":
        return None  # the host's signed close: the table is gone
    seats = body.get("seats")
    players = body.get("players")
    if not isinstance(seats, list) or type(players) is not int or len(seats) != players:
        return None
    seated = tuple(
        clean_text(str(s.get("name", "?")), 24) for s in seats if isinstance(s, dict)
    )
    return TableInfo(
        table=parts[2],
        name=clean_text(str(body.get("name", parts[2])), 40),
        broker=broker,
        players=players,
        seated=seated,
        free=sum(1 for s in seats if s is None),
        status=str(body.get("status", "?"))[:10],
        password=body.get("password") is True,
        fingerprint=fingerprint(frame.sender),
    )


async def list_tables(url: str, timeout: float = 1.0) -> list[TableInfo]:
    """The tables announced on the broker at ``url`` (empty if it can't be reached)."""
    address = BrokerAddress.parse(url)
    tables: dict[str, TableInfo] = {}
    with contextlib.suppress(aiomqtt.MqttError, OSError):
        async with aiomqtt.Client(
            address.host, address.port, username=address.username, password=address.password,
            identifier=f"lobby-{uuid.uuid4().hex[:10]}", timeout=timeout + 2,
        ) as client:
            await client.subscribe(ANNOUNCE_WILDCARD, qos=1)

            async def collect() -> None:
                async for message in client.messages:
                    payload = message.payload
                    if isinstance(payload, bytes):
                        info = table_from_announcement(message.topic.value, payload,
                                                       address.url)
                        if info is not None:
                            tables[info.table] = info

            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(collect(), timeout)
    return sorted(tables.values(), key=lambda t: t.table)

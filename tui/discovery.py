"""Tables near by: brokers found over mDNS, and the tables each one announces."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from broker.discovery import find_brokers
from netplay.lobby import TableInfo, list_tables


async def find_broker_urls(timeout: float = 2.0) -> list[str]:
    """The brokers announced on the LAN, as URLs."""
    return sorted({broker.url for broker in await find_brokers(timeout)})


async def find_tables(
    timeout: float = 2.0, *, brokers: Sequence[str] = (), search_lan: bool = True
) -> list[TableInfo]:
    """Every table announced on the LAN's brokers (and on ``brokers``), by name."""
    urls = set(brokers)
    if search_lan:
        urls |= set(await find_broker_urls(timeout))
    found = await asyncio.gather(*(list_tables(url, timeout=min(timeout, 2.0)) for url in urls))
    return sorted((t for tables in found for t in tables), key=lambda t: (t.table, t.broker))

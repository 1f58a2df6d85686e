"""Tables near by: brokers found over mDNS, and the tables each one announces; the seats a
profile holds at running tables (a player coming back)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

from broker.discovery import find_brokers
from netplay.errors import ProfileError
from netplay.identity import KEY_FILE, load_profile
from netplay.known import KnownHosts
from netplay.lobby import HEARD_WINDOW, TableInfo, list_tables
from netplay.transport import BrokerAddress
from tui.launch import ProfileLock


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


def profile_key(base: Path, profile: str) -> bytes | None:
    """The public key of profile ``profile`` (under ``base``), if it exists and no other
    running stacks holds it (that one plays its seats: they are not waiting)."""
    if not (base / profile / KEY_FILE).exists():
        return None
    lock = ProfileLock(base)
    if lock.acquire(profile, exact=True) != profile or not lock.held:
        return None
    try:
        return load_profile(profile, create=False, base=base).key
    except ProfileError:
        return None
    finally:
        lock.release()


async def seats_waiting(
    folder: Path, me: bytes, *, brokers: Sequence[str] = (), timeout: float = HEARD_WINDOW,
) -> list[TableInfo]:
    """The running tables where the profile in ``folder`` (key ``me``) holds a seat: those
    it took a seat at (its known hosts) that their host still announces with it seated. A
    broker given in ``brokers`` with credentials is asked with them."""
    known = KnownHosts(folder).seats()
    if not known:
        return []
    with_credentials: dict[str, str] = {}
    for url in brokers:
        with contextlib.suppress(ValueError):
            with_credentials[BrokerAddress.parse(url).url] = url
    urls = {broker for _, _, broker in known}
    found = await asyncio.gather(*(
        list_tables(with_credentials.get(url, url), timeout=timeout) for url in urls))
    hosts = {table: host for table, host, _ in known}
    return sorted(
        (t for tables in found for t in tables
         if hosts.get(t.table) == t.host and t.status in ("lobby", "playing")
         and t.has_seat(me)),
        key=lambda t: t.table,
    )

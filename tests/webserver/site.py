"""A database of finished games (the ratings tests' fixed set) for the web tests of the
leaderboards, players, games and the API."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ratings.store import Store
from tests.ratings.games import sequence_record, stacks_records
from webserver.server import WebServer, WebSettings


async def fill(url: str) -> None:
    """Five Sequence Stacks games and a classic one, stored as a server stores them."""
    store = await Store.open(url)
    try:
        for record in [*stacks_records(), sequence_record()]:
            await store.add_record(record)
    finally:
        await store.close()


async def leave_early(url: str, left: dict[str, int]) -> None:
    """Each named player (by name) left that many games before their end, as the server
    notes them when the stand-in finished their seat."""
    from ratings.moderation import ModerationStore

    store = await Store.open(url)
    try:
        named = {s.name: s.fingerprint for s in await store.leaderboard()}
        for name, count in left.items():
            for game in range(count):
                await ModerationStore(store).note_abandons(
                    f"table {game}", 1000.0 + game, [(named[name], name)])
    finally:
        await store.close()


def database(folder: Path) -> str:
    url = f"sqlite:///{folder / 'ratings.sqlite'}"
    asyncio.run(fill(url))
    return url


@contextmanager
def served(folder: Path, url: str, **settings: Any) -> Iterator[str]:
    """The web server over the database at ``url``, on a free port, its loop in a thread
    of its own (for clients that block: schemathesis's); yields its address."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True, name="web-site")
    thread.start()

    async def no_tables() -> list[object]:
        return []

    server = WebServer(WebSettings(port=0, database=url, home=folder / "web-home", **settings),
                       tables=no_tables, broker=lambda: None)  # type: ignore[arg-type]
    try:
        asyncio.run_coroutine_threadsafe(server.start(), loop).result(60)
        yield server.url.rstrip("/")
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()

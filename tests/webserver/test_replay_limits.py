"""A replay in the browser is a process per visitor: at most `--max-replays` at once (the
next is told the page is full, in words), each closed when idle, its place then free."""

from __future__ import annotations

import time
from pathlib import Path

import aiohttp
import pytest

from tests.support import SCALE, wait_until_async
from tests.webserver.conftest import TIMEOUT
from tests.webserver.site import fill
from webserver.replay import CLOSE_FULL, CLOSE_IDLE
from webserver.server import WebServer, WebSettings

pytestmark = pytest.mark.asyncio

IDLE_S = 8.0 * SCALE
"""Long enough for the replay program to draw its first screen on a loaded machine."""


async def test_replays_are_capped_and_an_idle_one_is_closed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ratings.sqlite'}"
    await fill(url)
    lines: list[str] = []

    async def no_tables() -> list[object]:
        return []

    server = WebServer(WebSettings(port=0, database=url, home=tmp_path / "home",
                                   max_replays=1, idle_timeout=IDLE_S),
                       tables=no_tables, broker=lambda: None,  # type: ignore[arg-type]
                       say=lines.append)
    await server.start()
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(server.url + "api/games?limit=1") as reply:
                game = (await reply.json())["games"][0]["id"]
            page = f"{server.url}game/{game}"
            async with http.get(page) as reply:
                assert reply.status == 200
            first = await http.ws_connect(f"{page}/ws?width=100&height=30")
            opened = time.monotonic()
            drawn = await first.receive(timeout=TIMEOUT)  # the replay's first screen
            assert drawn.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
            # The one place is taken: the page and a second socket say so.
            async with http.get(page) as reply:
                assert reply.status == 503 and "replay place is taken" in await reply.text()
            second = await http.ws_connect(f"{page}/ws")
            refused = await second.receive(timeout=TIMEOUT)
            assert refused.type == aiohttp.WSMsgType.CLOSE and refused.data == CLOSE_FULL
            assert "Try again" in refused.extra
            # Nobody presses a key: the first is closed as idle, not before.
            while True:
                message = await first.receive(timeout=TIMEOUT)
                if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
            assert message.data == CLOSE_IDLE and "without a key" in message.extra
            assert time.monotonic() - opened >= IDLE_S - 0.5
            await first.close()

            async def free() -> bool:
                async with http.get(page) as reply:
                    return reply.status == 200

            await wait_until_async(free, "the replay's place to be free again",
                                   TIMEOUT / SCALE, interval=0.2)
        assert any("opened the replay of game" in line for line in lines), lines
        assert any("turned away from the replay" in line for line in lines), lines
    finally:
        await server.stop()

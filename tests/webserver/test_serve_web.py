"""`stacks serve --web-port`: the web page of the tables the ssh server holds, beside its
ssh port (the page itself is `stacks web`'s, tested in Chromium in test_browser.py)."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import pytest

from sshserver.server import GameServer
from sshserver.settings import ServeSettings
from sshserver.tables import Caller
from tests.support import SCALE, free_port, wait_until_async
from tests.webserver.conftest import TIMEOUT
from tests.webserver.site import fill
from webserver.server import WebServer, WebSettings

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")


async def test_the_web_page_lists_the_held_tables_and_opens_them(
    mosquitto: str, tmp_path: Path,
) -> None:
    server = GameServer(ServeSettings(bind="127.0.0.1", port=0, broker=mosquitto, open=True,
                                      config=tmp_path / "config", web_port=0))
    await server.start()
    try:
        assert server.web is not None
        url = server.web.url
        async with aiohttp.ClientSession() as http:
            async with http.get(url + "tables.json") as reply:
                assert (await reply.json())["tables"] == []  # nothing held yet
            reply_ = await server.tables.handle(ALICE, {"op": "open", "table": "held",
                                                        "players": 2, "bots": 1})
            assert reply_["ok"], reply_

            async def listed() -> list[dict[str, object]]:
                async with http.get(url + "tables.json") as reply:
                    rows: list[dict[str, object]] = (await reply.json())["tables"]
                    return rows

            rows = await wait_until_async(listed, "the held table to be listed", TIMEOUT / SCALE,
                                          interval=0.5)
            assert [(r["table"], r["status"], r["free"]) for r in rows] == [("held", "lobby", 1)]
            async with http.get(url) as reply:
                assert 'href="table/held"' in await reply.text()
            async with http.get(url + "table/held") as reply:
                assert reply.status == 200 and "textual-terminal" in await reply.text()
    finally:
        await server.stop()


async def test_the_web_page_shows_the_server_s_games_and_api(
    mosquitto: str, tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'ratings.sqlite'}"
    await fill(url)
    server = GameServer(ServeSettings(bind="127.0.0.1", port=0, broker=mosquitto, open=True,
                                      config=tmp_path / "config", web_port=0, database=url))
    await server.start()
    try:
        assert server.web is not None
        async with aiohttp.ClientSession() as http:
            async with http.get(server.web.url + "leaderboard?game=sequence") as reply:
                page = await reply.text()
                assert reply.status == 200 and 'href="player/ann"' in page
            async with http.get(server.web.url + "api/players/ann") as reply:
                player = await reply.json()
                assert set(player["ratings"]) == {"stacks", "sequence"}
            async with http.get(server.web.url) as reply:  # the tables link to the games
                assert 'href="leaderboard?game=stacks"' in await reply.text()
    finally:
        await server.stop()


async def test_a_database_down_at_the_start_is_a_503_not_a_server_that_won_t_start(
    tmp_path: Path,
) -> None:
    async def no_tables() -> list[object]:
        return []

    port = free_port()
    web = WebServer(WebSettings(port=0, home=tmp_path / "home", wait_for_database=True,
                                database=f"postgresql://nobody@127.0.0.1:{port}/none"),
                    tables=no_tables, broker=lambda: None)  # type: ignore[arg-type]
    await web.start()
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(web.url + "api/players") as reply:
                assert reply.status == 503 and reply.headers["Retry-After"] == "60"
                assert "can't be read just now" in (await reply.json())["error"]
            async with http.get(web.url + "leaderboard") as reply:
                assert reply.status == 503 and "try again" in await reply.text()
            async with http.get(web.url + "tables.json") as reply:
                assert reply.status == 200  # the tables are served all the same
    finally:
        await web.stop()

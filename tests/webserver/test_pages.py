"""The database's pages (no browser needed for these): every link on the leaderboards,
the recent games and each player's page leads to a page that answers, and bad input on a
page is a page that says so with a 4xx, never a 500; the games a player left early are
on the leaderboard and on their page."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from urllib.parse import urljoin

import pytest
import requests
from sqlalchemy import insert

from ratings.models import players
from ratings.store import Store
from tests.webserver.site import database, leave_early, served

SAMS = ("aaaa-0000-0000-0001", "aaaa-0000-0000-0002")
"""Two people who played under one name (no rated game: linked from no list)."""


async def _two_sams(url: str) -> None:
    store = await Store.open(url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(insert(players), [
                {"fingerprint": f, "name": "sam", "bot": False, "key": None,
                 "first_seen": time.time()} for f in SAMS])
    finally:
        await store.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("pages")
    url = database(folder)
    asyncio.run(_two_sams(url))
    asyncio.run(leave_early(url, {"bob": 3}))
    with served(folder, url) as address:
        yield address + "/"


def test_every_link_of_the_games_pages_answers(site: str) -> None:
    seen: set[str] = set()
    todo = [urljoin(site, "leaderboard?game=stacks"), urljoin(site, "leaderboard?game=sequence"),
            urljoin(site, "games"), urljoin(site, "games?game=sequence&limit=2")]
    players = games = 0
    while todo:
        url = todo.pop()
        if url in seen or not url.startswith(site):
            continue
        seen.add(url)
        reply = requests.get(url, timeout=30)
        assert reply.status_code == 200, (url, reply.status_code, reply.text[:300])
        if "/api/" in url or "/static/" in url:
            continue
        players += "/player/" in url
        games += "/game/" in url
        for link in re.findall(r'href="([^"]*)"', reply.text):
            todo.append(urljoin(url, link.replace("&amp;", "&")))
    # Every player of the six games (ann, bob and the bots' levels) and every game.
    assert players >= 5 and games == 6, sorted(seen)


def test_a_bot_s_seat_name_leads_to_its_level(site: str) -> None:
    page = requests.get(site + "player/Bot 4 (medium)", timeout=30)
    assert page.status_code == 200 and "bot-medium" in page.text


def test_the_games_left_early_are_on_the_leaderboard_and_the_player_s_page(
        site: str) -> None:
    board = requests.get(site + "leaderboard?game=stacks", timeout=30).text
    assert "<th>left early</th>" in board
    left = dict(re.findall(r'<tr data-player="([^"]*)">.*?<td class="left-early">(\d+)</td>',
                           board))
    assert left["bob"] == "3" and left["ann"] == "0", left
    bob = requests.get(site + "player/bob", timeout=30).text
    assert "Left 3 rated games early" in bob
    ann = requests.get(site + "player/ann", timeout=30).text
    assert "Never left a rated game early" in ann
    bot = requests.get(site + "player/bot-medium", timeout=30).text
    assert "left a rated game" not in bot and "rated games early" not in bot


def test_a_name_two_people_played_under_asks_which_one(site: str) -> None:
    reply = requests.get(site + "api/players/sam", timeout=30)
    assert reply.status_code == 409 and reply.json()["candidates"] == list(SAMS)
    page = requests.get(site + "player/sam", timeout=30)
    assert page.status_code == 200 and "2 players have played here as sam" in page.text
    for fingerprint in SAMS:
        assert f'href="../player/{fingerprint}"' in page.text
        one = requests.get(site + f"player/{fingerprint}", timeout=30)
        assert one.status_code == 200 and "No rating yet" in one.text


@pytest.mark.parametrize(("path", "status", "words"), [
    ("leaderboard?game=chess", 400, "game must be one of"),
    ("leaderboard?limit=100000", 400, "limit must be from 1 to 200"),
    ("games?offset=x", 400, "offset must be a whole number"),
    ("player/nobody", 404, "Nobody called"),
    ("player/" + "n" * 3000, 404, "Nobody called"),
    ("game/12", 400, "not a game id"),
    ("game/" + "f" * 64, 404, "No game"),
    ("game/" + "f" * 64 + "/ws", 400, ""),
])
def test_bad_input_on_a_page_is_a_4xx_page_in_words(site: str, path: str, status: int,
                                                   words: str) -> None:
    reply = requests.get(site + path, timeout=30)
    assert reply.status_code == status, reply.text[:200]
    assert words in reply.text and "Traceback" not in reply.text

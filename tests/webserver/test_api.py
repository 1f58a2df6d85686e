"""The read-only JSON API: its OpenAPI document is what it serves (schemathesis sends it
requests made from the document, good and bad), a game's record from it verifies as
`stacks verify` checks a file, the leaderboard pages as the store ranks, a player's
games left early are counted, and bad input is a 4xx in words, never a 500."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings

from netplay.record import parse_record, verify_record
from ratings.store import Store
from stacks.commands.verify import run_verify
from tests.e2e.conftest import ROOT, stacks_command
from tests.support import free_port
from tests.webserver.site import database, leave_early, served
from webserver.api import openapi_document


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(the server's address, its database's URL)"""
    folder = tmp_path_factory.mktemp("api")
    url = database(folder)
    asyncio.run(leave_early(url, {"ann": 2}))
    with served(folder, url) as address:
        yield address, url


def get(site: tuple[str, str], path: str) -> requests.Response:
    return requests.get(site[0] + path, timeout=30)


schema = schemathesis.openapi.from_dict(openapi_document())


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_api_answers_as_its_openapi_document_says(case: Any,
                                                     site: tuple[str, str]) -> None:
    case.call_and_validate(base_url=site[0])


def test_the_document_served_is_the_one_checked(site: tuple[str, str]) -> None:
    reply = get(site, "/api/openapi.json")
    assert reply.status_code == 200
    assert reply.json() == openapi_document()
    assert set(reply.json()["paths"]) == {"/api/tables", "/api/players", "/api/players/{name}",
                                          "/api/games", "/api/games/{id}", "/api/openapi.json"}


def test_every_game_s_record_from_the_api_verifies(site: tuple[str, str],
                                                   tmp_path: Path) -> None:
    games = get(site, "/api/games?limit=200").json()
    assert games["total"] == 6 and len(games["games"]) == 6
    assert {g["game"] for g in games["games"]} == {"stacks", "sequence"}
    ended = [g["ended_at"] for g in games["games"]]
    assert ended == sorted(ended, reverse=True)  # newest first
    for game in games["games"]:
        reply = get(site, f"/api/games/{game['id']}")
        assert reply.status_code == 200
        verdict = verify_record(parse_record(reply.text))
        assert verdict.ok, verdict.detail
    # Saved as a file, `stacks verify` says so too.
    path = tmp_path / "game.json"
    path.write_text(get(site, f"/api/games/{games['games'][0]['id']}").text)
    assert run_verify(argparse.Namespace(record=str(path))) == 0


def test_the_leaderboard_pages_as_the_store_ranks(site: tuple[str, str]) -> None:
    async def ranked(kind: str) -> list[str]:
        store = await Store.open(site[1])
        try:
            return [s.fingerprint for s in await store.leaderboard(kind)]
        finally:
            await store.close()

    for kind in ("stacks", "sequence"):
        whole = asyncio.run(ranked(kind))
        paged: list[str] = []
        offset = 0
        while True:
            page = get(site, f"/api/players?game={kind}&offset={offset}&limit=2").json()
            assert page["total"] == len(whole) and page["game"] == kind
            assert [p["rank"] for p in page["players"]] == list(
                range(offset + 1, offset + 1 + len(page["players"])))
            paged += [p["fingerprint"] for p in page["players"]]
            offset += 2
            if offset >= page["total"]:
                break
        assert paged == whole


def test_a_player_has_a_rating_per_game_and_recent_games(site: tuple[str, str]) -> None:
    board = get(site, "/api/players").json()["players"]
    ann = next(p for p in board if p["name"] == "ann")
    for asked in ("ann", "ANN", ann["fingerprint"]):
        reply = get(site, f"/api/players/{asked}")
        if asked == "ANN":  # not an account: a player's name is matched as it is
            assert reply.status_code == 404
            continue
        player = reply.json()
        assert player["fingerprint"] == ann["fingerprint"]
        assert player["ratings"]["stacks"]["points"] == ann["points"]
        assert set(player["ratings"]) == {"stacks", "sequence"}
        assert len(player["games"]) == 6  # five Stacks games and the classic one
        assert all(len(g["id"]) == 64 for g in player["games"])


def test_the_games_a_player_left_early_are_counted(site: tuple[str, str]) -> None:
    for kind in ("stacks", "sequence"):
        board = get(site, f"/api/players?game={kind}").json()["players"]
        left = {p["name"]: p["left_early"] for p in board}
        assert left["ann"] == 2 and left["bob"] == 0, left
        assert not any(n for name, n in left.items() if name != "ann")
    assert get(site, "/api/players/ann").json()["left_early"] == 2
    assert get(site, "/api/players/bob").json()["left_early"] == 0


@pytest.mark.parametrize(("path", "status", "words"), [
    ("/api/games/" + "0" * 64, 404, "no game"),
    ("/api/games/xyz", 400, "not a game id"),
    ("/api/games/" + "a" * 5000, 400, "not a game id"),
    ("/api/players/nobody-here", 404, "no player called"),
    ("/api/players/" + "x" * 5000, 404, "no player called"),
    ("/api/players/%00%01", 404, "no player called"),
    ("/api/players?limit=0", 400, "limit must be from 1"),
    ("/api/players?limit=99999999999999999999", 400, "limit must be a whole number"),
    ("/api/players?offset=-1", 400, "offset must be a whole number"),
    ("/api/players?offset=1e3", 400, "offset must be a whole number"),
    ("/api/players?game=chess", 400, "game must be one of"),
    ("/api/games?game=%F0%9F%83%8F", 400, "game must be one of"),
    ("/api/nothing", 404, "Not Found"),
])
def test_bad_input_is_a_4xx_in_words(site: tuple[str, str], path: str, status: int,
                                     words: str) -> None:
    reply = get(site, path)
    assert reply.status_code == status, reply.text
    assert reply.headers["Content-Type"].startswith("application/json")
    said = reply.json()["error"]
    assert words in said and "Traceback" not in said


def test_a_method_the_api_has_not_is_405_with_allow(site: tuple[str, str]) -> None:
    reply = requests.post(site[0] + "/api/games", timeout=30)
    assert reply.status_code == 405 and "GET" in reply.headers["Allow"]
    assert json.loads(reply.text)["error"]


def test_stacks_web_with_a_database_it_can_t_open_says_so_and_exits_2(tmp_path: Path) -> None:
    port = free_port()
    done = subprocess.run(
        stacks_command("web", "--port", "0", "--broker", f"mqtt://127.0.0.1:{port}",
                       "--database", f"postgresql://nobody@127.0.0.1:{port}/none"),
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env=dict(os.environ, HOME=str(tmp_path)))
    assert done.returncode == 2, done
    assert done.stderr.startswith("stacks web: database postgresql://nobody@127.0.0.1"), done
    assert "Traceback" not in done.stderr

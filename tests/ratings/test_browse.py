"""Reading the database a page at a time (the web's pages and API), on SQLite and on
PostgreSQL: the leaderboard's pages are its ranking cut in pieces, each row with the
player's games left early, the recent games come newest first, and a name leads to the
identities it may mean."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import insert

from ratings.browse import game_line, identities_named, leaderboard_page, recent_games
from ratings.models import players
from ratings.moderation import ModerationStore
from ratings.store import Store

from .games import sequence_record, stacks_records

pytestmark = pytest.mark.asyncio


async def _filled(database: str) -> Store:
    store = await Store.open(database)
    for record in [*stacks_records(), sequence_record()]:
        await store.add_record(record)
    return store


async def test_pages_of_the_leaderboard_and_of_the_games(database: str) -> None:
    store = await _filled(database)
    try:
        for kind in ("stacks", "sequence"):
            whole = await store.leaderboard(kind)
            total, first = await leaderboard_page(store, kind, 0, 2)
            _, rest = await leaderboard_page(store, kind, 2, 100)
            assert total == len(whole)
            assert [(s.rank, s.fingerprint) for s in first + rest] == \
                [(s.rank, s.fingerprint) for s in whole]
        total, games = await recent_games(store, None, 0, 100)
        assert total == 6 and [g.ended_at for g in games] == sorted(
            (g.ended_at for g in games), reverse=True)
        total, classic = await recent_games(store, "sequence", 0, 100)
        assert total == 1 and classic[0].kind == "sequence" and len(classic[0].seats) == 4
        assert {s.team for s in classic[0].seats} == {0, 1}
        assert classic[0].winners and not classic[0].draw
        again = await game_line(store, classic[0].id)
        assert again == classic[0]
        assert await game_line(store, "0" * 64) is None
        _, none = await leaderboard_page(store, "stacks", 1_000_000, 200)
        assert none == []
    finally:
        await store.close()


async def test_each_row_of_the_leaderboard_counts_the_games_left_early(
        database: str) -> None:
    store = await _filled(database)
    try:
        whole = {s.name: s.fingerprint for s in await store.leaderboard()}
        ann, bob = whole["ann"], whole["bob"]
        mods = ModerationStore(store)
        await mods.note_abandons("t1", 1000.0, [(ann, "ann"), (bob, "bob")])
        await mods.note_abandons("t2", 2000.0, [(ann, "ann")])
        await mods.note_abandons("t2", 2000.0, [(ann, "ann")])  # the same game: once
        for kind in ("stacks", "sequence"):
            _, rows = await leaderboard_page(store, kind, 0, 100)
            left = {r.name: r.left_early for r in rows}
            assert left["ann"] == 2 and left["bob"] == 1
            assert all(n == 0 for name, n in left.items() if name not in ("ann", "bob"))
            assert {r.fingerprint: r.to_json()["left_early"] for r in rows}[ann] == 2
    finally:
        await store.close()


async def test_a_name_leads_to_the_identities_it_may_mean(database: str) -> None:
    store = await _filled(database)
    try:
        ann = next(s for s in await store.leaderboard() if s.name == "ann")
        assert await identities_named(store, "ann") == [ann.fingerprint]
        assert await identities_named(store, ann.fingerprint) == [ann.fingerprint]
        assert await identities_named(store, "Bot 4 (medium)") == ["bot-medium"]
        assert await identities_named(store, "x" * 500) == []
        # An account's name, in any case, is its identity, and its old name no longer is.
        await store.create_account("Annie", "SHA256:aaa", "ssh-aaaa", ann.fingerprint)
        assert await identities_named(store, "ANNIE") == [ann.fingerprint]
        assert await identities_named(store, "ann") == []
        # Two people who played under one name: both.
        async with store.engine.begin() as conn:
            await conn.execute(insert(players), [
                {"fingerprint": f, "name": "sam", "bot": False, "key": None,
                 "first_seen": time.time()}
                for f in ("aaaa-0000-0000-0001", "aaaa-0000-0000-0002")])
        assert await identities_named(store, "sam") == ["aaaa-0000-0000-0001",
                                                        "aaaa-0000-0000-0002"]
    finally:
        await store.close()

"""The ratings database, on SQLite and on PostgreSQL: games rated as OpenSkill computes
them, counted once, in the order they ended whatever order they are added in; refused
records change nothing; schema upgrades and a newer schema's refusal; accounts."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import text

from netplay.hosts import fingerprint
from ratings import schema
from ratings.results import RecordRefused, result_of
from ratings.store import Refused, Store

from .games import sequence_record, stacks_records

pytestmark = pytest.mark.asyncio


def expected_ratings(records: list[dict[str, Any]]) -> dict[str, tuple[float, float, int, int]]:
    """What the library computes, game by game in the order they ended: fingerprint →
    (mu, sigma, games, wins). Written out here, apart from ratings.compute."""
    model = PlackettLuce()
    skills: dict[str, tuple[float, float]] = {}
    counts: dict[str, list[int]] = {}
    for record in sorted(records, key=lambda r: (r["ended_at"], r["commit"].hex())):
        seats = []
        for seat, key in enumerate(record["keys"]):
            who = (fingerprint(key) if key is not None
                   else "bot-" + record["names"][seat].rsplit("(", 1)[1].rstrip(")"))
            seats.append(who)
        winner = record["outcome"]["winner"]
        teams = [[model.rating(mu=skills.get(w, (25.0, 25 / 3))[0],
                               sigma=skills.get(w, (25.0, 25 / 3))[1])] for w in seats]
        new = model.rate(teams, ranks=[1 if s == winner else 2 for s in range(len(seats))])
        after: dict[str, list[tuple[float, float]]] = {}
        for who, team in zip(seats, new, strict=True):
            after.setdefault(who, []).append((team[0].mu, team[0].sigma))
        for who, values in after.items():
            skills[who] = (sum(v[0] for v in values) / len(values),
                           sum(v[1] for v in values) / len(values))
            tally = counts.setdefault(who, [0, 0])
            tally[0] += 1
            tally[1] += any(seats[s] == who and s == winner for s in range(len(seats)))
    return {w: (*skills[w], *counts[w]) for w in skills}  # type: ignore[misc]


async def standings(store: Store, kind: str = "stacks") -> dict[str, tuple[float, float, int, int]]:
    return {s.fingerprint: (s.mu, s.sigma, s.games, s.wins)
            for s in await store.leaderboard(kind)}


def close(a: dict[str, tuple[float, float, int, int]],
          b: dict[str, tuple[float, float, int, int]]) -> bool:
    return a.keys() == b.keys() and all(
        a[k][2:] == b[k][2:] and abs(a[k][0] - b[k][0]) < 1e-9 and abs(a[k][1] - b[k][1]) < 1e-9
        for k in a)


async def test_a_fixed_set_of_games_gives_the_librarys_ratings(database: str) -> None:
    records = stacks_records()
    store = await Store.open(database)
    try:
        for record in records:
            assert not (await store.add_record(record)).already
        got = await standings(store)
        assert close(got, expected_ratings(records)), (got, expected_ratings(records))
        board = await store.leaderboard("stacks")
        ranked = [s.rating for s in board]
        assert ranked == sorted(ranked, reverse=True)
        assert {"bot-medium", "bot-easy"} <= {s.fingerprint for s in board}
        assert await store.leaderboard("sequence") == []
    finally:
        await store.close()


async def test_any_order_and_twice_changes_nothing(database: str) -> None:
    records = stacks_records()
    store = await Store.open(database)
    try:
        shuffled = records[::-1] + records[1:3]
        random.Random(4).shuffle(shuffled)
        shuffled.insert(0, records[-1])  # the last game first: the others come before it
        outcomes = [(await store.add_record(r)).already for r in shuffled]
        assert outcomes.count(False) == len(records)  # each game counted once
        assert close(await standings(store), expected_ratings(records))
        for record in records:  # and once more: nothing moves
            assert (await store.add_record(record)).already
        assert close(await standings(store), expected_ratings(records))
        # The history is the one of the games' order: ann's first game rates her from
        # scratch, each game starts from where the one before left her, newest first.
        ann = next(s.fingerprint for s in result_of(records[0]).seats if s.name == "ann")
        games = await store.games_of(ann)
        assert [g.id for g in games] == [r["commit"].hex() for r in records[::-1]]
        assert games[-1].before.mu == 25.0
        for older, newer in zip(games[1:], games, strict=False):
            assert newer.before == older.after
    finally:
        await store.close()


async def test_a_record_that_does_not_verify_is_refused_and_changes_nothing(
    database: str,
) -> None:
    good, *_ = stacks_records()
    bad = stacks_records()[1]
    bad["outcome"]["winner"] = (bad["outcome"]["winner"] + 1) % bad["players"]
    store = await Store.open(database)
    try:
        await store.add_record(good)
        before = await standings(store)
        with pytest.raises(RecordRefused, match="does not verify: the recorded outcome"):
            await store.add_record(bad)
        assert await standings(store) == before
        assert await store.game_ids() == {good["commit"].hex()}
    finally:
        await store.close()


async def test_classic_sequence_rates_teams(database: str) -> None:
    record = sequence_record()
    store = await Store.open(database)
    try:
        added = await store.add_record(record)
        game = added.game
        assert {s.team for s in game.seats} == {0, 1}
        board = {s.fingerprint: s for s in await store.leaderboard("sequence")}
        assert len(board) == 4  # two people, an easy and a medium bot
        for team in (0, 1):
            members = [board[s.fingerprint] for s in game.seats if s.team == team]
            assert len({round(m.mu, 9) for m in members}) == 1  # teammates move together
            won = game.winner == team
            assert all(m.mu > 25 for m in members) == won
            assert all(m.wins == int(won) for m in members)
        assert await store.leaderboard("stacks") == []
    finally:
        await store.close()


async def test_an_older_database_is_upgraded_and_says_so(database: str) -> None:
    old = await Store.open(database, target="0001")
    assert old.notice is None
    await old.close()
    store = await Store.open(database)
    try:
        assert store.notice == (f"upgraded the database from schema revision 0001 to "
                                f"{schema.head()}")
        await store.add_record(stacks_records()[0])
        assert len(await store.leaderboard()) == 3
    finally:
        await store.close()
    again = await Store.open(database)
    assert again.notice is None
    await again.close()


async def test_a_newer_database_is_refused_in_words(database: str) -> None:
    store = await Store.open(database)
    async with store.engine.begin() as conn:
        await conn.execute(text("UPDATE alembic_version SET version_num = '0999'"))
    await store.close()
    with pytest.raises(schema.SchemaTooNew, match=r"revision 0999, made by a newer stacks"):
        await Store.open(database)


async def test_accounts_names_and_keys(database: str) -> None:
    store = await Store.open(database)
    try:
        ann = await store.create_account("Ann", "SHA256:aaa", "ssh-aaaa", "1111-2222-3333-4444")
        assert (await store.account_for_key("SHA256:aaa")) == ann
        with pytest.raises(Refused, match="'ann' is taken"):
            await store.create_account("ann", "SHA256:bbb", "ssh-bbbb", "5555-6666-7777-8888")
        for bad, words in [("x" * 25, "at most 24"), ("a\x1bb", "control characters"),
                           ("", "empty"), ("1111-2222-3333-4444", "looks like an identity"),
                           ("bot-medium", "looks like an identity")]:
            with pytest.raises(Refused, match=words):
                await store.create_account(bad, "SHA256:bbb", "ssh-bbbb", "5555-6666-7777-8888")
        bob = await store.create_account("Bob", "SHA256:bbb", "ssh-bbbb", "5555-6666-7777-8888")
        with pytest.raises(Refused, match="another player's account"):
            await store.add_key(ann.id, "SHA256:bbb")
        ann = await store.add_key(ann.id, "SHA256:ccc")
        assert ann.keys == ("SHA256:aaa", "SHA256:ccc")
        assert (await store.account_for_key("SHA256:ccc")) == ann
        with pytest.raises(Refused, match="taken"):
            await store.rename(ann.id, "BOB")
        renamed = await store.rename(ann.id, "Annie")
        assert dataclasses.replace(ann, name="Annie") == renamed
        assert await store.delete_account("bob")
        assert await store.account_for_key("SHA256:bbb") is None
        assert bob not in await store.accounts()
    finally:
        await store.close()


async def test_an_accounts_name_is_on_the_leaderboard_and_the_card(database: str) -> None:
    record = stacks_records()[0]
    game = result_of(record)
    person = next(s for s in game.seats if not s.bot)
    store = await Store.open(database)
    try:
        await store.add_record(record)
        await store.create_account("Zed", "SHA256:zzz", "ssh-zzzz", person.fingerprint)
        board = await store.leaderboard()
        assert [s.name for s in board if s.fingerprint == person.fingerprint] == ["Zed"]
        card = await store.card(person.fingerprint)
        assert card is not None and card.name == "Zed"
        assert card.kinds["stacks"].games == 1
        assert sorted(card.favourites) == [("Bot (medium)", 1), ("bob", 1)]
        stored = await store.record(game.id)
        assert stored is not None and stored["commit"] == record["commit"]
    finally:
        await store.close()


async def test_a_new_database_opened_by_several_at_once_is_made_once(
    database: str, tmp_path: Any,
) -> None:
    """A server's start-up drain and every login at the same moment, on a database that
    has no tables yet: each gets the one store, and it works (it hung on PostgreSQL, two
    Alembic migrations at once sharing one proxy)."""
    import asyncio

    from ratings.archive import Archive

    archive = Archive(database, tmp_path / "pending")
    try:
        handles = await asyncio.wait_for(
            asyncio.gather(*(archive.store_handle() for _ in range(4))), 60)
        assert len({id(h) for h in handles}) == 1
        assert (await handles[0].add_record(stacks_records()[0])).already is False
    finally:
        await archive.close()
    stores = await asyncio.wait_for(asyncio.gather(*(Store.open(database) for _ in range(3))),
                                    60)
    try:
        assert [len(await s.game_ids()) for s in stores] == [1, 1, 1]
    finally:
        for store in stores:
            await store.close()


async def test_a_reader_does_not_wait_for_a_writer_on_sqlite(tmp_path: Any) -> None:
    """While another process holds SQLite's write lock (a game being stored), the
    leaderboard, a player's card and logins still read what is committed, at once: a read
    takes no write lock (it waited out the busy timeout, 30 s, then failed)."""
    import asyncio
    import sqlite3

    path = tmp_path / "ratings.sqlite"
    store = await Store.open(f"sqlite:///{path}")
    try:
        await store.add_record(stacks_records()[0])
        ann = await store.create_account("Ann", "SHA256:aaa", "ssh-aaaa", "1111-2222-3333-4444")
        writer = sqlite3.connect(path, isolation_level=None)
        writer.execute("BEGIN IMMEDIATE")
        writer.execute("UPDATE accounts SET name = 'Zed', name_key = 'zed'")
        reads = asyncio.ensure_future(asyncio.gather(
            store.leaderboard("stacks"), store.account_for_key("SHA256:aaa"), store.game_ids()))
        try:
            done, _ = await asyncio.wait([reads], timeout=20)
        finally:  # the writer lets go either way, so that the reads end, never cancelled
            writer.execute("ROLLBACK")
            writer.close()
        board, account, games = await reads
        assert done, "the reads waited for the writer's lock"
        assert board and len(games) == 1
        assert account == ann  # what is committed, not the writer's change in flight
        # Writers still take the lock before they read: a write after it works as before.
        assert (await store.rename(ann.id, "Annie")).name == "Annie"
    finally:
        await store.close()

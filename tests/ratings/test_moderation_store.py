"""Moderation's records: mutes and bans by account or key, for a time or for good, lifted;
renames that keep the sanctions; every action in the audit log; reports; games left
early counted against the games played; on SQLite and PostgreSQL."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ratings.moderation import ModerationStore, span_words
from ratings.store import Refused, Store


async def _store(database: str) -> tuple[Store, ModerationStore]:
    store = await Store.open(database)
    await store.create_account("Ann", "SHA256:aaa", "ssh-aaaa", "1111-2222-3333-4444")
    await store.create_account("Bob", "SHA256:bbb", "ssh-bbbb", "5555-6666-7777-8888")
    return store, ModerationStore(store)


@pytest.mark.asyncio
async def test_a_mute_lasts_its_time_and_a_ban_for_good_until_lifted(database: str) -> None:
    store, mod = await _store(database)
    try:
        mute = await mod.sanction("mute", "bob", "Ann", "shouting", 600)
        assert mute.target == "Bob" and mute.until is not None
        ban = await mod.sanction("ban", "SHA256:ccc", "Ann", "spam bot", None)
        assert ban.ssh_fingerprint == "SHA256:ccc" and ban.until is None
        live = await mod.in_force()
        assert {(s.kind, s.target) for s in live} == {("mute", "Bob"), ("ban", "SHA256:ccc")}
        # Past its time the mute is over by itself; the ban is not.
        later = await mod.in_force(time.time() + 601)
        assert [(s.kind, s.target) for s in later] == [("ban", "SHA256:ccc")]
        assert await mod.lift("ban", "SHA256:ccc", "Ann", "appealed") == 1
        with pytest.raises(Refused, match="not banned"):
            await mod.lift("ban", "SHA256:ccc", "Ann", "")
        with pytest.raises(Refused, match="no account named"):
            await mod.sanction("mute", "nobody", "Ann", "", None)
        # A renamed account stays muted: the mute is the account's, not its name's.
        await mod.rename("Bob", "Robert", "Ann", "offensive name")
        assert [s.account_id for s in await mod.in_force() if s.kind == "mute"] == \
            [mute.account_id]
        with pytest.raises(Refused, match="taken"):
            await mod.rename("Robert", "ann", "Ann", "")
        actions = [(e.action, e.target, e.reason) for e in await mod.audit()]
        assert actions == [("rename", "Bob", "offensive name"), ("unban", "SHA256:ccc",
                           "appealed"), ("ban", "SHA256:ccc", "spam bot"),
                           ("mute", "Bob", "shouting")]
        assert "Ann: rename Bob (now Robert) — offensive name" in (await mod.audit())[0].line()
        newer = await mod.audit(after=(await mod.audit())[-1].id)
        assert [e.action for e in newer] == ["ban", "unban", "rename"]  # oldest first
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_reports_wait_in_the_list_until_handled(database: str) -> None:
    store, mod = await _store(database)
    try:
        first = await mod.report("Ann", "Bob", "friday", "Bob: rude words", "insults")
        await mod.report("Bob", "Ann", "friday", "", "leaves every game")
        assert [r.target for r in await mod.reports()] == ["Ann", "Bob"]
        assert "Ann reports Bob at friday said 'Bob: rude words': insults" in \
            (await mod.reports())[1].words()
        await mod.handle_report(first, "Cat", "warned")
        assert [r.target for r in await mod.reports()] == ["Ann"]
        assert len(await mod.reports(handled=True)) == 2
        with pytest.raises(Refused):
            await mod.handle_report(first, "Cat", "")
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_moderators_are_named_in_the_database(database: str) -> None:
    store, mod = await _store(database)
    try:
        ann = await mod.set_moderator("ann", "console", on=True)
        assert await mod.moderators() == {ann.id}
        await mod.set_moderator("Ann", "console", on=False)
        assert await mod.moderators() == set()
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_games_left_early_count_once_each(database: str) -> None:
    store, mod = await _store(database)
    try:
        await mod.note_abandons("t1", 100.0, [("1111-2222-3333-4444", "Ann")])
        await mod.note_abandons("t1", 100.0, [("1111-2222-3333-4444", "Ann")])
        await mod.note_abandons("t2", 200.0, [("1111-2222-3333-4444", "Ann")])
        counts = await mod.abandonment(["1111-2222-3333-4444", "5555-6666-7777-8888"])
        assert counts["1111-2222-3333-4444"].left == 2
        assert counts["5555-6666-7777-8888"].left == 0
        assert "left 2 of 2 games" in counts["1111-2222-3333-4444"].words()
    finally:
        await store.close()


def test_spans_read_in_round_words() -> None:
    assert span_words(600) == "10 minutes"
    assert span_words(7200) == "2 hours"
    assert span_words(86400) == "1 day"
    assert span_words(5) == "5 seconds"


def test_the_leaderboard_shows_the_games_each_player_left_early(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    import argparse
    import asyncio
    import json

    from stacks.commands.ratings import run

    from .games import stacks_records

    url = f"sqlite:///{tmp_path / 'board.sqlite'}"

    async def fill() -> str:
        store = await Store.open(url)
        try:
            for record in stacks_records():
                await store.add_record(record)
            human = next(s for s in await store.leaderboard() if not s.bot)
            await ModerationStore(store).note_abandons("t1", 1.0, [(human.fingerprint, "x")])
            return human.fingerprint
        finally:
            await store.close()

    leaver = asyncio.run(fill())
    args = argparse.Namespace(database=url, game="stacks", json=False, limit=None,
                              ratings_action=None)
    assert run(args) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[-1] == "left"
    [row] = [line for line in table if leaver in line]
    assert row.split()[-1] == "1"
    assert all(line.split()[-1] == "0" for line in table[1:] if "bot-" in line)
    assert "left: games left before their end" in "\n".join(table)
    assert run(argparse.Namespace(**{**vars(args), "json": True})) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert {p["fingerprint"]: p["left_early"] for p in players}[leaver] == 1

"""A bot that plays as a peer of its own (a held table's bot added with Ctrl+B, a seat
filled with a bot) has a key of its table's: every table and rematch another. Its games
are rated as its level, one identity per level, marked a bot; and a player's name on the
leaderboard is the one they signed, whoever adds their games."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from netplay.hosts import fingerprint
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.record import verify_record
from ratings.archive import Archive
from ratings.results import result_of
from ratings.store import Store
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tests.netplay.harness import SHORT, Table, identity_for
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT


def _with_bot_peer(seed: int, level: str, name: str = "ann") -> dict[str, Any]:
    """A game of ann (under ``name``) against a bot peer whose key is this table's own."""
    table = Table(2, seed=seed, join=False, rules=SHORT)
    table.add_player(name, identity=identity_for(0, "ann"))
    bot = table.add_player("Bot 2", identity=identity_for(seed, "table-bot"), start=False)
    bot.bot_level = level
    bot.start(table.clock)
    table.pump()
    table.run_to_end()
    record = table.host.record()
    record["ended_at"] = time.time()
    return record


@pytest.mark.asyncio
async def test_a_bot_peer_is_rated_as_its_level_whatever_its_key(tmp_path: Path) -> None:
    records = [_with_bot_peer(seed, "greedy") for seed in (101, 102)]
    assert records[0]["keys"][1] != records[1]["keys"][1]
    for record in records:
        assert verify_record(record).ok, verify_record(record).detail
    store = await Store.open(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        for record in records:
            await store.add_record(record)
        board = await store.leaderboard("stacks")
    finally:
        await store.close()
    bots = [s for s in board if s.name.startswith("Bot")]
    assert [(s.fingerprint, s.bot, s.games) for s in bots] == [("bot-greedy", True, 2)], board
    assert {s.name for s in board} == {"ann", "Bot (greedy)"}


@pytest.mark.asyncio
async def test_only_a_signed_name_renames_a_player(tmp_path: Path) -> None:
    first, second = (_with_bot_peer(seed, "greedy") for seed in (103, 104))
    second["names"][0] = "ALICE THE GREAT"
    assert not verify_record(second).ok
    del second["joins"]  # now its names are nobody's word: the game is rated, not renamed
    result = result_of(second)
    assert result.seats[0].name == result.seats[0].fingerprint
    store = await Store.open(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        await store.add_record(first)
        await store.add_record(second)
        names = {s.fingerprint: s.name for s in await store.leaderboard("stacks")}
    finally:
        await store.close()
    assert names[result.seats[0].fingerprint] == "ann"


@pytest.mark.asyncio
async def test_a_held_tables_filled_bot_is_one_identity_across_tables(tmp_path: Path) -> None:
    """Two tables of the server, a seat of each filled with its bot (Ctrl+B): one row,
    ``bot-greedy``, a bot, two games; the player who sat with it under their own name."""
    broker = AsyncMemoryBroker()
    archive = Archive(f"sqlite:///{tmp_path / 'r.sqlite'}", tmp_path / "pending")

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(linger=0.1, verify_wait=0.5),
                         say=lambda _: None,
                         record_path=lambda t, game: tmp_path / f"{t}.json", archive=archive)
    alice = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")
    me = identity_for(0, "alice")
    try:
        for name in ("duel", "again"):
            opened = await keeper.handle(alice, {
                "op": "open", "table": name, "players": 2, "block_window": 0.2,
                "bot_delay": 0, "rules": {"win_chips": 3, "win_min_each_colour": 1}})
            assert opened["ok"], opened
            table = keeper.tables[name]
            async with BotPeer(me, name, broker=broker, name="alice"):
                await wait_until_async(
                    lambda: any(info is not None and info.key == me.key
                                for info in table.host.host.seats),  # noqa: B023
                    "alice seated", interval=0.05)
                filled = await keeper.handle(alice, {"op": "fill", "table": name})
                assert filled == {"ok": True, "bots": 1}, filled
                await asyncio.wait_for(table.ended.wait(), 10 * TIMEOUT)
    finally:
        await keeper.stop()
        await archive.close()
    store = await Store.open(archive.url)
    try:
        board = await store.leaderboard()
    finally:
        await store.close()
    assert sorted((s.name, s.fingerprint, s.bot, s.games) for s in board) == [
        ("Bot (greedy)", "bot-greedy", True, 2),
        ("alice", fingerprint(me.key), False, 2)], board


@pytest.mark.asyncio
async def test_a_player_is_named_by_their_newest_game_whatever_order_games_come_in(
        tmp_path: Path) -> None:
    older, newer = _with_bot_peer(105, "greedy", "ann"), _with_bot_peer(106, "greedy", "Ann B")
    older["ended_at"], newer["ended_at"] = time.time() - 5, time.time()
    store = await Store.open(f"sqlite:///{tmp_path / 'r.sqlite'}")
    try:
        await store.add_record(newer)
        await store.add_record(older)  # added last, ended first: it renames nobody
        names = {s.name for s in await store.leaderboard("stacks")}
    finally:
        await store.close()
    assert "Ann B" in names and "ann" not in names, names

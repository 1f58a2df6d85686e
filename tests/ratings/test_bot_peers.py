"""A bot that plays as a peer of its own (a held table's bot added with Ctrl+B, a seat
filled with a bot) has a key of its table's: every table and rematch another. Its games
are rated as its level, one identity per level, marked a bot; and a player's name on the
leaderboard is the one they signed, whoever adds their games."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from netplay.identity import Identity
from netplay.peers import BotPeer
from netplay.record import verify_record
from ratings.results import result_of
from ratings.store import Store
from tests.netplay.harness import SHORT, Table, identity_for

def _with_bot_peer(seed: int, level: str) -> dict[str, Any]:
    """A game of ann against a bot peer whose key is this table's own."""
    table = Table(2, seed=seed, join=False, rules=SHORT)
    table.add_player("ann", identity=identity_for(0, "ann"))
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


def test_a_bot_peer_says_it_is_a_bot_when_it_joins() -> None:
    bot = BotPeer(Identity.generate(), "t", broker="memory", strategy="hard")
    assert bot.player.bot_level == "hard"

"""Engines registered by the server's operator (``stacks serve --engine NAME=CMD``): the
sessions are told their names, a table's creator seats one as an opponent, and it plays
to the end as a peer of its own; a name the server does not offer is refused in words."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.record import read_record
from sshserver.options import _engine
from tests.sshserver.test_tables import ALICE, _keeper
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT
from tui.serve_link import ENGINES_ENV, ServeLink

MINIMAL = Path(__file__).parents[2] / "examples" / "engines" / "minimal.py"


@pytest.mark.asyncio
async def test_the_creator_seats_a_registered_engine_and_it_plays_to_the_end(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    engines = (("mini", (sys.executable, str(MINIMAL))),)
    keeper = _keeper(broker, tmp_path, engines=engines, linger=0.5, verify_wait=0.5)
    try:
        assert await keeper.check_engines() == [
            "engine mini offered: minimal-py, protocol 1, plays stacks, sequence"]
        listed = await keeper.handle(ALICE, {"op": "engines"})
        assert listed == {"ok": True, "engines": ["mini"]}
        refused = await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2,
                                              "engines": ["stockfish"]})
        assert refused["error"] == "this server has no engine 'stockfish' (it offers mini)"
        full = await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2,
                                           "bots": 1, "engines": ["mini"]})
        assert "leave no seat for you" in full["error"]
        reply = await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2,
                                            "engines": ["mini"], "block_window": 0.2,
                                            "bot_delay": 0})
        assert reply["ok"], reply
        table = keeper.tables["duel"]
        assert table.engines == ["mini"]
        info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
        assert info["settings"]["engines"] == ["mini"]  # the creator's rematch seats it too
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            await asyncio.wait_for(table.ended.wait(), 30 * TIMEOUT)
        assert table.why == "its game is over"
        record = read_record(tmp_path / "duel.json")
        assert "mini" in record["names"]
        assert all(v["ok"] for v in record["verdicts"].values()) and len(record["verdicts"]) == 2
    finally:
        await keeper.stop()


def test_the_operator_s_engines_reach_the_sessions_by_name() -> None:
    assert _engine("mini=python3 'my bot.py'") == ("mini", ("python3", "my bot.py"))
    link = ServeLink.from_env({"STACKS_SERVE_LINK": "0", ENGINES_ENV: "mini,deep"})
    assert link is not None and link.engines == ("mini", "deep")


@pytest.mark.asyncio
async def test_a_restarted_server_takes_its_engine_back_into_its_seat(tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    journals = tmp_path / "journals"
    engines = (("mini", (sys.executable, str(MINIMAL))),)
    first = _keeper(broker, tmp_path, journals=journals, engines=engines, verify_wait=2.0,
                    linger=0.2)
    duplicate = await first.handle(ALICE, {"op": "open", "table": "rerun", "players": 3,
                                           "engines": ["mini", "mini"]})
    assert duplicate["error"] == "an engine takes one seat of a table"
    await first.handle(ALICE, {"op": "open", "table": "rerun", "players": 2,
                               "engines": ["mini"], "block_window": 0.2, "bot_delay": 0.05})
    table = first.tables["rerun"]
    alice = BotPeer(Identity.generate(), "rerun", broker=broker, name="alice", think=0.05)
    async with alice:
        await wait_until_async(lambda: len(table.host.host.batches) >= 4, "a few batches")
        await first.stop()  # mid-game: the table is kept, its engine stopped
        played = len(table.host.host.batches)
        second = _keeper(broker, tmp_path, journals=journals, engines=engines,
                         verify_wait=2.0, linger=0.2)
        try:
            assert await second.resume_all() == ["rerun"]
            back = second.tables["rerun"]
            assert back.engines == ["mini"]
            await asyncio.wait_for(back.ended.wait(), 30 * TIMEOUT)
            assert back.why == "its game is over"
            # The engine played its own seat after the restart: no stand-in was needed.
            assert not any(batch.standin for batch in back.host.host.batches[played:])
        finally:
            await second.stop()

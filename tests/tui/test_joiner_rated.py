"""A game joined at another machine's table counts on the joiner's machine too: the
interface writes its seat's record and adds it to this machine's ratings; the host's
record of the same game, added after, changes nothing (the game counts once)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.journal import data_dir, records_dir
from netplay.memory import AsyncMemoryBroker
from netplay.record import SEAT_FORMAT, read_record
from ratings.local import local_database
from ratings.store import Store
from tests.netplay.harness import SHORT
from tests.tui.conftest import until
from tests.tui.driver import play_to_the_end
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.gameover import GameOverScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


async def test_a_joined_game_is_rated_here_once(stacks_home: Path, tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), block_window=0.2,
                            rules=SHORT)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    host_record = tmp_path / "host-machine" / "friday.json"
    async with app.run_test(size=(80, 24)) as pilot, \
            Host(settings, broker=broker, record_path=host_record) as host:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
        await play_to_the_end(app, pilot)
        screen = app.screen
        assert isinstance(screen, GameOverScreen)
        await until(pilot, lambda: bool(screen.rated), "the ratings line")
        assert screen.rated == "Rated: the game is in this machine's ratings (Rankings, k)."
        assert Path(screen.record).parent == records_dir()
        await host.finished(verify_wait=5)
    assert Path(os.environ["STACKS_HOME"]) / "data" == data_dir()
    mine = read_record(Path(screen.record))
    assert mine["format"] == SEAT_FORMAT and mine["seat"] == 0
    theirs = read_record(host_record)
    assert theirs["commit"] == mine["commit"]

    store = await Store.open(local_database())
    try:
        assert (await store.add_record(theirs)).already  # the host's record: the same game
        assert await store.game_ids() == {mine["commit"].hex()}
        board = await store.leaderboard()
        assert sorted((s.name, s.games) for s in board) == [("Bo", 1), ("Bot (medium)", 1)]
    finally:
        await store.close()

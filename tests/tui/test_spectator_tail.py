"""A table hosted in the interface with a spectator delay, on a real Mosquitto with a
real `stacks watch --headless`: leaving after the game asks whether to wait for the
spectators or close now, and either way the spectator sees every batch once, the outcome
and the deal check (waiting: at its pace, the last batch at least the delay after the
game over; closing now: at once). A spectator in the interface is told how far behind
the players it is."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import Spectator
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from stacks.commands.peer import EXIT_CLOSED, follow
from tests.e2e.conftest import mosquitto  # noqa: F401  (a fixture)
from tests.e2e.timed import Timed, spectator_saw_every_batch_once
from tests.netplay.harness import SHORT
from tests.support import SCALE, wait_until_async
from tests.tui.conftest import TIMEOUT, until
from tests.tui.driver import play_to_the_end
from tui.app import StacksApp, make_app
from tui.launch import Launch
from tui.screens.choice import ChoiceScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio

SLACK = 0.2
ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")


def _hosting(url: str, table: str, delay: float, record: Path) -> Launch:
    return Launch(role="host", table=table, name="Ana", broker=url, players=2, bots=1,
                  bot_delay=0.0, block_window=0.2, rules=SHORT, turn_clock=0.0,
                  spectator_delay=delay, record=record, advertise=False)


async def _game_over(app: StacksApp) -> float:
    """When the table this app hosts published its game's last batch, by the host's own
    clock (the loop's, ``time.monotonic``): what the spectator delay counts from. (Polling
    for the end and taking the time then came up to tenths of a second late on a loaded
    machine, and the delay measured short.)"""
    while True:
        session = app.control.session
        host = session.host if session is not None else None
        if host is not None and host.host.over:
            return host.host.repair.sent_at[len(host.host.batches)]
        await asyncio.sleep(0.005)  # a close watch that takes the moment, not a wait


async def _finished(proc: Timed) -> int:
    """The program's exit status, waited for off the loop (the host runs on it)."""
    return await asyncio.to_thread(proc.finish, 10 * TIMEOUT)


async def test_leaving_the_interface_host_after_the_game_can_wait_for_its_spectators(
    stacks_home: Path, tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    delay = 3.0
    record = tmp_path / "tvui.json"
    app = make_app(_hosting(mosquitto, "tvui", delay, record), profiles=stacks_home)
    app.from_table = False  # a table hosted from the menu: leaving it goes back there
    watcher = Timed(tmp_path, "watch", "tvui", "--headless", "--broker", mosquitto,
                    "--profile", "watcher")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            ended = asyncio.create_task(_game_over(app))
            await play_to_the_end(app, pilot)
            over = await ended
            await pilot.press("m")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            question = app.screen
            assert isinstance(question, ChoiceScreen)
            assert "behind the players" in question.question
            assert "Wait for them" in question.answers[0].label
            await pilot.press("1")
            await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
            assert await _finished(watcher) == 0, watcher.text()
            await until(pilot, lambda: app.control._closing is None
                        or app.control._closing.is_finished, "the table to close",
                        timeout=10 * TIMEOUT)
        last = spectator_saw_every_batch_once(watcher, record)
        assert last - over >= delay - SLACK, (last - over, watcher.text())
    finally:
        watcher.stop()


async def test_quitting_the_interface_host_can_close_now_and_spectators_get_the_rest(
    stacks_home: Path, tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    delay = 8.0
    record = tmp_path / "rushui.json"
    app = make_app(_hosting(mosquitto, "rushui", delay, record), profiles=stacks_home)
    watcher = Timed(tmp_path, "watch", "rushui", "--headless", "--broker", mosquitto,
                    "--profile", "watcher")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            ended = asyncio.create_task(_game_over(app))
            await play_to_the_end(app, pilot)
            over = await ended
            assert isinstance(app.screen, GameOverScreen)
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            await pilot.press("2")  # close now
            await until(pilot, lambda: not app.is_running, "the app to quit")
        assert await _finished(watcher) == 0, watcher.text()
        last = spectator_saw_every_batch_once(watcher, record)
        assert last - over < delay, "the spectator was not given the rest at once"
    finally:
        watcher.stop()


async def test_a_spectator_in_the_interface_is_told_how_far_behind_it_is(
    stacks_home: Path, tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    app = make_app(Launch(role="watch", table="behind", name="Bo", broker=mosquitto),
                   profiles=stacks_home)
    host: Timed | None = None
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            # The spectator is there first: it learns of the delay in the lobby.
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            host = Timed(tmp_path, "host", "--headless", "--players", "2", "--bots", "2",
                         "--bot-delay", "0.3", "--table", "behind", "--broker", mosquitto,
                         "--profile", "host", "--record", str(tmp_path / "behind.json"),
                         "--block-window", "0.3", "--spectator-delay", "2",
                         "--rule", "win_chips=3", "--rule", "win_min_each_colour=1")
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game",
                        timeout=5 * TIMEOUT)
            table = app.screen
            assert isinstance(table, TableScreen)
            await until(pilot, lambda: table.waiting.startswith("2 s behind the players"),
                        "the words on the delay")
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the end",
                        timeout=10 * TIMEOUT)
        assert await _finished(host) == 0, host.text()
    finally:
        if host is not None:
            host.stop()


def _keeper(url: str, tmp_path: Path) -> tuple[TableKeeper, list[str]]:
    async def where() -> str:
        return url

    news: list[str] = []
    keeper = TableKeeper(where, settings=KeeperSettings(linger=0.2, verify_wait=2.0),
                         say=news.append,
                         record_path=lambda table, game: tmp_path / f"{table}.json")
    return keeper, news


async def test_a_table_held_by_the_server_stays_until_its_spectators_have_seen_the_end(
    tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    delay = 2.5
    keeper, news = _keeper(mosquitto, tmp_path)
    request = {"op": "open", "table": "held", "players": 2, "bots": 1, "block_window": 0.3,
               "bot_delay": 0, "spectator_delay": delay, "turn_clock": 0,
               "rules": SHORT.to_wire()}
    watcher = bot = None
    try:
        assert (await keeper.handle(ALICE, request))["ok"]
        table = keeper.tables["held"]
        watcher = Timed(tmp_path, "watch", "held", "--headless", "--broker", mosquitto,
                        "--profile", "watcher")
        bot = Timed(tmp_path, "bot", "held", "--broker", mosquitto, "--think", "0.05",
                    "--profile", "bot")
        over = await asyncio.to_thread(bot.said, "game over:")
        assert await _finished(watcher) == 0, watcher.text()
        await asyncio.wait_for(table.ended.wait(), 10 * TIMEOUT)
        assert table.why == "its game is over"
        last = spectator_saw_every_batch_once(watcher, tmp_path / "held.json")
        assert last - over >= delay - SLACK, (last - over, watcher.text())
        assert "closed" not in "\n".join(line for _, line in watcher.err), watcher.text()
        await wait_until_async(lambda: "table held closed: its game is over" in news,
                               "the table's closing words", 10 * TIMEOUT / SCALE,
                               interval=0.05, diagnostics=lambda: f"what it said: {news}")
    finally:
        await keeper.stop()
        for proc in (watcher, bot):
            if proc is not None:
                proc.stop()


async def test_a_rematch_at_a_held_table_gives_the_last_games_spectators_its_end_first(
    tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    delay = 30.0
    keeper, _ = _keeper(mosquitto, tmp_path)
    request = {"op": "open", "table": "again", "players": 2, "bots": 1, "block_window": 0.3,
               "bot_delay": 0, "spectator_delay": delay, "turn_clock": 0,
               "rules": SHORT.to_wire()}
    watcher = bot = None
    try:
        assert (await keeper.handle(ALICE, request))["ok"]
        first = keeper.tables["again"]
        watcher = Timed(tmp_path, "watch", "again", "--headless", "--broker", mosquitto,
                        "--profile", "watcher")
        bot = Timed(tmp_path, "bot", "again", "--broker", mosquitto, "--think", "0.05",
                    "--profile", "bot")
        await asyncio.to_thread(bot.said, "game over:")
        assert first.host.host.catching_up  # 30 s: its spectators are far behind
        assert (await keeper.handle(ALICE, request))["ok"]  # the next game, now
        assert first.why == "its creator started the next game"
        assert await _finished(watcher) == 0, watcher.text()  # the end came at once
        spectator_saw_every_batch_once(watcher, tmp_path / "again.json")
        second = keeper.tables["again"]
        assert second is not first and second.host.host.game is None
    finally:
        await keeper.stop()
        for proc in (watcher, bot):
            if proc is not None:
                proc.stop()


async def test_playing_again_can_wait_for_the_spectators_of_the_last_game(
    stacks_home: Path, tmp_path: Path, mosquitto: str,  # noqa: F811
) -> None:
    delay = 3.0
    record = tmp_path / "twice.json"
    app = make_app(_hosting(mosquitto, "twice", delay, record), profiles=stacks_home)
    watcher = Timed(tmp_path, "watch", "twice", "--headless", "--broker", mosquitto,
                    "--profile", "watcher")
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
            first = app.screen
            ended = asyncio.create_task(_game_over(app))
            await play_to_the_end(app, pilot)
            over = await ended
            await pilot.press("r")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
            await pilot.press("1")  # wait for them

            async def next_game() -> float:
                while not isinstance(app.screen, TableScreen) or app.screen is first:
                    await asyncio.sleep(0.005)  # a close watch that takes the moment
                return time.monotonic()

            opened = asyncio.create_task(next_game())
            assert await _finished(watcher) == 0, watcher.text()
            await until(pilot, opened.done, "the next game", timeout=10 * TIMEOUT)
        last = spectator_saw_every_batch_once(watcher, record)
        assert last - over >= delay - SLACK, (last - over, watcher.text())
        # The next game started only once the last one's spectators had seen its end.
        assert opened.result() > last
    finally:
        watcher.stop()


@pytest.mark.parametrize("ended", [False, True])
async def test_a_spectator_says_whether_the_host_closed_before_or_after_the_game_ended(
    capsys: pytest.CaptureFixture[str], ended: bool,
) -> None:
    """A host that closes without releasing what it held (an older one, or one whose last
    frames were lost) leaves its delayed spectator before the end: the spectator's words
    say whether the game had ended for the players."""
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="old", players=2, bots=("greedy", "greedy"),
                            block_window=0.2, rules=SHORT, spectator_delay=60.0,
                            bot_delay=0.0 if ended else 1.0)
    host = Host(settings, broker=broker)
    await host.__aenter__()
    host.host.release_all = lambda: None  # type: ignore[method-assign]
    watcher = Spectator(Identity.generate(), "old", "watcher", broker=broker)
    async with watcher:
        followed = asyncio.create_task(
            follow(watcher, "stacks watch old", "old", 60.0, lambda notice: None))
        await wait_until_async(lambda: watcher.player.joined and (not ended or host.host.over),
                               "the spectator joined" + (" and the game over" if ended else ""),
                               TIMEOUT / SCALE, interval=0.01)
        assert not host.host.over or ended
        await host.close()
        assert await asyncio.wait_for(followed, TIMEOUT) == EXIT_CLOSED
    said = capsys.readouterr().err
    if ended:
        assert "the host closed table 'old' after its game ended, before this peer had " \
               "seen the end" in said, said
    else:
        assert "the host closed table 'old' before the game ended" in said, said

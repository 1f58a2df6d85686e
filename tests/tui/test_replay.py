"""Replays: from a record file, from the menu's recent records, from the game-over screen."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from engine.cards import HIDDEN
from engine.events import GameOver, TurnStarted
from netplay.record import write_record
from tests.netplay.harness import SHORT, Table
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.follow import Following
from tui.model import TableModel
from tui.replay import ReplayError, replay_file, replay_game
from tui.screens.choice import ChoiceScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.replay import ReplayScreen

pytestmark = pytest.mark.asyncio


def _finished(seed: int = 51) -> Table:
    table = Table(3, seed=seed, rules=SHORT)
    table.run_to_end()
    return table


async def test_a_record_replays_event_by_event_and_turn_by_turn(tmp_path: Path) -> None:
    table = _finished()
    path = tmp_path / "game.json"
    write_record(path, table.host.record())
    replay = replay_file(path)
    assert replay.every_hand
    final = replay.moments[-1].state
    assert final.outcome == table.state.outcome and final.hands == table.state.hands
    assert isinstance(replay.moments[-1].event, GameOver)
    first_turn = replay.next_turn(0)
    assert isinstance(replay.moments[first_turn].event, TurnStarted)
    assert replay.previous_turn(first_turn) == 0
    # One seat's view hides the others' hands, as that seat saw them.
    seen = replay.view(first_turn, 1)
    assert HIDDEN in seen.hands[0] and HIDDEN not in seen.hands[1]


async def test_a_broken_record_is_refused_in_words(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "sequence-stacks-record", "players": 3}')
    with pytest.raises(ReplayError, match="malformed"):
        replay_file(path)
    path.write_text("not json")
    with pytest.raises(ReplayError, match="can't read"):
        replay_file(path)


async def test_the_menu_lists_recent_records_and_opens_one(
    stacks_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from netplay.journal import records_dir

    folder = records_dir()
    write_record(folder / "friday-20261201-080000.json", _finished().host.record())
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the records")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        await pilot.press("end")
        await pilot.pause()
        status = plain(screen.query_one("#replay-status").render())
        assert f"event {screen.replay.last}/{screen.replay.last}" in status
        await pilot.press("home", "right_square_bracket")
        await pilot.pause()
        assert "turn 1" in plain(screen.query_one("#replay-status").render())
        await pilot.press("v")
        assert "'s view" in plain(screen.query_one("#replay-status").render())
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ReplayScreen), "back")


async def test_v_at_game_over_replays_the_game_with_every_hand(stacks_home: Path) -> None:
    table = _finished(52)
    me = table.players[0]
    assert me.secret is not None and me.facts is not None
    replay = replay_game(me.facts, me.names, me.received, me.audience, me.secret)
    assert replay.every_hand and replay.moments[-1].state.hands == table.state.hands
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        control = app.control
        model = TableModel(table="t1", me=me.seat, names=me.names, view=me.view, players=3)
        control.following = Following(control, model)
        control.session = SimpleNamespace(player=SimpleNamespace(player=me))  # type: ignore[assignment]
        await control.show(GameOverScreen(model, hosting=False))
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.replay.every_hand
        assert "every hand" in plain(screen.query_one("#replay-status").render())


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_replay_status_line_shows_every_word(stacks_home: Path,
                                                       size: tuple[int, int]) -> None:
    # At the end of a game with names of the usual length, seen from one seat, the status
    # was longer than 80 columns and ended in "…".
    from engine.state import State
    from tests.tui import states
    from tests.tui.showcase import steps_of
    from tui.replay import Replay

    game = states.finished()
    players = game.state.players
    names = [f"long-name-{seat}-player" for seat in range(players)]
    replay = Replay("fridaynight", names, State.new(game.state.config, players),
                    steps_of(game))
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=size) as pilot:
        screen = ReplayScreen(replay, seat=0, at=replay.last)
        await app.control.show(screen)
        await pilot.pause()
        from tests.tui.test_keys_answer import screen_text

        shown = screen_text(app)
        status = " ".join(plain(screen.query_one("#replay-status").render()).split())
        assert status.endswith(f"{names[0]}'s view"), status
        assert status in shown, shown  # on screen, every word of it


def _turns(replay: object) -> int:
    from engine.classic.events import TurnStarted as ClassicTurnStarted
    from engine.events import TurnSkipped

    return sum(1 for m in replay.moments  # type: ignore[attr-defined]
               if isinstance(m.event, TurnStarted | TurnSkipped | ClassicTurnStarted))


async def test_the_list_of_records_says_game_players_winner_length_and_date(
    tmp_path: Path,
) -> None:
    from tui.replay import record_info
    from tui.screens.replay import _label

    table = _finished()
    path = tmp_path / "friday-20261201-080000.json"  # an old name reads as well
    write_record(path, table.host.record())
    info = record_info(path)
    names = tuple(replay_file(path).names)
    winner = table.state.outcome.winner
    assert info.problem == "" and info.game == "Sequence Stacks" and info.table == "t1"
    assert info.names == names and len(names) == 3
    assert info.result == (f"{names[winner]} won" if winner is not None else "a draw")
    assert info.turns == _turns(replay_file(path)) > 0
    when = time.strftime("%Y-%m-%d", time.localtime())
    words = info.words()
    assert words.startswith(f"Sequence Stacks at t1 · {', '.join(names)} · {info.result} · "
                            f"{info.turns} turns · {when}")
    assert info.result in plain(_label(path)) and "Sequence Stacks" in plain(_label(path))


async def test_a_classic_record_is_listed_with_its_winning_side(tmp_path: Path) -> None:
    from tui.replay import record_info

    table = Table(2, seed=5, game="sequence")
    table.run_to_end()
    path = tmp_path / "sequence.json"
    write_record(path, table.host.record())
    info = record_info(path)
    replay = replay_file(path)
    assert info.game == "Sequence (classic)" and info.turns == _turns(replay)
    winner = table.state.outcome.winner
    assert info.result == (f"{replay.names[winner]} won" if winner is not None else "a draw")


async def test_a_bad_file_is_listed_as_unreadable_and_the_list_goes_on(tmp_path: Path) -> None:
    from tui.replay import recent_records, record_info

    good = tmp_path / "good.json"
    write_record(good, _finished().host.record())
    (tmp_path / "junk.json").write_text("not json")
    (tmp_path / "other.json").write_text('{"format": "something else"}')
    record = _finished().host.record()
    record["outcome"] = {"winner": "nobody"}
    write_record(tmp_path / "odd.json", record)
    record["batches"] = 7
    write_record(tmp_path / "worse.json", record)
    infos = {p.name: record_info(p) for p in recent_records(tmp_path)}
    assert len(infos) == 5 and not infos["good.json"].problem
    for name in ("junk.json", "other.json", "odd.json", "worse.json"):
        assert infos[name].problem, name
        assert infos[name].words().startswith(f"{name} · unreadable: "), infos[name].words()
    assert "not a sequence-stacks game record" in infos["other.json"].problem


async def test_a_new_record_is_named_after_its_game_and_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STACKS_HOME", str(tmp_path))
    from netplay.journal import default_record_path, records_dir

    named = default_record_path("duo", "sequence")
    assert named.parent == records_dir()
    assert named.name.startswith("sequence-duo-") and named.suffix == ".json"
    assert default_record_path("stacks", "stacks").name.startswith("stacks-2")
    assert default_record_path("friday", "stacks").name.startswith("stacks-friday-2")


async def test_stacks_replay_without_a_record_lists_the_recent_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    import subprocess
    import sys

    home = tmp_path / "home"
    env = {**__import__("os").environ, "STACKS_HOME": str(home)}
    root = Path(__file__).resolve().parents[2]
    none = subprocess.run([sys.executable, "-m", "stacks.cli", "replay"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60)
    assert none.returncode == 2, none.stderr
    assert "no game records yet" in none.stderr and "required" not in none.stderr
    monkeypatch.setenv("STACKS_HOME", str(home))
    from netplay.journal import records_dir

    write_record(records_dir() / "friday-20261201-080000.json", _finished().host.record())
    listed = subprocess.run([sys.executable, "-m", "stacks.cli", "replay"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    assert "friday-20261201-080000.json" in listed.stdout
    assert "p0 won" in listed.stdout  # the game, as the menu lists it


async def test_the_records_screen_of_stacks_replay_opens_the_chosen_game(
    tmp_path: Path,
) -> None:
    from tui.app import StacksApp
    from tui.screens.replay import RecordsScreen

    path = tmp_path / "friday-20261201-080000.json"
    write_record(path, _finished().host.record())
    app = StacksApp(only=RecordsScreen([path]), frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the records")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), "the replay")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the list again")
        await pilot.press("escape")
        await until(pilot, lambda: not app.is_running, "the app to end")

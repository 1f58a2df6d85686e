"""A classic Sequence game in the history and the replay: told in words, stepped on the board."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from engine.classic.cards import HIDDEN
from engine.classic.events import SequenceMade, TurnStarted
from engine.classic.state import EMPTY, SequenceState
from netplay.record import write_record
from tests.netplay.harness import Table
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.history import History
from tui.replay import replay_file
from tui.screens.replay import ReplayScreen
from tui.widgets.board import BoardView

pytestmark = pytest.mark.asyncio


def _record(tmp_path: Path, seed: int = 5) -> tuple[Table, Path]:
    table = Table(2, seed=seed, game="sequence")
    table.run_to_end()
    path = tmp_path / "sequence.json"
    write_record(path, table.host.record())
    return table, path


async def test_a_sequence_record_replays_event_by_event_with_every_hand(tmp_path: Path) -> None:
    table, path = _record(tmp_path)
    replay = replay_file(path)
    assert replay.game == "sequence" and replay.every_hand
    final = replay.moments[-1].state
    assert isinstance(final, SequenceState)
    assert final.outcome == table.state.outcome
    assert final.chips == table.state.chips and final.hands == table.state.hands
    assert final.sequences == table.state.sequences
    first_turn = replay.next_turn(0)
    assert isinstance(replay.moments[first_turn].event, TurnStarted)
    assert replay.previous_turn(first_turn) == 0
    assert replay.moments[0].state.chips == [EMPTY] * 100  # before the deal: a bare board
    # One seat's view hides the other's hand, as that seat saw it.
    seen = replay.view(first_turn, 1)
    assert HIDDEN in seen.hands[0] and HIDDEN not in seen.hands[1]


async def test_the_history_of_a_sequence_game_tells_turns_chips_and_sequences(
    tmp_path: Path,
) -> None:
    _table, path = _record(tmp_path)
    replay = replay_file(path)
    history = History(replay.names, 0, "sequence")
    history.extend(replay.steps)
    text = "\n".join(plain(line.markup) for line in history.lines)
    assert "── 1. " in text and "turn" in text
    made = [e for s in replay.steps for e in s.events if isinstance(e, SequenceMade)]
    assert made and text.count("made a sequence") == len(made)
    assert " on " in text  # "Bo played QH: G on H2"
    assert "Game over" in text.splitlines()[-1]


async def test_the_replay_screen_steps_a_sequence_game_on_the_board(
    tmp_path: Path, stacks_home: Path,
) -> None:
    table, path = _record(tmp_path)
    replay = replay_file(path)
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.control.show(ReplayScreen(replay))
        await until(pilot, lambda: bool(app.screen.query(BoardView)), "the replay's board")
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        board = screen.query_one(BoardView)
        status = screen.query_one("#replay-status", Static)
        assert "before the deal" in plain(status.render())
        await pilot.press("right_square_bracket")  # the first turn
        await until(pilot, lambda: screen.at == replay.next_turn(0), "the first turn")
        await pilot.press("end")
        await until(pilot, lambda: screen.at == replay.last, "the end")
        view = board.view
        assert view is not None and view.outcome is not None
        assert view.sequences == table.state.sequences
        assert "wins" in plain(status.render())
        teams = plain(screen.query_one("#replay-seats", Static).render())
        assert "Blue" in teams and "Green" in teams
        await pilot.press("home")
        await until(pilot, lambda: board.view is not None and all(
            c == EMPTY for c in board.view.chips), "the bare board again")

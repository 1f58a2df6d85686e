"""``choose_sequences`` (RULES.md §3.4 [cfg]): the host offers it, and on the board a chip
that completes a run longer than five asks its player which five make the sequence."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select, Static

from engine.classic.actions import PlaceChip
from engine.classic.board import WINDOWS, parse_cell
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceMade
from engine.classic.state import SequenceState
from engine.classic.views import view_for
from stacks.cli import main
from stacks.commands.ui import launch_from
from stacks.parser import build_parser
from tests.engine.scenario import SequenceCards, act, sequence_table
from tests.tui.conftest import until
from tests.tui.showcase import Recorder, plain, presence
from tests.tui.states import NAMES
from tui.app import StacksApp, make_app
from tui.launch import MEMORY, Launch
from tui.screens.board import BoardScreen
from tui.screens.lobby import LobbyScreen
from tui.widgets.board import BoardView

pytestmark = pytest.mark.asyncio

ROW_FIVE = ["A5", "B5", "C5", "E5", "F5"]
"""Blue's chips around D5 (6H): a chip there makes a run of six, A5-F5."""


def _window(first: str, last: str) -> int:
    cells = sorted([parse_cell(first), parse_cell(last)])
    return next(w for w, five in enumerate(WINDOWS) if (five[0], five[-1]) == tuple(cells))


def _run_of_six(choose: bool) -> tuple[SequenceState, int]:
    c = SequenceCards()
    card = c("6H")
    state = sequence_table(2, config=SequenceConfig(choose_sequences=choose),
                           hands={0: [card]}, chips=dict.fromkeys(ROW_FIVE, 0))
    return state, card


async def _board(app: StacksApp, state: SequenceState) -> BoardScreen:
    screen = BoardScreen("friday", NAMES[:2], 0, frozen=True)
    screen.seats = presence(2, None)
    await app.control.show(screen)
    screen.view = view_for(state, 0)
    return screen


def _bar(screen: BoardScreen) -> str:
    return plain(screen.query_one("#board-playbar", Static).render())


def _shown(screen: BoardScreen) -> list[str]:
    """The cells the board marks with { } (the five on offer, but the cursor's cell, D5,
    which keeps its ▸ ◂), as names."""
    board = plain(screen.query_one(BoardView).render()).splitlines()[1:]
    shown = []
    for row, text in enumerate(board):
        for col in range(10):
            cell = text[3 + 5 * col: 8 + 5 * col]
            if cell.startswith("{"):
                shown.append(f"{'ABCDEFGHIJ'[col]}{row + 1}")
    return shown


async def test_a_player_chooses_by_keys_which_five_of_a_run_of_six_make_the_sequence(
    stacks_home: Path,
) -> None:
    state, card = _run_of_six(choose=True)
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = Recorder(app)
        screen = await _board(app, state)
        index = state.hands[0].index(card)
        await pilot.press(str(index + 1))
        assert screen.cursor == parse_cell("D5")  # the card's first space
        await pilot.press("enter")
        await pilot.pause()
        assert sent.actions == []  # not yet: which five?
        bar = _bar(screen)
        assert "D5 makes a sequence: which five?" in bar
        assert "1 A5-E5" in bar and "2 B5-F5" in bar
        # The rules' own choice is shown first: the lowest start (§3.4 DEFAULT).
        assert _shown(screen) == ["A5", "B5", "C5", "E5"]
        await pilot.press("tab")
        assert _shown(screen) == ["B5", "C5", "E5", "F5"]
        await pilot.press("tab")
        assert _shown(screen) == ["A5", "B5", "C5", "E5"]
        await pilot.press("escape")  # back: the card still picked, nothing sent
        assert _shown(screen) == [] and screen.selected == card and sent.actions == []
        await pilot.press("enter", "2")
        assert _shown(screen) == ["B5", "C5", "E5", "F5"]
        await pilot.press("3")
        assert "There are 2 choices" in _bar(screen)
        await pilot.press("enter")
        await pilot.pause()
        high = _window("B5", "F5")
        assert sent.actions == [PlaceChip(0, card, parse_cell("D5"), (high,))]
        # The engine makes the five the player chose.
        events = act(state, sent.actions[0])
        made = [e.cells for e in events if isinstance(e, SequenceMade)]
        assert made == [WINDOWS[high]]


async def test_where_the_rules_choose_enter_places_at_once(stacks_home: Path) -> None:
    state, card = _run_of_six(choose=False)
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        sent = Recorder(app)
        screen = await _board(app, state)
        await pilot.press(str(state.hands[0].index(card) + 1), "enter")
        await pilot.pause()
        assert sent.actions == [PlaceChip(0, card, parse_cell("D5"))]
        assert "which five" not in _bar(screen)


async def test_the_host_form_and_the_command_line_offer_the_choice(
    stacks_home: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=2, bots=0,
                    bot_delay=0.0, table_open=False, variant="sequence",
                    rules=SequenceConfig())
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen) and screen.editing
        choose = screen.query_one("#srule-choose_sequences", Select)
        assert choose.parent is not None and choose.parent.display
        assert choose.value == 0
        choose.value = 1
        await pilot.press("ctrl+o")
        await until(pilot, lambda: screen.me == 0, "our seat")
        rules = app.control.launch.rules  # type: ignore[attr-defined]
        assert rules == SequenceConfig(choose_sequences=True)
        summary = plain(screen.query_one("#lobby-summary", Static).render())
        assert "Players choose the five: yes" in summary

    args = build_parser("host").parse_args(["host", "--game", "sequence", "--players", "2",
                                            "--choose-sequences"])
    args.bot_levels = ()
    hosted, _, _ = launch_from(args)
    assert hosted is not None and hosted.rules == SequenceConfig(choose_sequences=True)
    with pytest.raises(SystemExit) as exited:
        main(["host", "--choose-sequences"])
    assert exited.value.code == 2
    assert "--choose-sequences is for --game sequence" in capsys.readouterr().err

"""``stacks learn``: the first game that teaches, played to its end by keys (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from engine.actions import Block, PassBlock
from engine.cards import FACES
from engine.invariants import check_invariants
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import StacksApp, make_app
from tui.learn import LESSONS, YOU, lesson_game
from tui.screens.block import BlockPrompt
from tui.screens.choice import ChoiceScreen
from tui.screens.learn import LearnScreen
from tui.screens.menu import MenuScreen
from tui.widgets.hand import picks

pytestmark = pytest.mark.asyncio


async def test_the_lesson_deal_is_a_sound_game_state() -> None:
    game = lesson_game()
    assert check_invariants(game.state) == []
    assert game.state.current == YOU
    assert [FACES[c].code for c in game.state.hands[YOU]] == \
        ["R4", "R5", "STEAL_CHIP", "BLOCK", "R2"]


def panel(screen: LearnScreen) -> str:
    return plain(screen.query_one("#learn-lesson", Static).render())


def key_of(screen: LearnScreen, code: str) -> str:
    view = screen.view
    assert view is not None
    return next(p.key for p in picks(view, YOU) if FACES[p.card].code == code)


async def at_lesson(pilot: Pilot[None], screen: LearnScreen, name: str) -> None:
    await until(pilot, lambda: screen.current.name == name, f"the lesson {name!r}")
    await until(pilot, lambda: screen._my_turn() or name == "block", "your turn")


async def answer_choice(pilot: Pilot[None], app: StacksApp) -> None:
    """Take the first answer of a Steal's question(s)."""
    for _ in range(2):
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen | LearnScreen),
                    "a question or the table")
        if not isinstance(app.screen, ChoiceScreen):
            return
        await pilot.press("enter")
        await pilot.pause()


async def test_learn_from_the_menu_is_played_to_you_re_ready_by_keys(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, LearnScreen), "the lesson")
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        screen.delay = 0.05
        await at_lesson(pilot, screen, "number")
        assert "A number card" in panel(screen) and "(1 of 10)" in panel(screen)

        # A wrong move is explained, and the lesson waits: a discard is not taken now.
        await pilot.press(key_of(screen, "R2"), "x")
        await until(pilot, lambda: screen.refused != "", "the refusal")
        assert "Red 4" in panel(screen) and screen.current.name == "number"
        assert len(screen.game.state.hands[YOU]) == 5  # nothing happened
        await pilot.press("escape")

        await pilot.press(key_of(screen, "R4"), "a")
        await at_lesson(pilot, screen, "complete")
        assert screen.refused == ""
        await pilot.press(key_of(screen, "R5"), "a")
        # Tutor passes the Block window, you take the red chip.
        await at_lesson(pilot, screen, "steal_chip")
        assert screen.game.state.chips[YOU] == [1, 0]
        await pilot.press(key_of(screen, "STEAL_CHIP"), "p")
        await answer_choice(pilot, app)
        await at_lesson(pilot, screen, "discard")
        assert sum(screen.game.state.chips[YOU]) == 2

        # Discarding the Block is refused: it is needed next.
        await pilot.press(key_of(screen, "BLOCK"), "x")
        await until(pilot, lambda: "Keep your Block" in panel(screen), "keep the Block")
        await pilot.press(key_of(screen, "R2"), "x")

        # Tutor completes the blue pile: the Block prompt; a pass is refused, then b.
        await at_lesson(pilot, screen, "block")
        await until(pilot, lambda: isinstance(app.screen, BlockPrompt), "the Block prompt")
        await pilot.press("p")
        await until(pilot, lambda: "Block it this time" in panel(screen), "the refusal")
        await until(pilot, lambda: isinstance(app.screen, BlockPrompt), "the prompt again")
        assert not any(isinstance(a, PassBlock) for a in screen.game.log)  # events only
        await pilot.press("b")
        await at_lesson(pilot, screen, "steal_card")
        assert screen.game.state.window is None and len(screen.game.state.piles) == 0
        assert not any(isinstance(a, Block) for a in screen.game.state.hands[YOU])

        await pilot.press(key_of(screen, "STEAL_CARD"), "p")
        await answer_choice(pilot, app)
        await at_lesson(pilot, screen, "wild")
        await pilot.press(key_of(screen, "RW"), "n")
        await at_lesson(pilot, screen, "skip")
        assert [FACES[c].code for p in screen.game.state.piles for c in p.cards] == ["RW"]
        await pilot.press(key_of(screen, "SKIP"), "p")
        await at_lesson(pilot, screen, "end")
        turn = screen.game.state.turn
        # Discarding the Reverse is refused: it is played next.
        await pilot.press(key_of(screen, "REV"), "x")
        await until(pilot, lambda: "Keep your Reverse" in panel(screen), "keep the Reverse")
        other = next(p.key for p in picks(screen.view, YOU)  # type: ignore[arg-type]
                     if FACES[p.card].code != "REV")
        await pilot.press(other, "x")
        await at_lesson(pilot, screen, "reverse")
        assert screen.game.state.turn == turn + 2  # Tutor's turn was skipped
        await pilot.press(key_of(screen, "REV"), "p")
        await at_lesson(pilot, screen, "ready")
        assert "You're ready" in panel(screen)
        played = {FACES[c].kind for c in screen.game.state.special_discard}
        played |= {FACES[c].kind for p in screen.game.state.piles for c in p.cards}
        assert {k.name for k in played} >= {"SKIP", "REVERSE", "STEAL_CARD", "STEAL_CHIP",
                                             "WILD"}
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "back to the menu")


async def test_the_hint_shows_the_move_the_lesson_asks_for(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True, ask="learn")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LearnScreen), "the lesson")
        screen = app.screen
        assert isinstance(screen, LearnScreen)
        await at_lesson(pilot, screen, "number")
        await pilot.press("i")
        await until(pilot, lambda: screen.hint is not None, "the hint")
        assert screen.hint is not None and LESSONS[0].takes(screen.hint)
        await pilot.press("enter")
        await at_lesson(pilot, screen, "complete")
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "back to the menu")

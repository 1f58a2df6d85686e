"""Issue #24, part C: the help of the screen you are on first, the mouse on every hand,
the theme from the menu (kept in the profile's settings), the bell at a networked table."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.tui import board_states, states
from tests.tui.conftest import until
from tests.tui.showcase import plain, show_board, show_table
from tui.app import make_app
from tui.screens.help import HelpScreen
from tui.screens.menu import MenuScreen

pytestmark = pytest.mark.asyncio


def help_titles(screen: HelpScreen) -> list[str]:
    return [str(s.name) for s in screen.query(".help-table")]


def help_order(screen: HelpScreen) -> list[str]:
    """The help's parts top to bottom: each keys table's title, ``how`` for the words."""
    return ["how" if s.id == "help-how" else str(s.name)
            for s in screen.query("#help-how, .help-table")]


async def test_help_over_the_menu_lists_the_menu_keys_first(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await until(pilot, lambda: bool(app.screen.query(".help-table")), "its tables")
        assert isinstance(app.screen, HelpScreen)
        order = help_order(app.screen)
        assert order[:2] == ["Main menu", "how"]
        assert len(help_titles(app.screen)) == 9  # every screen still listed, once
        assert app.screen.sections()[0][1] == list(MenuScreen.BINDINGS)


async def test_help_at_the_table_and_at_the_board_lists_that_game_first(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_table(app, states.mid_game())
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await until(pilot, lambda: bool(app.screen.query(".help-table")), "its tables")
        assert isinstance(app.screen, HelpScreen)
        assert help_order(app.screen)[:3] == ["how", "At the table", "At the Sequence board"]
        await pilot.press("escape")
        await show_board(app, board_states.mid_game())
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await until(pilot, lambda: bool(app.screen.query(".help-table")), "its tables")
        assert isinstance(app.screen, HelpScreen)
        assert help_order(app.screen)[:3] == ["how", "At the Sequence board", "At the table"]


async def test_a_click_on_a_card_of_the_sequence_hand_picks_it_like_its_key(
    stacks_home: Path,
) -> None:
    from tui.classic_words import card as card_words
    from tui.screens.board import BoardScreen

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_board(app, board_states.mid_game())
        await pilot.pause()  # laid out: the click lands where the card is drawn
        view = screen.view
        assert isinstance(screen, BoardScreen) and view is not None and screen.me is not None
        hand = screen.query_one("#board-hand", Static)
        line = plain(hand.render()).splitlines()[0]
        index = 2
        card = view.hands[screen.me][index]
        column = line.index(plain(card_words(card)), line.index(f"{index + 1}"))
        await pilot.click("#board-hand", offset=(column, 0))
        await until(pilot, lambda: screen.selected == card, "the clicked card picked")
        await pilot.click("#board-hand", offset=(column, 0))
        await until(pilot, lambda: screen.selected is None, "a second click puts it back")

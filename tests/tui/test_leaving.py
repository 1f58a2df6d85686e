"""Leaving: Ctrl-C is the game's own Leave (not Textual's "press ctrl+q" toast), and a
table the command line opened ends the program when left (the shell gets its keys back;
from the menu, the menu comes back)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import free_port
from tests.tui.conftest import until
from tests.tui.showcase import notes
from tui.app import make_app
from tui.launch import Launch
from tui.screens.choice import ChoiceScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


def _play() -> Launch:
    return Launch(role="play", name="Ana", players=2, bots=1, port=free_port(),
                  bind="127.0.0.1", bot_delay=30.0, block_window=0.3)


async def test_ctrl_c_at_the_table_asks_to_leave_and_leaving_ends_the_program(
    stacks_home: Path,
) -> None:
    app = make_app(_play(), profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen)
                    and app.screen.view is not None, "the game")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the Leave question")
        assert not any("ctrl+q" in n for n in notes(app)), notes(app)
        await pilot.press("escape")  # stay
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the Leave question")
        await pilot.press("2")  # leave the table
        await until(pilot, lambda: app.return_code == 0, "the program's end")
        assert not isinstance(app.screen, MenuScreen)


async def test_leaving_a_table_opened_from_the_menu_comes_back_to_the_menu(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        launch = Launch(role="host", table="friday", name="Ana", players=3, bots=0,
                        port=free_port(), bind="127.0.0.1", advertise=False,
                        table_open=True)
        await app.control.start(launch)
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "our seat")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu again")
        assert app.return_code is None


async def test_ctrl_c_at_the_menu_quits(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("ctrl+c")
        await until(pilot, lambda: app.return_code == 0, "the program's end")


async def test_game_over_offers_no_menu_behind_a_table_the_command_line_opened(
    stacks_home: Path,
) -> None:
    from tests.tui import states
    from tests.tui.showcase import plain
    from tui.model import TableModel
    from tui.screens.gameover import GameOverScreen

    app = make_app(_play(), profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
        model = TableModel(table="t", players=4, me=0, names=("Ana", "Bo", "Cy", "Di"))
        model.view = states.finished().state
        await app.push_screen(GameOverScreen(model, hosting=True))
        await pilot.pause()
        keys = plain(app.screen.query_one("#over-keys").render())
        assert "menu" not in keys and "quit" in keys, keys
        await pilot.press("m")  # does nothing here
        await pilot.pause()
        assert isinstance(app.screen, GameOverScreen) and app.return_code is None


async def test_the_leave_question_speaks_to_the_one_who_leaves() -> None:
    from tui.launch import Launch
    from tui.screens.seated import leave_question

    solo = leave_question(Launch(role="play"))
    assert "host" not in solo and "bots" in solo  # stacks play: nobody else's table
    hosting = leave_question(Launch(role="host", table="t"))
    assert "ends it for everyone" in hosting
    joined = leave_question(Launch(role="join", table="t"))
    held = leave_question(Launch(role="host", table="t", held=True))
    for text in (joined, held):  # someone else's table, or the ssh server's
        assert "host" not in text and "bot plays your seat" in text

"""A table hosted from the interface's menu names its record after its game and table, as
`stacks host` does (``stacks-friday-20261203-1402.json``), with the game and table the
host form settled on (not ``friday-...``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from netplay.journal import records_dir
from netplay.memory import AsyncMemoryBroker
from tests.tui.conftest import until
from tests.tui.driver import play_board_to_the_end, play_to_the_end
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.board import BoardScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio


def _records() -> list[str]:
    folder = records_dir()
    return sorted(p.name for p in folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("game", ["stacks", "sequence"])
async def test_a_table_hosted_from_the_menu_names_its_record_after_its_game_and_table(
    stacks_home: Path, game: str,
) -> None:
    menu = make_app(None, defaults=Launch(role="play", name="Ana", profile="ana",
                                          table="friday", broker=MEMORY, bot_delay=0.0,
                                          block_window=0.2),
                    profiles=stacks_home, memory=AsyncMemoryBroker())
    async with menu.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(menu.screen, MenuScreen), "the menu")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(menu.screen, LobbyScreen)
                    and menu.screen.editing, "the host form")
        form = menu.screen
        # The form changes the game: the record is the game's the table opens with.
        form.query_one("#set-game", Select).value = game
        await pilot.pause()
        form.query_one("#set-players", Select).value = 2
        form.query_one("#set-bots", Select).value = 1
        # A short game: a turn limit ends it (a record either way).
        prefix = "rule" if game == "stacks" else "srule"
        form.query_one(f"#{prefix}-max_turns", Input).value = "6"
        await pilot.press("ctrl+o")
        screen = BoardScreen if game == "sequence" else TableScreen
        await until(pilot, lambda: isinstance(menu.screen, screen), "the game")
        if game == "sequence":
            await play_board_to_the_end(menu, pilot)
        else:
            await play_to_the_end(menu, pilot)
        assert isinstance(menu.screen, GameOverScreen)
        await until(pilot, lambda: bool(_records()), "the record")
    [name] = _records()
    assert re.fullmatch(rf"{game}-friday-\d{{8}}-\d{{4}}\.json", name), name

"""The other screens: main menu, join form, rules, help, game over, and leaving a game."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Markdown

from engine.cards import Colour
from tests.tui import states
from tests.tui.conftest import until
from tests.tui.showcase import plain, show_game_over, show_table
from tui.app import make_app
from tui.follow import Following
from tui.launch import Launch
from tui.model import TableModel
from tui.screens.block import BlockPrompt
from tui.screens.choice import ChoiceScreen
from tui.screens.connect import ConnectScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.help import HelpScreen
from tui.screens.help import binding_rows as help_rows
from tui.screens.menu import MenuScreen
from tui.screens.rules import RulesScreen, rules_text
from tui.screens.table import TableScreen

pytestmark = pytest.mark.asyncio

ROOT = Path(__file__).resolve().parents[2]


async def test_the_menu_offers_every_way_to_play_on_a_key(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        options = app.screen.query_one("#menu-options")
        text = "\n".join(plain(o.prompt) for o in options._options)  # type: ignore[attr-defined]
        for words in ("Play against bots", "Host a table", "Join a table", "Watch a table",
                      "Rules", "Quit"):
            assert words in text
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu again")
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the app to quit")


async def test_the_join_form_checks_the_table_name_and_esc_goes_back(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, defaults=Launch(role="play", name="Bo"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("j")
        await until(pilot, lambda: isinstance(app.screen, ConnectScreen), "the form")
        form = app.screen
        assert form.query_one("#connect-name", Input).value == "Bo"
        table = form.query_one("#connect-table", Input)
        assert table.has_focus
        await pilot.press("enter")  # Enter in a field goes on to the next one, never joins
        await pilot.pause()
        assert isinstance(app.screen, ConnectScreen)
        assert form.query_one("#connect-broker", Input).has_focus
        form.query_one("#connect-table", Input).value = "Friday Night"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "table name" in plain(form.query_one("#connect-error").render())
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")


async def test_the_rules_screen_renders_the_rules_document(stacks_home: Path) -> None:
    assert rules_text() == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8"), \
        "tui/rules.md is a copy of docs/rules.md: copy it again"
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules")
        await pilot.pause()
        markdown = app.screen.query_one(Markdown)
        assert "Sequence Stacks" in markdown.source
        await pilot.press("down", "down", "escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")


async def test_the_rules_page_names_settings_as_the_host_form_does() -> None:
    """No internal names on the players' page: not RulesConfig's fields (`two_player_deck`)
    nor its values (`gh`, `no_win_check`), but the rows of the host's form, in italics."""
    import re
    from dataclasses import fields
    from enum import IntEnum

    from engine import config
    from tui.screens.host_form import RULE_LABELS

    text = rules_text()
    internal = {f.name for f in fields(config.RulesConfig)}
    for value in vars(config).values():
        if isinstance(value, type) and issubclass(value, IntEnum) and value is not IntEnum:
            internal |= {member.name.lower() for member in value}
    spans = re.findall(r"`([^`]+)`", text)
    named = [s for s in spans if set(re.findall(r"\w+", s.lower())) & internal]
    assert not named, named
    assert "RulesConfig" not in text and "engine/" not in text
    labels = {label.split(" (")[0] for label in RULE_LABELS.values()}
    for setting in ("2-player deck", "Forced play", "Stalemate", "Turn limit",
                    "Steal a Chip may win", "Plays per turn", "Piles per colour"):
        assert setting in labels, setting  # the form still calls it so
        assert f"*{setting}" in text, setting


async def test_help_lists_every_key_of_the_table(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_table(app, states.mid_game())
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await pilot.pause()
        assert len(app.screen.query(".help-table")) == 9  # the Sequence board's keys too
        text = "\n".join(f"{key} {what}" for bindings in (
            TableScreen.BINDINGS, BlockPrompt.BINDINGS, GameOverScreen.BINDINGS)
            for key, what in help_rows(list(bindings)))
        for description in ("pick a card", "play the picked card on the pile of that letter",
                            "new pile",
                            "play the picked action card", "discard the picked card",
                            "end your turn", "highlighted choice", "what a bot would do",
                            "say something", "leave the table", "Block!", "Pass", "Rematch"):
            assert description in text, description
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")


async def test_game_over_shows_the_winner_chips_counts_and_the_verdict(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    game = states.finished()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show_game_over(app, game, verdict=False)
        await pilot.pause()
        outcome = game.state.outcome
        assert outcome is not None and outcome.winner is not None
        winner = states.NAMES[outcome.winner]
        assert f"{winner} wins" in plain(screen.query_one("#over-headline").render())
        assert "checking" in plain(screen.query_one("#over-verdict").render())
        screen.verdict = (True, "every event reproduced")
        await pilot.pause()
        assert "✓ verified" in plain(screen.query_one("#over-verdict").render())
        screen.verdict = (False, "batch 7 differs")
        await pilot.pause()
        assert "NOT verified: batch 7 differs" in plain(
            screen.query_one("#over-verdict").render())
        red, blue = game.state.chips[outcome.winner][Colour.RED], \
            game.state.chips[outcome.winner][Colour.BLUE]
        table = screen.query_one("#over-table").render()
        assert table is not None and (red, blue) != (0, 0)
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        following = app.control.following = Following(app.control, TableModel(table="t1"))
        following.gameover = screen
        await pilot.press("g")
        await until(pilot, lambda: app.screen is screen, "the results again")
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("q")  # the game is over: no question asked
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")


async def test_leaving_a_running_game_asks_first(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_table(app, states.mid_game())
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen), "the question")
        await pilot.press("1")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("q", "2")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")


async def test_the_theme_changes_with_ctrl_t(stacks_home: Path) -> None:
    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        before = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != before


async def test_enter_on_the_menus_first_item_starts_a_game_against_bots(
    stacks_home: Path,
) -> None:
    app = make_app(profiles=stacks_home, defaults=Launch(role="play", name="Ana",
                                                         players=2, bots=1))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        table = app.screen
        assert isinstance(table, TableScreen) and table.names[0] == "Ana"
        await pilot.press("ctrl+q")


async def test_no_footer_key_reads_twice() -> None:
    """The footer shows a key and what it does: "End End" said nothing."""
    from textual.binding import Binding

    from tui.screens.board import BoardScreen
    from tui.screens.history import HistoryScreen
    from tui.screens.lobby import LobbyScreen
    from tui.screens.replay import ReplayScreen

    for screen in (ReplayScreen, TableScreen, BoardScreen, LobbyScreen, GameOverScreen,
                   MenuScreen, HistoryScreen, BlockPrompt):
        for binding in screen.BINDINGS:
            if isinstance(binding, Binding) and binding.show and binding.key_display:
                assert binding.key_display.lower() != binding.description.lower(), (
                    screen.__name__, binding)


async def test_every_menu_entry_is_one_line_at_80x24(stacks_home: Path) -> None:
    """Words at 80x24: "Learn to play  a first game ... step" / "by step"."""
    from tests.tui.showcase import screen_lines
    from tui.screens.menu import ITEMS

    app = make_app(profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.pause()
        lines = screen_lines(app)
        for _, key, label, words in ITEMS:
            if key in ("a", "m") or not words:
                continue  # the account and moderation are the ssh server's (moderators'
                # only); the others name their state
            assert any(f"{label}  {words}" in line for line in lines), \
                (label, "\n".join(lines))

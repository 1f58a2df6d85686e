"""Coming back to the interface: the help of the screen you are on first, the mouse on every hand,
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


async def test_the_menu_cycles_the_theme_and_turns_the_bell_off_for_the_profile(
    stacks_home: Path,
) -> None:
    from tui.settings import load_settings

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        first = app.theme
        assert app.settings.bell
        await pilot.press("t")
        await until(pilot, lambda: app.theme != first, "the next theme")
        chosen = app.theme
        await pilot.press("b")
        await until(pilot, lambda: not app.settings.bell, "the bell off")
        from textual.widgets import OptionList

        prompt = app.screen.query_one("#menu-options", OptionList).get_option("bell").prompt
        assert "Bell: off" in plain(prompt)
        saved = load_settings(app.settings_file())
        assert saved.theme == chosen and saved.bell is False
    again = make_app(profiles=stacks_home, frozen=True)
    async with again.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(again.screen, MenuScreen), "the menu")
        assert again.theme == chosen and not again.settings.bell  # kept in the profile


async def test_settings_that_cannot_be_read_give_the_defaults(tmp_path: Path) -> None:
    from tui.settings import Settings, load_settings, save_settings

    path = tmp_path / "p" / "settings.json"
    assert load_settings(path) == Settings()
    path.parent.mkdir()
    for text in ("{not json", "[1, 2]", '{"bell": "no", "theme": 7}'):
        path.write_text(text)
        assert load_settings(path) == Settings()
    assert save_settings(path, Settings(bell=False, theme="nord")) is None
    assert load_settings(path) == Settings(bell=False, theme="nord")
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert save_settings(blocked / "x" / "settings.json", Settings()) is not None


async def test_calls_for_rings_at_your_turn_and_at_a_block_window_you_can_answer() -> None:
    from engine.cards import CARDS_BY_KIND, Kind
    from engine.views import view_for
    from tui.bell import calls_for

    game = states.block_window()
    state = game.state
    assert state.window is not None and state.window.seat != 0
    view = view_for(state, 0)
    assert calls_for(None, view, 0) is not None and "Block?" in str(calls_for(None, view, 0))
    assert calls_for(view, view, 0) is None  # the same window: once
    no_block = view_for(state, 0)
    no_block.hands[0] = [c for c in no_block.hands[0] if c not in CARDS_BY_KIND[Kind.BLOCK]]
    assert calls_for(None, no_block, 0) is None  # the client passes by itself
    mid = states.mid_game()
    mine = view_for(mid.state, 0)
    assert mine.current == 0
    assert calls_for(None, mine, 0) == "Your turn."
    assert calls_for(mine, mine, 0) is None  # the same turn
    assert calls_for(None, mine, 1) is None  # someone else's
    assert calls_for(None, mine, None) is None  # a spectator


async def test_notifications_go_only_to_terminals_known_to_show_them() -> None:
    from tui.bell import notification, notify_protocol

    assert notify_protocol({"TERM_PROGRAM": "iTerm.app"}) == "osc9"
    assert notify_protocol({"TERM": "xterm-kitty"}) == "osc9"
    assert notify_protocol({"TERM": "foot"}) == "osc777"
    assert notify_protocol({"TERM": "xterm-256color"}) is None
    assert notify_protocol({"TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/x,1,0"}) is None
    assert notify_protocol({"STACKS_NOTIFY": "osc777", "TMUX": "x"}) == "osc777"
    assert notify_protocol({"STACKS_NOTIFY": "off", "TERM_PROGRAM": "iTerm.app"}) is None
    assert notification("osc9", "Stacks", "Your turn.") == "\x1b]9;Stacks: Your turn.\x07"
    assert notification("osc777", "A;B", "x\x07y\x1b") == "\x1b]777;notify;A,B;xy\x07"


async def test_a_joined_table_rings_and_a_table_against_your_own_bots_does_not(
    stacks_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dataclasses import replace

    from engine.views import view_for
    from tui.follow import Following
    from tui.launch import Launch
    from tui.model import TableModel

    monkeypatch.setenv("STACKS_NOTIFY", "osc9")
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)):
        rung: list[str] = []
        written: list[str] = []
        app.bell = lambda: rung.append("BEL")  # type: ignore[method-assign]
        app.write_raw = written.append  # type: ignore[method-assign]
        view = view_for(states.mid_game().state, 0)
        control = app.control
        following = Following(control, TableModel(table="friday", me=0))
        control.launch = Launch(role="play")
        following._call_back(None, view)
        assert rung == [] and written == []
        control.launch = Launch(role="join")
        following._call_back(None, view)
        assert rung == ["BEL"] and written == ["\x1b]9;Sequence Stacks: Your turn.\x07"]
        app.settings = replace(app.settings, bell=False)
        following._call_back(None, view)
        assert rung == ["BEL"]  # the bell is off

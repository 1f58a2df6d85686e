"""The kiosk: what `stacks web` runs for each browser visitor (`stacks watch TABLE
--kiosk`). It only watches: no chat, no move, no seat; leaving its table ends the program
(there is no menu behind it); and the end of the game, or the host closing the table, is
told in words on its screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static

from engine.actions import EndTurn
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.memory import AsyncMemoryBroker
from tests.netplay.harness import SHORT
from tests.tui.conftest import until
from tui.app import StacksApp, make_app
from tui.launch import MEMORY, Launch
from tui.messages import Act, Problem, Say
from tui.screens.gameover import GameOverScreen
from tui.screens.menu import MenuScreen
from tui.screens.problem import ProblemScreen
from tui.screens.table import TableScreen
from tui.widgets.banner import Banner


def _kiosk(table: str, broker: AsyncMemoryBroker, profiles: Path) -> StacksApp:
    return make_app(Launch(role="watch", table=table, name="web spectator", broker=MEMORY),
                    profiles=profiles, memory=broker, kiosk=True)


def _notes(app: StacksApp) -> list[str]:
    return [note.message for note in app._notifications]


def _text(app: StacksApp) -> str:
    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


def test_a_kiosk_only_watches() -> None:
    with pytest.raises(ValueError, match="only watches"):
        make_app(Launch(role="join", table="friday", name="Bo"), kiosk=True)


@pytest.mark.asyncio
async def test_a_kiosk_refuses_chat_and_moves_and_leaving_its_table_ends_it(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                            bot_delay=0.3, block_window=0.2)
    app = _kiosk("friday", broker, stacks_home)
    async with Host(settings, broker=broker), app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen)
                    and app.screen.view is not None, "the table")
        table = app.screen
        assert isinstance(table, TableScreen) and table.me is None
        chat = table.query_one("#table-chat", Input)
        assert not chat.display  # no chat field on the page
        session = app.control.session
        assert session is not None
        sent: list[object] = []
        session.act = sent.append  # type: ignore[method-assign]
        session.chat = sent.append  # type: ignore[method-assign]
        # The talk key opens nothing that would take the keys after it.
        await pilot.press("t", "h", "i", "enter")
        assert not chat.has_focus
        # Nothing the screens ask for reaches the table: no chat line, no move.
        table.post_message(Say("hello from the browser"))
        table.post_message(Act(EndTurn(0)))
        await until(pilot, lambda: "Chat is off on this page: it only watches."
                    in _notes(app), "the word that chat is off")
        await pilot.pause(0.2)
        assert sent == []
        # Leaving the table ends the program: no menu behind it.
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the program's end")
        assert not any(isinstance(screen, MenuScreen) for screen in app.screen_stack)


@pytest.mark.asyncio
async def test_a_kiosk_tells_the_end_of_the_game_and_the_hosts_close_in_words(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    short = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                         bot_delay=0.0, block_window=0.2, rules=SHORT)
    app = _kiosk("friday", broker, stacks_home)
    async with app.run_test(size=(120, 40)) as pilot:
        async with Host(short, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen),
                        "the game-over screen", timeout=60)
            over = app.screen
            assert isinstance(over, GameOverScreen)
            await until(pilot, lambda: "Fair deal: ✓ verified" in _text(app), "the verdict")
            words = _text(app)
            assert re.search(r"Game over — Bot \d wins\s+after \d+ turns", words), words
            # Every browser visitor sees this one screen: it offers no keys, no menu.
            assert "shows the final result, then the table's next game" in words
            assert "menu" not in words
        # The host closed its table after the game: the result stays on the page.
        await pilot.pause(0.5)
        assert app.screen is over and app.is_running

    # The host closes the table mid-game: the visitor reads that it is gone.
    long = HostSettings(table="sunday", players=2, bots=("greedy", "greedy"),
                        bot_delay=0.3, block_window=0.2)
    app = _kiosk("sunday", broker, stacks_home)
    async with app.run_test(size=(120, 40)) as pilot:
        async with Host(long, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, TableScreen)
                        and app.screen.view is not None, "the table")
        await until(pilot, lambda: "The host closed the table." in _banner(app),
                    "the host's close")
        words = _banner(app)
        assert "Table 'sunday' is gone." in words
        assert "Reload the page to watch again" in words and "menu" not in words
        # Leaving now ends the view, as the web page says.
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the program's end")


def _banner(app: StacksApp) -> str:
    return "".join(str(banner.render()) for banner in app.screen.query(Banner))


@pytest.mark.asyncio
async def test_a_kiosks_problem_screen_says_what_a_browser_visitor_can_do(
    stacks_home: Path,
) -> None:
    problem = Problem("The host closed the table.", "Table 'x' is gone.",
                      "Esc goes back to the menu; join again when the host reopens it.")
    app = _kiosk("x", AsyncMemoryBroker(), stacks_home)
    async with app.run_test(size=(100, 30)) as pilot:
        await app.control.failed(problem)
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the problem")
        words = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert "The host closed the table." in words
        assert "Reload the page to watch again" in words
        assert "close this view" in words and "menu" not in words
        await pilot.press("escape")
        await until(pilot, lambda: not app.is_running, "the program's end")
        assert not any(isinstance(screen, MenuScreen) for screen in app.screen_stack)


@pytest.mark.asyncio
async def test_a_kiosk_shows_the_result_then_follows_the_tables_next_game(
    stacks_home: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its visitors have no "r" to press: once they had the result a while, the page
    watches the table's next game (a rematch is hosted with a new key) by itself."""
    import tui.follow

    monkeypatch.setattr(tui.follow, "KIOSK_RESULT_HOLD", 1.0)
    broker = AsyncMemoryBroker()
    short = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                         bot_delay=0.0, block_window=0.2, rules=SHORT)
    app = _kiosk("friday", broker, stacks_home)
    said: list[str] = []
    notify = app.notify

    def heard(message: str, **kwargs: object) -> None:
        said.append(message)
        notify(message, **kwargs)  # type: ignore[arg-type]

    app.notify = heard  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        async with Host(short, broker=broker) as first:
            await until(pilot, lambda: isinstance(app.screen, GameOverScreen),
                        "the game-over screen", timeout=60)
            over = app.screen
        # The next game at the table, under a new host key (as a rematch is).
        paced = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                             bot_delay=0.3, block_window=0.2)
        async with Host(paced, broker=broker) as second:
            assert second.identity.key != first.identity.key
            await until(pilot, lambda: isinstance(app.screen, TableScreen)
                        and app.screen.view is not None
                        and app.control.session is not None
                        and app.control.session.host_key == second.identity.key,
                        "the next game's table", timeout=60)
            assert app.screen is not over and app.kiosk and app.is_running
            # Its visitors were never told that another host claims the table.
            notes = " ".join(said)
            assert "Another host" not in notes, notes

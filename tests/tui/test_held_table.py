"""The interface under `stacks serve`: the menu's Host asks the server to hold the table,
and the creator sits at it as a player (the server's end in process, on a memory broker)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from textual.widgets import Input, Select

from netplay.memory import AsyncMemoryBroker
from sshserver.tables import Caller, TableKeeper
from tests.netplay.harness import SHORT
from tests.tui.conftest import TIMEOUT, until
from tests.tui.showcase import plain
from tui.app import StacksApp, make_app
from tui.launch import Launch
from tui.screens.gameover import GameOverScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen
from tui.screens.table import TableScreen
from tui.serve_link import ServeLink, serve_link

pytestmark = pytest.mark.asyncio

SSH = "ssh -t -p 2222 game.example"
ANA = Caller("ssh-0123456789abcdef", "Ana", SSH)


@pytest_asyncio.fixture
async def served(tmp_path: Path, stacks_home: Path) -> AsyncIterator[tuple[StacksApp, TableKeeper]]:
    broker = AsyncMemoryBroker()

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where,
                         record_path=lambda table, game: tmp_path / f"{table}.json")
    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, lambda req: keeper.handle(ANA, req)))
    link = ServeLink(theirs.fileno(), SSH)
    app = make_app(defaults=Launch(role="play", name="Ana", ssh=SSH, bot_delay=0.0,
                                   block_window=0.3),
                   profiles=stacks_home, memory=broker, link=link)
    try:
        yield app, keeper
    finally:
        link.close()
        theirs.close()
        await asyncio.wait_for(server, 10)
        await keeper.stop()


def _text(app: StacksApp) -> str:
    screen = app.screen
    assert isinstance(screen, LobbyScreen)
    return "\n".join(plain(w.render()) for w in screen.query(
        "#lobby-title, #lobby-join, SeatList, #lobby-hint, #lobby-summary, #set-error"))


async def _open(app: StacksApp, pilot: object, name: str) -> LobbyScreen:
    await pilot.press("h")  # type: ignore[attr-defined]
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the host form")  # type: ignore[arg-type]
    form = app.screen
    assert isinstance(form, LobbyScreen) and form.editing
    form.query_one("#set-table", Input).value = name
    form.query_one("#set-players", Select).value = 2
    await pilot.press("ctrl+o")  # type: ignore[attr-defined]
    await until(pilot, lambda: app.screen is not form, "the table's lobby")  # type: ignore[arg-type]
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    await until(pilot, lambda: lobby.me == 0, "our seat")  # type: ignore[arg-type]
    return lobby


async def test_the_menu_host_asks_the_server_and_the_creator_sits_as_a_player(
    served: tuple[StacksApp, TableKeeper],
) -> None:
    app, keeper = served
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the host form")
        form = app.screen
        assert isinstance(form, LobbyScreen)
        assert "Open a table on this server" in _text(app)
        form.query_one("#set-table", Input).value = "Friday Night"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: "Can't open" in _text(app), "the refusal")
        assert "use 1-32 lower-case letters" in _text(app)
        assert app.screen is form and keeper.tables == {}
        await pilot.press("escape", "escape")  # out of the field, out of the form
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu again")

        lobby = await _open(app, pilot, "friday")
        assert lobby.launch.role == "join" and lobby.launch.held
        text = _text(app)
        assert f"Others join with:\n{SSH} join friday" in text
        assert "The server holds this table" in text
        # The server hosts it; this program runs a player only.
        assert app.control.session is not None and app.control.session.host is None
        table = keeper.tables["friday"]
        assert table.creator == ANA.profile

        # Leaving keeps the table; the creator closes it with x.
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        assert "friday" in keeper.tables
        # Coming back with `join friday`, the creator gets its table's controls back.
        await app.control.start(Launch(role="join", table="friday", name="Ana",
                                       broker="memory", ssh=SSH))
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "friday's lobby")
        assert app.control.launch is not None and app.control.launch.held
        await until(pilot, lambda: "Ctrl+B fills" in _text(app), "the creator's keys")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        lobby = await _open(app, pilot, "saturday")
        await pilot.press("x")
        await until(pilot, lambda: "saturday" not in keeper.tables, "saturday closed")
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")

        # Fill with bots starts the game, hosted by the server.
        lobby = await _open(app, pilot, "sunday")
        await pilot.press("ctrl+b")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
        assert keeper.tables["sunday"].host.host.game is not None
        # A name the server already holds is refused in words.
        error = await app.control.open_held(Launch(role="host", table="sunday", held=True))
        assert error is not None and "already open" in error


async def test_a_creator_back_with_join_rematches_the_same_table(
    served: tuple[StacksApp, TableKeeper],
) -> None:
    """The creator of a 2-seat table leaves, comes back with `join duo`, and at the game's
    end `r` opens the same table again, not "duo (4 seats, 3 bots)" (the defaults of a join)."""
    app, keeper = served
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        # A short game that plays itself: one bot, and a turn clock that lets the stand-in
        # play Ana's turns.
        opened = Launch(role="host", table="duo", name="Ana", players=2, bots=1,
                        bot_delay=0.0, block_window=0.2, turn_clock=0.3, rules=SHORT,
                        password="sesame", held=True, ssh=SSH)
        assert await app.control.open_held(opened) is None
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "duo's game")
        await app.control.leave()  # the ssh connection drops; the seat is kept
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")

        await app.control.start(Launch(role="join", table="duo", name="Ana", broker="memory",
                                       password="sesame", ssh=SSH))
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game's end",
                    timeout=TIMEOUT * 4)
        first = keeper.tables["duo"]
        await pilot.press("r")
        await until(pilot, lambda: keeper.tables.get("duo") not in (None, first),
                    "the next game at duo")
        settings = keeper.tables["duo"].settings
        assert (settings.players, len(settings.bots)) == (2, 1)
        assert settings.turn_clock == 0.3 and settings.password == "sesame"
        assert settings.rules == SHORT


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_host_form_shows_the_table_name_s_placeholder_whole_and_every_field(
    served: tuple[StacksApp, TableKeeper], size: tuple[int, int],
) -> None:
    from tests.tui.showcase import screen_lines

    app, _ = served
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("h")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and isinstance(app.screen.focused, Input), "the host form")
        form = app.screen
        await pilot.pause()
        name = form.query_one("#set-table", Input)
        assert name.value == "" and name.placeholder == "e.g. friday"
        assert any("e.g. friday" in line for line in screen_lines(app)), \
            "\n".join(screen_lines(app))
        # Every field has room for what it holds, however narrow the terminal.
        for ident in ("#set-players", "#set-bots", "#set-standin", "#set-window"):
            field = form.query_one(ident)
            field.scroll_visible(animate=False, immediate=True)
            await pilot.pause()
            assert field.region.width >= 8, (ident, field.region)


@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_a_held_table_s_lobby_shows_the_join_command_and_the_chat_whole(
    served: tuple[StacksApp, TableKeeper], size: tuple[int, int],
) -> None:
    """The command others type is on one line (a wrapped one is hard to copy), and the
    chat field, its words and some lines of chat stay on the screen however small."""
    from tests.tui.showcase import screen_lines

    app, _ = served
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        lobby = await _open(app, pilot, "duel")
        await pilot.pause()
        lines = screen_lines(app)
        shown = "\n".join(lines)
        assert any(line.strip() == f"{SSH} join duel" for line in lines), shown
        say = lobby.query_one("#lobby-say", Input)
        assert any(f"  {say.placeholder}" in line for line in lines), shown
        assert say.placeholder.startswith("Say something")
        field = say.region
        assert field.height == 3 and field.bottom <= size[1] - 1, (field, shown)
        chat = lobby.query_one("#lobby-chat").region
        assert chat.height >= 3, (chat, shown)  # its title and two lines at least


async def test_bots_the_creator_seated_with_ctrl_b_are_seated_again_at_the_rematch(
    served: tuple[StacksApp, TableKeeper],
) -> None:
    app, keeper = served
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        # A short game that plays itself: the stand-in plays Ana's turns.
        opened = Launch(role="host", table="trio", name="Ana", players=3, bots=1,
                        bot_delay=0.0, block_window=0.2, turn_clock=0.3, rules=SHORT,
                        held=True, ssh=SSH)
        assert await app.control.open_held(opened) is None
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "our seat")
        await pilot.press("ctrl+b")  # seat 2 was empty: the server seats a bot there
        await until(pilot, lambda: isinstance(app.screen, GameOverScreen), "the game's end",
                    timeout=TIMEOUT * 4)
        first = keeper.tables["trio"]
        assert len(first.bots) == 1
        await pilot.press("r")
        await until(pilot, lambda: keeper.tables.get("trio") not in (None, first),
                    "the next game at trio")
        table = keeper.tables["trio"]
        assert len(table.settings.bots) == 2  # the filled seat's bot, seated again
        # Nobody presses Ctrl+B again: every seat is taken and the game starts.
        await until(pilot, lambda: table.host.host.game is not None, "the next deal",
                    timeout=TIMEOUT * 2)

"""Choosing classic Sequence: the menu's g, the host form's Game, the command line, the ssh
server's held tables; and joining or watching a classic table shows the board."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Select, Static

from engine.classic.config import SequenceConfig
from engine.classic.state import SequenceState
from engine.state import Phase
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from sshserver.tables import RequestRefused, TableKeeper, host_settings
from stacks.cli import main
from stacks.commands.ui import launch_from
from stacks.parser import build_parser
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tests.tui.test_held_table import served  # noqa: F401 - the fixture
from tui.app import StacksApp, make_app
from tui.launch import MEMORY, Launch
from tui.screens.board import BoardScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.menu import MenuScreen

pytestmark = pytest.mark.asyncio


def _lobby_text(app: StacksApp) -> str:
    screen = app.screen
    assert isinstance(screen, LobbyScreen)
    return "\n".join(plain(w.render()) for w in screen.query(
        "#lobby-title, SeatList, #lobby-hint, #lobby-summary, #set-error"))


def _dealt(app: StacksApp) -> bool:
    """The board shows a dealt game (a spectator may show the table's start before the
    deal reaches it)."""
    screen = app.screen
    return isinstance(screen, BoardScreen) and isinstance(screen.view, SequenceState) \
        and screen.view.phase != Phase.SETUP


async def test_the_menu_g_switches_the_game_and_play_deals_a_board(stacks_home: Path) -> None:
    app = make_app(defaults=Launch(role="play", name="Ana", bot_delay=0.0),
                   profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        options = app.screen.query_one("#menu-options")
        prompt = options.get_option("game").prompt  # type: ignore[attr-defined]
        assert "Sequence Stacks" in plain(prompt)
        await pilot.press("g")
        await until(pilot, lambda: app.defaults.variant == "sequence", "the game switched")
        assert "Sequence (classic" in plain(options.get_option("game").prompt)  # type: ignore[attr-defined]
        assert isinstance(app.defaults.rules, SequenceConfig)
        await pilot.press("p")
        await until(pilot, lambda: _dealt(app), "a dealt board")
        board = app.screen
        assert isinstance(board, BoardScreen) and board.me == 0
        view = board.view
        assert isinstance(view, SequenceState)
        assert view.players == 4 and view.teams == 2 and view.to_win == 2
        assert len(view.hands[0]) == 6  # §3.2: six cards each at four players


async def test_the_host_form_changes_the_game_before_opening_and_bots_fill_it(
    stacks_home: Path,
) -> None:
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    bot_delay=0.0, table_open=False)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen) and screen.editing
        game = screen.query_one("#set-game", Select)
        assert game.value == "stacks"
        assert screen.query_one("#rule-forced_play").display
        assert not screen.query_one("#srule-teams").parent.display  # type: ignore[union-attr]
        game.value = "sequence"
        players = screen.query_one("#set-players", Select)
        await until(pilot, lambda: not screen.query_one("#rule-forced_play").parent.display,  # type: ignore[union-attr]
                    "the Stacks rules hidden")
        assert screen.query_one("#srule-teams").parent.display  # type: ignore[union-attr]
        assert [value for _, value in players._options if value != Select.BLANK] == [
            2, 3, 4, 6, 8, 9, 10, 12]
        # Three teams at four players can't be: the form says so in words.
        screen.query_one("#srule-teams", Input).value = "3"
        await pilot.press("ctrl+o")
        await until(pilot, lambda: "Can't open" in _lobby_text(app), "the refusal")
        assert "4 players can't form 3 teams" in _lobby_text(app)
        screen.query_one("#srule-teams", Input).value = ""
        players.value = 2
        await pilot.press("ctrl+o")
        await until(pilot, lambda: screen.me == 0, "our seat")
        text = _lobby_text(app)
        assert "Game         Sequence" in text and "each plays alone" in text
        assert "Block window" not in text
        await pilot.press("ctrl+b")
        await until(pilot, lambda: _dealt(app), "a dealt board")
        view = app.screen.view  # type: ignore[attr-defined]
        assert view.players == 2 and len(view.hands[0]) == 7


async def test_a_player_joining_and_a_spectator_watching_a_sequence_table_see_the_board(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=3, bots=("medium",), bot_delay=0.05,
                            game="sequence")
    join = make_app(Launch(role="join", table="friday", name="Bo", broker=MEMORY),
                    profiles=stacks_home, memory=broker)
    async with Host(settings, broker=broker), join.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(join.screen, LobbyScreen), "the lobby")
        lobby = join.screen
        assert isinstance(lobby, LobbyScreen)
        await until(pilot, lambda: lobby.me == 0, "a seat")
        text = _lobby_text(join)
        assert "Game         Sequence" in text and "each plays alone" in text
        async with BotPeer(Identity.generate(), "friday", broker=broker, name="Cy"):
            await until(pilot, lambda: _dealt(join), "the board")
            board = join.screen
            assert isinstance(board, BoardScreen) and board.me == 0
            assert board.names[:2] == ("Bo", "Cy")
            teams = plain(board.query_one("#board-teams", Static).render())
            assert "Blue" in teams and "Green" in teams and "Red" in teams
            assert "1 sequence win" in teams  # §3.2: one with three sides

    watch = make_app(Launch(role="watch", table="saturday", name="Zoe", broker=MEMORY),
                     profiles=stacks_home, memory=broker)
    watched = HostSettings(table="saturday", players=2, bots=("medium", "medium"),
                           bot_delay=0.05, game="sequence")
    async with watch.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(watch.screen, LobbyScreen), "the lobby")
        async with Host(watched, broker=broker):
            await until(pilot, lambda: _dealt(watch), "the board from the rail")
            board = watch.screen
            assert isinstance(board, BoardScreen) and board.me is None
            await pilot.press("1")  # no hand to pick from: the key says why
            bar = plain(board.query_one("#board-playbar", Static).render())
            assert "You are watching" in bar


async def test_a_table_held_by_the_ssh_server_deals_classic_sequence(
    served: tuple[StacksApp, TableKeeper],  # noqa: F811 - the fixture
) -> None:
    app, keeper = served
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, MenuScreen), "the menu")
        await pilot.press("g", "h")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the host form")
        form = app.screen
        assert isinstance(form, LobbyScreen)
        assert form.query_one("#set-game", Select).value == "sequence"
        form.query_one("#set-table", Input).value = "board"
        form.query_one("#set-players", Select).value = 2
        await pilot.press("ctrl+o")
        await until(pilot, lambda: app.screen is not form, "the table's lobby")
        assert keeper.tables["board"].settings.game == "sequence"
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await until(pilot, lambda: lobby.me == 0, "our seat")
        await pilot.press("ctrl+b")
        await until(pilot, lambda: _dealt(app), "the board")


async def test_the_server_takes_the_game_of_an_open_request_and_refuses_an_unknown_one() -> None:
    settings = host_settings({"table": "board", "players": 4, "bots": 2, "game": "sequence",
                              "rules": {"teams": 2}})
    assert settings.game == "sequence" and settings.rules == SequenceConfig(teams=2)
    assert settings.bots == ("medium", "medium")
    assert host_settings({"table": "cards", "players": 3}).game == "stacks"
    with pytest.raises(RequestRefused, match="unknown game"):
        host_settings({"table": "x", "players": 2, "game": "chess"})
    with pytest.raises(RequestRefused, match="not 5"):
        host_settings({"table": "x", "players": 5, "game": "sequence"})


async def test_play_and_host_take_the_game_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = build_parser("play").parse_args(["play", "--game", "sequence", "--players", "2"])
    launch, _, _ = launch_from(args)
    assert launch is not None and launch.variant == "sequence" and launch.bots == 1
    assert launch.rules == SequenceConfig()
    args = build_parser("host").parse_args(["host", "--game", "sequence", "--players", "6",
                                            "--teams", "3", "--bots", "4"])
    args.bot_levels = ("medium",) * 4
    launch, _, _ = launch_from(args)
    assert launch is not None and launch.variant == "sequence"
    assert launch.rules == SequenceConfig(teams=3)
    for argv in (["play", "--game", "sequence", "--players", "5"],
                 ["host", "--game", "sequence", "--players", "4", "--teams", "3"]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "not 5" in err and "can't form 3 teams" in err


async def test_help_over_the_board_tells_a_board_turn_and_lists_its_keys(
    stacks_home: Path,
) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board
    from tui.screens.help import BOARD_LONGER, HOW_BOARD, HelpScreen, binding_rows

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_board(app, board_states.mid_game())
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        await until(pilot, lambda: bool(app.screen.query("#help-how")), "its text")
        how = app.screen.query_one("#help-how", Static)
        assert plain(how.render()) == plain(HOW_BOARD)
        assert len(app.screen.query(".help-table")) == 9
        rows = dict((what, key) for key, what in binding_rows(list(BoardScreen.BINDINGS),
                                                              BOARD_LONGER))
        assert rows["move the board's cursor"] == "↑↓←→"
        assert rows["turn in the picked dead card for a new one"] == "d"
        assert rows["the cursor to the next (previous) cell the picked card may take"] == \
            "Tab / shift+tab"
        # One row a thing, each key once: not "1-9 / 2 / 3 / ... / 9", not "⏎ / ⏎".
        assert rows["pick a card of your hand (again: put it back)"] == "1-9"
        assert rows["play the picked card on the cursor's cell (or the card that fits it)"] \
            == "⏎ / space"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen), "the board")


async def test_f1_over_the_board_shows_the_classic_rules(stacks_home: Path) -> None:
    from textual.widgets import Markdown

    from tests.tui import board_states
    from tests.tui.showcase import show_board
    from tui.screens.rules import RulesScreen, rules_text

    root = Path(__file__).resolve().parents[2]
    assert rules_text("sequence") == (root / "docs" / "sequence.md").read_text(
        encoding="utf-8"), "tui/sequence.md is a copy of docs/sequence.md: copy it again"
    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await show_board(app, board_states.mid_game())
        await pilot.press("f1")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules")
        await until(pilot, lambda: bool(app.screen.query(Markdown)), "their text")
        assert app.screen.query_one(Markdown).source.startswith("# Classic Sequence")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, BoardScreen), "the board")


async def test_a_number_past_a_hand_of_one_card_says_one_card(stacks_home: Path) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await show_board(app, board_states.mid_game())
        view = board.view
        assert view is not None
        del view.hands[0][1:]
        board.choices = []
        board.action_pick(4)
        await pilot.pause()
        assert board.answer == "You hold 1 card: [b]1[/] picks it.", board.answer
        del view.hands[0][:]
        view.hands[0].extend(board_states.seat_view(board_states.mid_game()).hands[0])
        board.action_pick(8)
        count = len(view.hands[0])
        assert board.answer == f"You hold {count} cards: [b]1-{count}[/] pick one.", board.answer


async def test_the_board_says_what_its_legend_and_discard_count_mean(stacks_home: Path) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await show_board(app, board_states.mid_game())
        await pilot.pause()
        legend = plain(board.query_one("#board-legend", Static).render())
        assert "QHB Blue chip" in legend, legend  # a chip: a card's code and a team's letter
        assert all(len(line) <= 53 for line in legend.splitlines()), legend  # the board's width
        text = "\n".join(plain(w.render()) for w in board.query(Static))
        line = next(row for row in text.splitlines() if "Your discard pile" in row)
        assert line.rstrip().endswith("cards)") or line.rstrip().endswith("card)"), line


@pytest.mark.parametrize("players", [2, 3, 4])
async def test_the_game_over_header_fits_80_columns(stacks_home: Path, players: int) -> None:
    from tests.tui import board_states
    from tests.tui.showcase import show_board

    app = make_app(profiles=stacks_home, frozen=True)
    async with app.run_test(size=(80, 24)) as pilot:
        board = await show_board(app, board_states.finished(players))
        await pilot.pause()
        status = board.query_one("#board-status", Static)
        text = plain(status.render())
        assert "Game over" in text and "results" in text, text
        assert len(text) <= status.content_region.width, (text, status.content_region.width)

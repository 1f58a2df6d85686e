"""The lobby: a host's settings and opening, seats with presence, chat, the start."""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from netplay.codec import decode
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from tests.tui.conftest import until
from tests.tui.showcase import plain
from tui.app import make_app
from tui.launch import MEMORY, Launch
from tui.screens.lobby import LobbyScreen
from tui.screens.problem import ProblemScreen
from tui.screens.table import TableScreen
from tui.widgets.log import TableLog
from tui.widgets.opponents import Opponents

pytestmark = pytest.mark.asyncio


def _lobby_text(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, LobbyScreen)
    parts = "#lobby-title, SeatList, #lobby-join, #lobby-hint, #lobby-summary"
    return "\n".join(plain(w.render()) for w in screen.query(parts))


async def test_a_host_chooses_settings_opens_the_table_and_fills_it_with_bots(
    stacks_home: Path,
) -> None:
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    bot_delay=0.0, block_window=0.3, table_open=False)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen) and screen.editing
        # Every rule of the rules config has a field.
        assert screen.query_one("#rule-forced_play", Select).value == 0
        assert screen.query_one("#rule-two_player_deck", Select).value == 0
        screen.query_one("#set-players", Select).value = 3
        screen.query_one("#rule-forced_play", Select).value = 1
        await pilot.press("ctrl+o")
        await until(pilot, lambda: screen.me == 0, "our seat")
        text = _lobby_text(app)
        assert "1. ● Ana (you)" in text
        assert "2. — empty seat —" in text and "3. — empty seat —" in text
        assert "Forced play: yes" in text  # as the form says it
        assert "Password     no" in text
        assert "stacks join friday" in text
        await pilot.press("t", *"hi", "enter")
        log = screen.query_one("#lobby-chat", TableLog)
        await until(pilot, lambda: len(log.lines) > 0, "our chat line")
        await pilot.press("escape", "ctrl+b")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game to start",)
        table = app.screen
        assert isinstance(table, TableScreen)
        assert table.names[0] == "Ana" and len(table.names) == 3


async def test_settings_that_make_no_sense_are_refused_in_words(stacks_home: Path) -> None:
    launch = Launch(role="host", table="friday", broker=MEMORY, players=2, bots=1,
                    table_open=False)
    app = make_app(launch, profiles=stacks_home)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        screen.query_one("#rule-win_chips", Input).value = "3"
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert screen.editing
        assert "win_min_each_colour" in plain(screen.query_one("#set-error").render())


async def test_a_player_joins_a_hosted_table_sees_the_seats_and_the_game_starts(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=3, bots=("greedy",), block_window=0.3)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with Host(settings, broker=broker) as host, app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(pilot, lambda: screen.me == 0, "a seat")
        text = _lobby_text(app)
        assert "Table friday" in text and "Players      3" in text
        assert f"host {fingerprint(host.identity.key)}" in text  # to compare, or to pin
        assert "1. ● Bo (you)" in text and "3. ● Bot 3 bot" in text
        assert "Waiting for 1 more player." in text
        async with BotPeer(Identity.generate(), "friday", broker=broker, name="Cy"):
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
            assert host.host.game is not None
            table = app.screen
            assert isinstance(table, TableScreen)
            assert table.names == ("Bo", "Cy", "Bot 3")


async def test_a_wrong_password_is_refused_in_words(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, password="s3cret")
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY, password="nope")
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with Host(settings, broker=broker), app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the refusal")
        text = plain(app.screen.query_one("#problem-words").render())
        assert "Wrong table password" in text
        await pilot.press("enter")
        await until(pilot, lambda: app.return_code == 0, "the program's end")


async def test_a_spectator_watches_the_game_from_the_rail(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy", "greedy"),
                            bot_delay=0.05, block_window=0.3)
    launch = Launch(role="watch", table="friday", name="Zoe", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        async with Host(settings, broker=broker):
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the game")
            table = app.screen
            assert isinstance(table, TableScreen) and table.me is None
            await until(pilot, lambda: table.view is not None and table.view.turn > 2,
                        "some turns")
            lines = plain(table.query_one(Opponents).render()).splitlines()
            assert len(lines) == 2 and all("Bot" in line for line in lines)
            assert "watching" in plain(table.query_one("#table-playbar").render())


async def test_quitting_a_hosted_table_leaves_a_signed_close(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=3, bots=0)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "our seat")
        assert "sstacks/v1/friday/announce" in broker.retained
        await pilot.press("ctrl+q")
        topic = "sstacks/v1/friday/announce"

        def closed() -> bool:
            frame = decode(broker.retained[topic])
            return frame.body["status"] == "closed"  # signed: an empty payload closes nothing

        await until(pilot, closed, "the signed close")


async def test_join_with_a_bare_password_flag_asks_for_it_and_joins(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=3, bots=("greedy",), password="pw")
    defaults = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(defaults=defaults, ask="join-password", profiles=stacks_home, memory=broker)
    async with Host(settings, broker=broker), app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen.focused, Input)
                    and app.screen.focused.id == "connect-password", "the password field")
        await pilot.press("p", "w", "enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and app.screen.me == 0, "a seat at the table")


async def test_the_host_form_at_80x24_shows_a_level_per_bot_and_esc_leaves_at_once(
    stacks_home: Path,
) -> None:
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    table_open=False)
    app = make_app(launch, profiles=stacks_home, memory=AsyncMemoryBroker())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and isinstance(app.screen.focused, Select), "the host form")
        form = app.screen

        def levels_shown() -> int:
            return sum(1 for i in range(5)
                       if form.query_one(f"#set-level-{i}", Select).parent.display)  # type: ignore[union-attr]

        assert levels_shown() == 0  # no bots: no bot levels
        form.query_one("#set-bots", Select).value = 2
        await until(pilot, lambda: levels_shown() == 2, "a level for each of the 2 bots")
        await pilot.pause()
        for i in range(2):
            level = form.query_one(f"#set-level-{i}", Select)
            assert level.region.height == 1, level.region  # one line: no "medium (greedy" / ")"
        await pilot.press("escape")  # once, with a field focused: the form is left
        await until(pilot, lambda: app.return_code == 0, "the program's end")


LONG_OPTIONS = {
    "two_player_deck": 1, "steal_chip_win": 1, "skip_stacking": 2, "skip_timing": 1,
    "stalemate_result": 1,
}
"""Rules whose options are phrases, each set away from its default."""


async def test_no_rule_option_s_words_wrap_at_80x24_in_the_form_or_the_lobby(
    stacks_home: Path,
) -> None:
    from engine.cards import TwoPlayerDeck
    from engine.config import SkipStacking, SkipTiming, StalemateResult, StealChipWin
    from tests.tui.showcase import screen_lines
    from tui.screens.host_form import option_words

    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    table_open=False)
    app = make_app(launch, profiles=stacks_home, memory=AsyncMemoryBroker())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and isinstance(app.screen.focused, Select), "the host form")
        form = app.screen
        assert isinstance(form, LobbyScreen)
        for name, value in LONG_OPTIONS.items():
            form.query_one(f"#rule-{name}", Select).value = value
        for name, value in LONG_OPTIONS.items():
            field = form.query_one(f"#rule-{name}", Select)
            field.scroll_visible(animate=False, immediate=True)
            await pilot.pause()
            assert field.region.height == 1, (name, field.region)  # no second line
            phrase = option_words(_member(name, value))
            assert any(phrase in line for line in screen_lines(app)), \
                (name, phrase, "\n".join(screen_lines(app)))
        await pilot.press("ctrl+o")
        await until(pilot, lambda: form.me == 0 and not form.editing, "our seat")
        phrases = [option_words(TwoPlayerDeck.GR), option_words(StealChipWin.NO_WIN_CHECK),
                   option_words(SkipStacking.NEXT_LOSES_K), option_words(SkipTiming.AT_PLAY),
                   option_words(StalemateResult.MOST_CHIPS)]

        def whole() -> list[str]:
            lines = screen_lines(app)
            return [p for p in phrases if not any(p in line for line in lines)]

        await until(pilot, lambda: "Rules" in "\n".join(screen_lines(app)), "the summary")
        await pilot.pause()
        assert whole() == [], "\n".join(screen_lines(app))


def _member(name: str, value: int) -> IntEnum:
    from engine.config import RulesConfig

    return type(getattr(RulesConfig(), name))(value)  # type: ignore[no-any-return]


async def test_the_join_command_a_host_reads_out_is_whole_on_one_line_at_80x24(
    stacks_home: Path,
) -> None:
    """Fingerprint and broker address included, the command fits a line of its own."""
    from tests.tui.showcase import screen_lines

    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    table_open=False)
    app = make_app(launch, profiles=stacks_home, memory=AsyncMemoryBroker())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and isinstance(app.screen.focused, Select), "the host form")
        lobby = app.screen
        assert isinstance(lobby, LobbyScreen)
        await pilot.press("ctrl+o")
        await until(pilot, lambda: lobby.me == 0 and not lobby.editing, "our seat")
        await until(pilot, lambda: "Others join with:" in "\n".join(screen_lines(app)),
                    "the join line")
        lobby.where = "mqtt://192.168.200.123:18830"  # a LAN broker's address, as long as they get
        lobby._refresh()
        await pilot.pause()
        lines = screen_lines(app)
        command = [line for line in lines if "stacks join friday@" in line]
        assert command, "\n".join(lines)
        assert command[0].rstrip().endswith("--broker mqtt://192.168.200.123:18830"), \
            "\n".join(lines)


async def test_the_host_forms_seats_show_the_bots_chosen_and_the_field_in_focus_is_marked(
    stacks_home: Path,
) -> None:
    from textual.widgets import Label

    from tui.widgets.seats import SeatList

    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=4, bots=0,
                    table_open=False)
    app = make_app(launch, profiles=stacks_home, memory=AsyncMemoryBroker())
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen)
                    and isinstance(app.screen.focused, Select), "the host form")
        form = app.screen

        def seats() -> str:
            return plain(form.query_one(SeatList).render())

        assert seats().count("empty seat") == 3 and "Ana (you)" in seats(), seats()
        form.query_one("#set-bots", Select).value = 2
        await until(pilot, lambda: "Bot 4 (medium)" in seats(), "the bots in the seats")
        assert "Bot 3 (medium)" in seats() and seats().count("empty seat") == 1, seats()
        form.query_one("#set-level-1", Select).value = "hard"
        await until(pilot, lambda: "Bot 4 (hard)" in seats(), "the bot's level in its seat")
        form.query_one("#set-players", Select).value = 3
        await until(pilot, lambda: "4." not in seats(), "three seats")

        # The focused field's label is marked (reverse), and only that one.
        def marked() -> list[str]:
            return [plain(label.render()) for label in form.query(".set-label").results(Label)
                    if label.display and "reverse" in str(label.styles.text_style)]

        await until(pilot, lambda: len(marked()) == 1, "one marked label")
        before = marked()
        await pilot.press("tab")
        await until(pilot, lambda: len(marked()) == 1 and marked() != before,
                    "the mark follows the focus")


async def test_a_full_table_names_itself_and_w_watches_it(stacks_home: Path) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="friday", players=2, bots=("greedy",), block_window=0.3)
    launch = Launch(role="join", table="friday", name="Bo", broker=MEMORY)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with Host(settings, broker=broker), \
            BotPeer(Identity.generate(), "friday", broker=broker, name="Cy"), \
            app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ProblemScreen), "the refusal")
        advice = plain(app.screen.query_one("#problem-advice").render())
        keys = plain(app.screen.query_one("#problem-keys").render())
        assert "stacks watch friday" in advice and "TABLE" not in advice, advice
        assert "w: watch it" in keys, keys
        await pilot.press("w")
        await until(pilot, lambda: app.control.launch is not None
                    and app.control.launch.role == "watch", "watching")
        from tui.screens.gameover import GameOverScreen

        # The bots play fast: the watched table may already be over when it shows.
        await until(pilot, lambda: isinstance(app.screen, TableScreen | GameOverScreen),
                    "the table, watched")
        assert app.control.model is not None and app.control.model.me is None


async def test_a_seat_in_plain_mode_is_shown_and_ctrl_w_lengthens_the_hosts_window(
    stacks_home: Path,
) -> None:
    broker = AsyncMemoryBroker()
    launch = Launch(role="host", table="friday", name="Ana", broker=MEMORY, players=3, bots=0,
                    block_window=3.0, table_open=True)
    app = make_app(launch, profiles=stacks_home, memory=broker)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(pilot, lambda: screen.me == 0, "our seat")
        assert "plain mode" not in _lobby_text(app)
        await pilot.press("ctrl+w")  # nobody plays plain: the key does nothing
        await pilot.pause()
        assert "Block window 3 s" in _lobby_text(app)
        cy = BotPeer(Identity.generate(), "friday", broker=broker, name="Cy")
        cy.player.plain = True
        async with cy:
            await until(pilot, lambda: "Cy plain mode" in _lobby_text(app), "Cy, plain")
            text = _lobby_text(app)
            assert "Ctrl+W" in text and "3 s Block window" in text
            await pilot.press("ctrl+w")
            await until(pilot, lambda: "Block window 10 s" in _lobby_text(app),
                        "the longer window, announced")
            session = app.control.session  # type: ignore[attr-defined]
            assert session.host.host.settings.block_window == 10.0
            assert session.host.host.block_race.window == 10.0
            assert "Ctrl+W" not in _lobby_text(app)  # done: no more offer

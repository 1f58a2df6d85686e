"""The lobby: the table's settings, its seats and who is here, chat, and the start.

A host chooses the settings here (every rule of ``RulesConfig`` has a field) and opens
the table; everyone else sees the settings the host announced. The game starts when
every seat is taken; the host may fill the empty seats with bots to start at once.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.markup import escape
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Label, Select, Static

from engine.classic.config import SequenceConfig
from engine.errors import ConfigError
from engine.games import game_def
from engine.state import Seat
from tui import words
from tui.appbase import GameApp
from tui.launch import Launch
from tui.messages import CloseTable, FillWithBots, LeaveTable, Problem, Say, SetBlockWindow
from tui.model import SeatPresence, TableModel
from tui.plural import counted
from tui.screens.host_form import (
    form_rows,
    read_form,
    rules_lines,
    seats_preview,
    show_bots,
    show_game,
)
from tui.widgets.banner import Banner
from tui.widgets.log import TableLog
from tui.widgets.seats import SeatList

SAY = "Say something (Enter sends)"
SAY_SHORT = "Say something"
"""The chat field's placeholder, and the one where the long one would be cut."""
SUMMARY_WIDTH = 38
"""The settings column's width at 80x24, for a summary not laid out yet."""
PLAIN_WINDOW = 10.0
"""Seconds of Block window the host is offered (Ctrl+W) when a seat plays in plain mode:
a screen reader has to say the question before it can be answered."""


class SettingsSummary(Static):
    """The table's settings in words; written again for its width when that changes."""

    def on_resize(self) -> None:
        screen = self.screen
        if isinstance(screen, LobbyScreen):
            screen._refresh()


class LobbyScreen(Screen[None]):
    """Waiting for players (and, for a host, choosing the settings first)."""

    CSS_PATH = "lobby.tcss"
    # Textual declares it "ClassVar[...] | None", which mypy reads as an instance variable.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (80, "-wide")]  # noqa: RUF012
    """Below 80 columns the form puts each field under its label (lobby.tcss)."""
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open_table", "Open table", priority=True),
        Binding("ctrl+b", "fill", "Fill with bots", priority=True),
        Binding("ctrl+w", "plain_window", f"Block window {PLAIN_WINDOW:g} s for plain mode"),
        Binding("x", "close_table", "Close table"),
        Binding("t", "chat", "Talk"),
        Binding("exclamation_mark", "report", "Report", key_display="!", show=False),
        Binding("escape", "leave", "Leave"),
    ]

    seats: reactive[tuple[SeatPresence | None, ...]] = reactive((), repaint=False)
    me: reactive[Seat | None] = reactive(None, repaint=False)
    announce: reactive[dict[str, Any]] = reactive(dict, always_update=True, repaint=False)
    where: reactive[str] = reactive("", repaint=False)
    profile: reactive[str] = reactive("", repaint=False)
    problem: reactive[Problem | None] = reactive(None, repaint=False)
    note: reactive[str] = reactive("", repaint=False)
    """What is wrong with the broker, in words (the session measured it), or ""."""

    def __init__(self, launch: Launch, model: TableModel) -> None:
        super().__init__()
        self.launch = launch
        self.model = model
        self.editing = launch.role == "host" and not launch.table_open
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="lobby-title")
        yield Static(id="lobby-join")
        yield Banner(id="lobby-banner")
        with Horizontal(id="lobby-body"):
            with VerticalScroll(id="lobby-settings") as settings:
                settings.border_title = "Table settings"
                if self.editing:
                    yield from form_rows(self.launch)
                else:
                    yield SettingsSummary(id="lobby-summary")
            with Vertical(id="lobby-people"):
                seats = SeatList(id="lobby-seats")
                seats.border_title = "Seats"
                yield seats
                yield Static(id="lobby-hint")
                log = TableLog(id="lobby-chat")
                log.border_title = "Chat"
                yield log
                yield Input(placeholder=SAY, id="lobby-say", max_length=500)
        yield Footer(compact=True)

    def on_resize(self, event: events.Resize) -> None:
        # The chat field has half the width less its border and padding: the long words
        # where they fit whole, the short ones where they would be cut.
        for say in self.query("#lobby-say").results(Input):
            say.placeholder = SAY if event.size.width // 2 - 6 >= len(SAY) else SAY_SHORT

    def on_mount(self) -> None:
        self._ready = True
        if getattr(self.app, "kiosk", False):
            self.query_one("#lobby-say", Input).display = False  # a kiosk only watches
        if self.editing:
            show_game(self, self.launch.variant)
            show_bots(self, self.query_one("#set-bots", Select).value)
        self._refresh()
        if self.editing:
            self.query_one("#set-table" if self.launch.held else "#set-players").focus()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        self._mark_editing(event.widget)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._mark_editing(self.focused)

    def _mark_editing(self, focused: Widget | None) -> None:
        """The form's row whose field has the focus gets ``-editing``: its label is
        marked (lobby.tcss), as well as the field by its own colours."""
        row = None if focused is None else next(
            (node for node in focused.ancestors_with_self if node.has_class("set-row")), None)
        for other in self.query(".set-row"):
            other.set_class(other is row, "-editing")

    # -- attributes down -----------------------------------------------------------------------

    def watch_seats(self) -> None:
        self._refresh()

    def watch_me(self) -> None:
        self._refresh()

    def watch_announce(self) -> None:
        self._refresh()

    def watch_where(self) -> None:
        self._refresh()

    def watch_profile(self) -> None:
        self._refresh()

    def watch_note(self) -> None:
        self._refresh()

    def watch_problem(self, problem: Problem | None) -> None:
        for banner in self.query(Banner):
            banner.problem = problem

    def heard(self, name: str, text: str) -> None:
        for log in self.query("#lobby-chat").results(TableLog):
            log.chat(name, text)

    def _title(self) -> str:
        role = self.launch.role
        table = escape(self.launch.table)
        if role == "play":
            title = game_def(self.launch.variant).title
            return f"[b]{title}[/] · a game against {counted(self.launch.bots, 'bot')}"
        if role == "host" and self.launch.held:
            return "[b]Open a table on this server[/]"
        if role == "host":
            return f"[b]Hosting table {table}[/]"
        if role == "watch":
            return f"[b]Watching table {table}[/]"
        return f"[b]Table {table}[/]"

    def _fingerprint(self) -> str:
        """The host's fingerprint, which players compare (and pin: TABLE@FINGERPRINT)."""
        from netplay.hosts import fingerprint

        key = self.announce.get("host")
        if not isinstance(key, bytes) or len(key) != 32:
            return ""
        return f" · host [b]{fingerprint(key)}[/]"

    def _refresh(self) -> None:
        if not self._ready:
            return
        with contextlib.suppress(NoMatches):  # the screen is being taken down
            self._refresh_widgets()

    def _refresh_widgets(self) -> None:
        model = self.model
        seat_list = self.query_one(SeatList)
        if self.editing:
            # Before the table opens: the seats the form describes, bots included.
            seat_list.players, seat_list.seats = seats_preview(self, self.launch)
            seat_list.me = 0
        else:
            seat_list.players = model.players
            seat_list.seats = self.seats
            seat_list.me = self.me
        self.query_one("#lobby-title", Static).update(
            self._title() + self._fingerprint() + self._where()
        )
        if not self.editing:
            self.query_one("#lobby-summary", Static).update(self._summary())
        hint = self._hint()
        if self.note:
            hint = words.broker_line(self.note) + ("\n" + hint if hint else "")
        self.query_one("#lobby-hint", Static).update(hint)
        join = self._join_line()
        join_line = self.query_one("#lobby-join", Static)
        join_line.update(join)
        join_line.display = bool(join)
        self.refresh_bindings()

    def _where(self) -> str:
        launch = self.launch
        if launch.ssh and launch.role != "host":
            return ""  # the command to join says where: see _join_line
        if not self.where:
            return ""
        if self.launch.role == "host":
            return f" on {escape(self.where)}"
        return f" · {escape(self.where)}"

    def _summary(self) -> str:
        model = self.model
        if not model.players:
            return "[dim]Looking for the table…[/]"
        password = "yes" if model.password else "no"
        game = model.game
        lines = [
            f"Game         [b]{escape(game_def(game).title)}[/]",
            f"Players      [b]{model.players}[/]",
        ]
        if game != "stacks":
            rules = model.rules if isinstance(model.rules, SequenceConfig) else SequenceConfig()
            lines.append(f"Teams        [b]{escape(_teams_words(rules, model.players))}[/]")
        else:
            lines.append(f"Block window [b]{model.block_window:g} s[/]")
        lines += [
            f"Turn clock   [b]{words.clock_setting(model.turn_clock)}[/]",
            f"Password     [b]{password}[/]",
        ]
        # A rule a line, each whole at the column's width (the value under its label
        # where both don't fit): an option's words never wrap.
        summary = self.query_one("#lobby-summary", Static)
        changed = rules_lines(model.rules, summary.content_size.width or SUMMARY_WIDTH)
        if changed:
            lines += ["Rules", *(escape(line) for line in changed)]
        else:
            lines.append("Rules        standard rules")
        if self.profile:
            lines.append(f"[dim]Your profile: {escape(self.profile)}[/]")
        return "\n".join(lines)

    def _hint(self) -> str:
        launch, model = self.launch, self.model
        if self.editing:
            return "[dim]Choose the settings, then[/] [b]Ctrl+O[/] [dim]opens the table.[/]"
        if launch.role == "watch":
            return "[dim]You will see the game as soon as it starts.[/]"
        held = ""
        if launch.held:
            held = ("[dim]The server holds this table: it plays on if you leave or drop, "
                    "and ends with its game or when its lobby stays empty.[/]\n")
        if not model.players:
            return ""
        empty = self._empty_seats()
        if not empty:
            return "[b]Every seat is taken: dealing…[/]"
        text = held + f"Waiting for {counted(empty, 'more player', 'more players')}."
        if launch.held:
            text += "\n[b]Ctrl+B[/] fills the empty seats with bots; [b]x[/] closes the " \
                    "table."
        if launch.role == "host":
            text += "\n[b]Ctrl+B[/] fills the empty seats with bots and starts."
        plain = self._plain_seats()
        if plain and self._plain_window_offered():
            who = escape(", ".join(plain))
            text += (f"\n{who} {'plays' if len(plain) == 1 else 'play'} in plain mode (a "
                     f"screen reader): a {self.model.block_window:g} s Block window is over "
                     f"before its question is heard. [b]Ctrl+W[/] makes it "
                     f"{PLAIN_WINDOW:g} s.")
        return text

    def _plain_seats(self) -> list[str]:
        """The names of the seats that play in plain mode, as announced."""
        return [seat.name for seat in self.seats if seat is not None and seat.plain]

    def _plain_window_offered(self) -> bool:
        """Our own table, before the deal, a seat in plain mode and a window shorter than
        :data:`PLAIN_WINDOW`: Ctrl+W lengthens it."""
        return (self.launch.role == "host" and not self.launch.held and not self.editing
                and self.model.status == "lobby" and self.model.game == "stacks"
                and self.model.block_window < PLAIN_WINDOW and bool(self._plain_seats()))

    def _empty_seats(self) -> int:
        return sum(1 for s in range(self.model.players)
                   if s >= len(self.seats) or self.seats[s] is None)

    def _join_line(self) -> str:
        """A host's "others join with" command, for a line across the whole screen.

        A name, a fingerprint and a broker's address make it longer than the seats'
        column, and a command wrapped over lines is hard to copy.
        """
        launch = self.launch
        if self.editing or not self.model.players or not self._empty_seats():
            return ""
        if launch.ssh and launch.role != "host":
            # Over ssh, the broker's address means nothing to the others: the command does.
            return f"Others join with:\n[b]{escape(launch.ssh)} join {escape(launch.table)}[/]"
        if launch.role != "host":
            return ""
        key = self.announce.get("host")
        join = f"stacks join {launch.table}"
        if isinstance(key, bytes) and len(key) == 32:
            from netplay.hosts import fingerprint

            join += f"@{fingerprint(key)}"
        if self.where and self.where.startswith("mqtt"):
            join += f" --broker {self.where}"
        return f"Others join with:\n[b]{escape(join)}[/]"

    # -- the host's form (tui.screens.host_form) ---------------------------------------------

    def _read_form(self) -> Launch | None:
        error = self.query_one("#set-error", Label)
        try:
            launch = read_form(self, self.launch)
        except (ValueError, ConfigError) as exc:
            error.update(f"[b]Can't open:[/] {escape(str(exc))}")
            error.scroll_visible()  # it sits under the long form
            return None
        error.update("")
        return launch

    # -- keys ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_table":
            return self.editing
        if action == "fill":
            return (self.launch.role == "host" or self.launch.held) and not self.editing
        if action == "close_table":
            return self.launch.held and not self.editing
        if action == "plain_window":
            return self._plain_window_offered()
        return True

    async def action_open_table(self) -> None:
        launch = self._read_form()
        if launch is None:
            return
        if launch.held:
            # The server opens it; we then get a lobby of our own as one of its players.
            app = self.app
            assert isinstance(app, GameApp)
            self.query_one("#set-error", Label).update("[dim]Asking the server…[/]")
            problem = await app.control.open_held(launch)
            if problem is not None:
                error = self.query_one("#set-error", Label)
                error.update(f"[b]Can't open:[/] {escape(problem)}")
            return
        self.launch = launch
        self.editing = False
        settings = self.query_one("#lobby-settings", VerticalScroll)
        await settings.remove_children()
        await settings.mount(SettingsSummary(id="lobby-summary"))
        self.model.players = launch.players
        app = self.app
        assert isinstance(app, GameApp)
        await app.control.open_table(launch)
        self._refresh()

    def action_fill(self) -> None:
        self.post_message(FillWithBots())

    def action_plain_window(self) -> None:
        if self._plain_window_offered():
            self.post_message(SetBlockWindow(PLAIN_WINDOW))

    def action_close_table(self) -> None:
        self.post_message(CloseTable())

    def action_chat(self) -> None:
        self.query_one("#lobby-say", Input).focus()

    def action_report(self) -> None:
        """The chat line, opened with ``!``: ``!NAME why`` reports a player."""
        from tui.screens.seated import open_with, report_allowed

        if report_allowed(self):
            say = self.query_one("#lobby-say", Input)
            say.select_on_focus = False  # the "!" stays, the name is typed after it
            say.focus()
            open_with(say, "!")

    def action_leave(self) -> None:
        # Esc in the chat line only leaves the line; in the host's form it leaves at
        # once (unfocusing a field first took two or three presses, and what was typed
        # in between went into the next field). An open list closes itself first.
        if isinstance(self.focused, Input) and self.focused.id == "lobby-say":
            self.set_focus(None)
            return
        self.post_message(LeaveTable())

    @on(Input.Submitted, "#lobby-say")
    def _say(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.post_message(Say(text))
        event.input.value = ""

    @on(Select.Changed, "#set-game")
    def _game_changed(self, event: Select.Changed) -> None:
        """Another game: its player counts, its bots and its rules in the form."""
        if not isinstance(event.value, str):
            return
        show_game(self, event.value)


    @on(Select.Changed, "#set-bots")
    def _bots_changed(self, event: Select.Changed) -> None:
        show_bots(self, event.value)
        self._refresh()

    @on(Select.Changed, ".set-level-row Select")
    def _level_changed(self, event: Select.Changed) -> None:
        self._refresh()  # the Seats panel names each bot's level

    @on(Select.Changed, "#set-players")
    def _players_changed(self, event: Select.Changed) -> None:
        try:
            bots = self.query_one("#set-bots", Select)
        except NoMatches:
            return  # the form was closed (the table opened) before this change arrived
        players = event.value
        if isinstance(players, int) and isinstance(bots.value, int) and bots.value >= players:
            bots.value = players - 1
        self._refresh()


def _teams_words(rules: SequenceConfig, players: int) -> str:
    """``2 teams of 2``, ``each plays alone``: how a classic table sits."""
    from engine.classic.state import default_teams

    if not players:
        return "by the number of players"
    teams = rules.teams or default_teams(players)
    if teams >= players:
        return "each plays alone"
    return f"{teams} teams of {players // teams}"



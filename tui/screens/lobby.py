"""The lobby: the table's settings, its seats and who is here, chat, and the start.

A host chooses the settings here (every rule of ``RulesConfig`` has a field) and opens
the table; everyone else sees the settings the host announced. The game starts when
every seat is taken; the host may fill the empty seats with bots to start at once.
"""

from __future__ import annotations

import contextlib
from dataclasses import fields, replace
from enum import IntEnum
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.markup import escape
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Input, Label, Select, Static

from engine.bots import BOT_NAMES, LEVELS, canonical
from engine.config import RulesConfig
from engine.errors import ConfigError
from engine.state import Seat
from netplay.topics import check_table_name
from tui import words
from tui.launch import Launch
from tui.messages import CloseTable, FillWithBots, LeaveTable, Problem, Say
from tui.model import SeatPresence, TableModel
from tui.widgets.banner import Banner
from tui.widgets.log import TableLog
from tui.widgets.seats import SeatList

RULE_LABELS: dict[str, str] = {
    "two_player_deck": "2-player deck",
    "first_player": "First player (seat)",
    "hand_size": "Hand size",
    "max_open_piles_per_colour": "Piles per colour (0=any)",
    "forced_play": "Forced play",
    "unlimited_chips": "Unlimited chips",
    "chips_per_colour": "Chips per colour",
    "reshuffle_includes_action_cards": "Reshuffle action cards too",
    "steal_card_from_hand": "Steal a Card from hands",
    "block_from_discard": "Block from your discard",
    "win_chips": "Chips to win",
    "win_min_each_colour": "… of which each colour",
    "steal_chip_win": "Steal a Chip may win",
    "skip_stacking": "Several Skips",
    "skip_timing": "Skips counted",
    "hand_limit": "Hand limit (blank = none)",
    "stalemate_result": "Stalemate",
    "max_turns": "Turn limit",
    "max_plays_per_turn": "Plays per turn (safeguard)",
}
_NULLABLE = {"first_player", "hand_limit"}
OPTION_WORDS: dict[str, str] = {
    "TwoPlayerDeck.GH": "5 cards out, keep Reverses",
    "TwoPlayerDeck.GR": "8 out, Reverses too",
    "TwoPlayerDeck.FULL": "full deck",
    "StealChipWin.ILLEGAL": "no",
    "StealChipWin.NO_WIN_CHECK": "yes (no win check)",
    "SkipStacking.STACK": "each skips one more",
    "SkipStacking.REDUNDANT": "only one counts",
    "SkipStacking.NEXT_LOSES_K": "next loses that many",
    "SkipTiming.FINAL_DIRECTION": "at the turn's end",
    "SkipTiming.AT_PLAY": "when played",
    "StalemateResult.DRAW": "a draw",
    "StalemateResult.MOST_CHIPS": "most chips wins",
}


def option_words(member: IntEnum) -> str:
    return OPTION_WORDS.get(f"{type(member).__name__}.{member.name}",
                            member.name.lower().replace("_", " "))


def rules_summary(rules: RulesConfig) -> str:
    """The settings that differ from the defaults, in words (or "standard rules")."""
    default = RulesConfig()
    changed = []
    for field in fields(RulesConfig):
        value = getattr(rules, field.name)
        if value != getattr(default, field.name):
            shown = option_words(value) if isinstance(value, IntEnum) else value
            changed.append(f"{RULE_LABELS.get(field.name, field.name)}: {shown}")
    return "standard rules" if not changed else "; ".join(changed)


class LobbyScreen(Screen[None]):
    """Waiting for players (and, for a host, choosing the settings first)."""

    CSS_PATH = "lobby.tcss"
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "open_table", "Open table", priority=True),
        Binding("ctrl+b", "fill", "Fill with bots", priority=True),
        Binding("x", "close_table", "Close table"),
        Binding("t", "chat", "Talk"),
        Binding("escape", "leave", "Leave"),
    ]

    seats: reactive[tuple[SeatPresence | None, ...]] = reactive(())
    me: reactive[Seat | None] = reactive(None)
    announce: reactive[dict[str, Any]] = reactive(dict, always_update=True)
    where: reactive[str] = reactive("")
    profile: reactive[str] = reactive("")
    problem: reactive[Problem | None] = reactive(None)
    note: reactive[str] = reactive("")
    """What is wrong with the broker, in words (the session measured it), or ""."""

    def __init__(self, launch: Launch, model: TableModel) -> None:
        super().__init__()
        self.launch = launch
        self.model = model
        self.editing = launch.role == "host" and not launch.table_open
        self._ready = False

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="lobby-title")
        yield Banner(id="lobby-banner")
        with Horizontal(id="lobby-body"):
            with VerticalScroll(id="lobby-settings") as settings:
                settings.border_title = "Table settings"
                if self.editing:
                    yield from self._form()
                else:
                    yield Static(id="lobby-summary")
            with Vertical(id="lobby-people"):
                seats = SeatList(id="lobby-seats")
                seats.border_title = "Seats"
                yield seats
                yield Static(id="lobby-hint")
                log = TableLog(id="lobby-chat")
                log.border_title = "Chat"
                yield log
                yield Input(placeholder="Say something (Enter sends)", id="lobby-say",
                            max_length=500)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._ready = True
        self._refresh()
        if self.editing:
            self.query_one("#set-table" if self.launch.held else "#set-players").focus()

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
            return f"[b]Sequence Stacks[/] · a game against {self.launch.bots} bot(s)"
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
        self.refresh_bindings()

    def _where(self) -> str:
        launch = self.launch
        if launch.ssh and launch.role != "host":
            # Over ssh, the broker's address means nothing to the others: the command does.
            return (f" · others join with: [b]{escape(launch.ssh)} join "
                    f"{escape(launch.table)}[/]")
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
        lines = [
            f"Players      [b]{model.players}[/]",
            f"Block window [b]{model.block_window:g} s[/]",
            f"Turn clock   [b]{words.clock_setting(model.turn_clock)}[/]",
            f"Password     [b]{password}[/]",
            f"Rules        {escape(rules_summary(model.rules))}",
        ]
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
            held = ("[dim]The server holds this table: it goes on if you leave or your "
                    "connection drops; it ends with its game, or when nobody has sat in its "
                    "lobby for a while.[/]\n")
        if not model.players:
            return ""
        empty = sum(1 for s in range(model.players)
                    if s >= len(self.seats) or self.seats[s] is None)
        if not empty:
            return "[b]Every seat is taken: dealing…[/]"
        text = held + f"Waiting for {empty} more player(s)."
        if launch.held:
            text += "\n[b]Ctrl+B[/] fills the empty seats with bots; [b]x[/] closes the " \
                    "table."
        if launch.role == "host":
            key = self.announce.get("host")
            join = f"stacks join {launch.table}"
            if isinstance(key, bytes) and len(key) == 32:
                from netplay.hosts import fingerprint

                join += f"@{fingerprint(key)}"
            if self.where and self.where.startswith("mqtt"):
                join += f" --broker {self.where}"
            text += f"\nOthers join with: [b]{escape(join)}[/]"
            text += "\n[b]Ctrl+B[/] fills the empty seats with bots and starts."
        return text

    # -- the host's form -----------------------------------------------------------------------

    def _form(self) -> ComposeResult:
        launch = self.launch
        if launch.held:
            # No default: a server holds many tables, so each gets a name of its own.
            yield _row("Table name", Input("", id="set-table", max_length=32,
                                           placeholder="e.g. friday", compact=True))
            yield Label("", id="set-error")  # up here, in sight of the name it is about
        yield _row("Players", Select(
            [(str(n), n) for n in range(2, 7)], value=launch.players, allow_blank=False,
            id="set-players", compact=True))
        yield _row("Bots", Select(
            [(str(n), n) for n in range(0, 6)], value=launch.bots, allow_blank=False,
            id="set-bots", compact=True))
        # One level per bot seat (the bots take the last seats), and the stand-in's.
        for index in range(5):
            yield _row(f"Bot {index + 1} level", _level_select(f"set-level-{index}",
                                                               launch.bot_level(index)))
        yield _row("Stand-in for the away", _level_select("set-standin", launch.standin))
        yield _row("Block window (s)", Input(f"{launch.block_window:g}", id="set-window",
                                             type="number", compact=True))
        yield _row("Turn clock (s, 0 off)", Input(f"{launch.turn_clock:g}", id="set-clock",
                                                  type="number", compact=True))
        yield _row("Spectator delay (s)", Input(f"{launch.spectator_delay:g}",
                                                id="set-delay", type="number", compact=True))
        yield _row("Password", Input(launch.password or "", id="set-password",
                                     password=True, placeholder="none", compact=True))
        for field in fields(RulesConfig):
            yield _row(RULE_LABELS.get(field.name, field.name),
                       _rule_widget(field.name, getattr(launch.rules, field.name)))
        if not launch.held:
            yield Label("", id="set-error")

    def _read_form(self) -> Launch | None:
        error = self.query_one("#set-error", Label)
        table = self.launch.table
        try:
            if self.launch.held:
                table = check_table_name(self.query_one("#set-table", Input).value.strip())
            players = int(self.query_one("#set-players", Select).value)  # type: ignore[arg-type]
            bots = int(self.query_one("#set-bots", Select).value)  # type: ignore[arg-type]
            levels = tuple(str(self.query_one(f"#set-level-{i}", Select).value)
                           for i in range(max(bots, 1)))
            standin = str(self.query_one("#set-standin", Select).value)
            window = float(self.query_one("#set-window", Input).value or "3")
            clock = float(self.query_one("#set-clock", Input).value or "0")
            delay = float(self.query_one("#set-delay", Input).value or "0")
            password = self.query_one("#set-password", Input).value or None
            values: dict[str, Any] = {}
            for field in fields(RulesConfig):
                values[field.name] = _read_rule(self, field.name)
            rules = RulesConfig.from_wire(values)
            if bots >= players:
                raise ValueError(f"{bots} bots leave no seat for you at {players} players")
            if not 0 < window <= 60:
                raise ValueError("the block window is more than 0 and at most 60 seconds")
            if not (0 <= clock <= 3600 and 0 <= delay <= 3600):
                raise ValueError("the turn clock and spectator delay are 0 to 3600 seconds")
        except (ValueError, ConfigError) as exc:
            error.update(f"[b]Can't open:[/] {escape(str(exc))}")
            error.scroll_visible()  # it sits under the long form
            return None
        error.update("")
        return replace(self.launch, table=table, players=players, bots=bots,
                       bot_levels=levels, standin=standin, block_window=window,
                       turn_clock=clock, spectator_delay=delay,
                       password=password, rules=rules, table_open=True)

    # -- keys ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_table":
            return self.editing
        if action == "fill":
            return (self.launch.role == "host" or self.launch.held) and not self.editing
        if action == "close_table":
            return self.launch.held and not self.editing
        return True

    async def action_open_table(self) -> None:
        launch = self._read_form()
        if launch is None:
            return
        from tui.app import StacksApp

        if launch.held:
            # The server opens it; we then get a lobby of our own as one of its players.
            app = self.app
            assert isinstance(app, StacksApp)
            self.query_one("#set-error", Label).update("[dim]Asking the server…[/]")
            problem = await app.control.open_held(launch)
            if problem is not None:
                error = self.query_one("#set-error", Label)
                error.update(f"[b]Can't open:[/] {escape(problem)}")
            return
        self.launch = launch
        self.editing = False
        await self.query_one("#lobby-settings", VerticalScroll).remove_children()
        await self.query_one("#lobby-settings", VerticalScroll).mount(Static(id="lobby-summary"))
        self.model.players = launch.players
        app = self.app
        assert isinstance(app, StacksApp)
        await app.control.open_table(launch)
        self._refresh()

    def action_fill(self) -> None:
        self.post_message(FillWithBots())

    def action_close_table(self) -> None:
        self.post_message(CloseTable())

    def action_chat(self) -> None:
        self.query_one("#lobby-say", Input).focus()

    def action_leave(self) -> None:
        if isinstance(self.focused, Input | Select):
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

    @on(Select.Changed, "#set-players")
    def _players_changed(self, event: Select.Changed) -> None:
        try:
            bots = self.query_one("#set-bots", Select)
        except NoMatches:
            return  # the form was closed (the table opened) before this change arrived
        players = event.value
        if isinstance(players, int) and isinstance(bots.value, int) and bots.value >= players:
            bots.value = players - 1


def _row(label: str, widget: Widget) -> Horizontal:
    return Horizontal(Label(escape(label), classes="set-label"), widget, classes="set-row")


LEVEL_WORDS: dict[str, str] = {"easy": "easy", "medium": "medium (greedy)",
                               "hard": "hard (search)"}


def _level_select(ident: str, value: str) -> Select[str]:
    level = canonical(value) if value in BOT_NAMES else "medium"
    return Select([(LEVEL_WORDS[name], name) for name in LEVELS],
                  value=level if level in LEVELS else "medium", allow_blank=False, id=ident,
                  compact=True)


def _rule_widget(name: str, value: object) -> Widget:
    ident = f"rule-{name}"
    if isinstance(value, bool):
        return Select([("yes", 1), ("no", 0)], value=int(value), allow_blank=False, id=ident,
                      compact=True, classes="set-bool")
    if isinstance(value, IntEnum):
        options = [(option_words(m), int(m)) for m in type(value)]
        return Select(options, value=int(value), allow_blank=False, id=ident, compact=True)
    text = "" if value is None else str(value)
    placeholder = "none" if name in _NULLABLE else ""
    return Input(text, id=ident, type="integer", placeholder=placeholder, compact=True)


def _read_rule(screen: LobbyScreen, name: str) -> object:
    widget = screen.query_one(f"#rule-{name}")
    if isinstance(widget, Select):
        value = int(widget.value)  # type: ignore[arg-type]
        return bool(value) if widget.has_class("set-bool") else value
    assert isinstance(widget, Input)
    text = widget.value.strip()
    if not text:
        if name in _NULLABLE:
            return None
        raise ValueError(f"{RULE_LABELS.get(name, name)}: a number, please")
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{RULE_LABELS.get(name, name)}: {text!r} is not a whole number") from None

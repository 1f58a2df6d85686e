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
from engine.classic.board import BOARDS
from engine.classic.config import SequenceConfig
from engine.config import RulesConfig
from engine.errors import ConfigError
from engine.games import GAMES, game_def
from engine.state import Seat
from netplay.topics import check_table_name
from tui import words
from tui.appbase import GameApp
from tui.launch import Launch
from tui.messages import CloseTable, FillWithBots, LeaveTable, Problem, Say
from tui.model import SeatPresence, TableModel
from tui.plural import counted
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


SEQUENCE_RULE_LABELS: dict[str, str] = {
    "board": "Board layout",
    "teams": "Teams (blank = by players)",
    "hand_size": "Hand size (blank = usual)",
    "sequences_to_win": "Sequences to win (blank)",
    "dead_cards_per_turn": "Dead cards per turn",
    "no_play": "With no play",
    "choose_sequences": "Players choose the five",
    "dealer": "Dealer seat (blank = cut)",
    "max_turns": "Turn limit",
}
"""The classic Sequence settings the host form offers (``choose_sequences``: a chip that
completes a longer run asks its player which five make the sequence, on the board)."""
_SEQUENCE_NULLABLE = {"teams", "hand_size", "sequences_to_win", "dealer"}
OPTION_WORDS.update({
    "NoPlay.DISCARD": "discard a card",
    "NoPlay.PASS": "pass",
})
GAME_CHOICES: tuple[tuple[str, str], ...] = tuple(
    (GAMES[name].title, name) for name in ("stacks", "sequence"))
"""The games a host may deal, as the lobby and the menu offer them."""


def rules_summary(rules: Any) -> str:
    """The settings that differ from the defaults, in words (or "standard rules")."""
    default = type(rules)()
    labels = SEQUENCE_RULE_LABELS if isinstance(rules, SequenceConfig) else RULE_LABELS
    changed = []
    for field in fields(rules):
        value = getattr(rules, field.name)
        if value != getattr(default, field.name):
            shown = option_words(value) if isinstance(value, IntEnum) else value
            label = labels.get(field.name, field.name).split(" (")[0]
            changed.append(f"{label}: {shown}")
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
        if getattr(self.app, "kiosk", False):
            self.query_one("#lobby-say", Input).display = False  # a kiosk only watches
        if self.editing:
            self._show_game(self.launch.variant)
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
        text = held + f"Waiting for {counted(empty, 'more player', 'more players')}."
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
        game = game_def(launch.variant)
        # The game first: the rest of the form is that game's. (Focus starts on the next
        # field; Shift+Tab reaches the game.)
        yield _row("Game", Select(list(GAME_CHOICES), value=game.name, allow_blank=False,
                                  id="set-game", compact=True), classes="set-game-row")
        if launch.held:
            # No default: a server holds many tables, so each gets a name of its own.
            yield _row("Table name", Input("", id="set-table", max_length=32,
                                           placeholder="e.g. friday", compact=True))
            yield Label("", id="set-error")  # up here, in sight of the name it is about
        players = launch.players if launch.players in game.player_counts else 4
        yield _row("Players", Select(
            [(str(n), n) for n in game.player_counts], value=players, allow_blank=False,
            id="set-players", compact=True))
        yield _row("Bots", Select(
            [(str(n), n) for n in range(0, max(game.player_counts))],
            value=min(launch.bots, players - 1), allow_blank=False, id="set-bots",
            compact=True))
        # One level per bot seat (the bots take the last seats), and the stand-in's.
        for index in range(5):
            yield _row(f"Bot {index + 1} level", _level_select(
                f"set-level-{index}", launch.bot_level(index), game.name))
        yield _row("Stand-in for the away", _level_select("set-standin", launch.standin))
        yield _row("Block window (s)", Input(f"{launch.block_window:g}", id="set-window",
                                             type="number", compact=True),
                   classes="stacks-only")
        yield _row("Turn clock (s, 0 off)", Input(f"{launch.turn_clock:g}", id="set-clock",
                                                  type="number", compact=True))
        yield _row("Spectator delay (s)", Input(f"{launch.spectator_delay:g}",
                                                id="set-delay", type="number", compact=True))
        yield _row("Password", Input(launch.password or "", id="set-password",
                                     password=True, placeholder="none", compact=True))
        stacks_rules = launch.rules if isinstance(launch.rules, RulesConfig) else RulesConfig()
        for field in fields(RulesConfig):
            yield _row(RULE_LABELS.get(field.name, field.name),
                       _rule_widget(field.name, getattr(stacks_rules, field.name)),
                       classes="stacks-only")
        classic = launch.rules if isinstance(launch.rules, SequenceConfig) else SequenceConfig()
        for name, label in SEQUENCE_RULE_LABELS.items():
            yield _row(label, _rule_widget(name, getattr(classic, name), prefix="srule"),
                       classes="sequence-only")
        if not launch.held:
            yield Label("", id="set-error")

    def _read_form(self) -> Launch | None:
        error = self.query_one("#set-error", Label)
        table = self.launch.table
        try:
            if self.launch.held:
                table = check_table_name(self.query_one("#set-table", Input).value.strip())
            game = game_def(str(self.query_one("#set-game", Select).value))
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
            rules: Any
            if game.name == "stacks":
                for field in fields(RulesConfig):
                    values[field.name] = _read_rule(self, field.name)
                rules = RulesConfig.from_wire(values)
            else:
                for name in SEQUENCE_RULE_LABELS:
                    values[name] = _read_rule(self, name, prefix="srule")
                rules = game.config_from_wire(values)
                game.new_state(rules, players)  # teams and dealer for this many, in words
                unknown = [level for level in levels[:bots] if level not in game.bot_names]
                if unknown:
                    raise ValueError(f"{game.title} has no {unknown[0]} bot yet; choose from "
                                     f"{', '.join(game.bot_names)}")
            game.check_players(players)
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
                       turn_clock=clock, spectator_delay=delay, variant=game.name,
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
        await self.query_one("#lobby-settings", VerticalScroll).remove_children()
        await self.query_one("#lobby-settings", VerticalScroll).mount(Static(id="lobby-summary"))
        self.model.players = launch.players
        app = self.app
        assert isinstance(app, GameApp)
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

    @on(Select.Changed, "#set-game")
    def _game_changed(self, event: Select.Changed) -> None:
        """Another game: its player counts, its bots and its rules in the form."""
        if not isinstance(event.value, str):
            return
        self._show_game(event.value)

    def _show_game(self, name: str) -> None:
        game = game_def(name)
        try:
            players = self.query_one("#set-players", Select)
        except NoMatches:
            return
        self.set_class(name != "stacks", "-classic")
        for row in self.query(".stacks-only"):
            row.display = name == "stacks"
        for row in self.query(".sequence-only"):
            row.display = name != "stacks"
        current = players.value if isinstance(players.value, int) else 4
        value = current if current in game.player_counts else \
            min(game.player_counts, key=lambda n: abs(n - current))
        players.set_options([(str(n), n) for n in game.player_counts])
        players.value = value
        levels = _levels_of(name)
        for index in range(5):
            select = self.query_one(f"#set-level-{index}", Select)
            was = select.value
            select.set_options([(LEVEL_WORDS.get(level, level), level) for level in levels])
            select.value = was if was in levels else "medium" if "medium" in levels \
                else levels[0]

    @on(Select.Changed, "#set-players")
    def _players_changed(self, event: Select.Changed) -> None:
        try:
            bots = self.query_one("#set-bots", Select)
        except NoMatches:
            return  # the form was closed (the table opened) before this change arrived
        players = event.value
        if isinstance(players, int) and isinstance(bots.value, int) and bots.value >= players:
            bots.value = players - 1


def _row(label: str, widget: Widget, classes: str = "") -> Horizontal:
    return Horizontal(Label(escape(label), classes="set-label"), widget,
                      classes=f"set-row {classes}".strip())


def _teams_words(rules: SequenceConfig, players: int) -> str:
    """``2 teams of 2``, ``each plays alone``: how a classic table sits."""
    from engine.classic.state import default_teams

    if not players:
        return "by the number of players"
    teams = rules.teams or default_teams(players)
    if teams >= players:
        return "each plays alone"
    return f"{teams} teams of {players // teams}"


def _levels_of(game: str) -> tuple[str, ...]:
    """The bot levels a game has, easiest first (Stacks' three, or the game's own)."""
    if game == "stacks":
        return LEVELS
    names = game_def(game).bot_names
    return tuple(level for level in LEVELS if level in names) or names


LEVEL_WORDS: dict[str, str] = {"easy": "easy", "medium": "medium (greedy)",
                               "hard": "hard (search)"}


def _level_select(ident: str, value: str, game: str = "stacks") -> Select[str]:
    levels = _levels_of(game)
    level = canonical(value) if value in BOT_NAMES else "medium"
    return Select([(LEVEL_WORDS.get(name, name), name) for name in levels],
                  value=level if level in levels else levels[-1], allow_blank=False, id=ident,
                  compact=True)


def _rule_widget(name: str, value: object, prefix: str = "rule") -> Widget:
    ident = f"{prefix}-{name}"
    if name == "board" and prefix == "srule":
        return Select([(board, board) for board in BOARDS], value=str(value),
                      allow_blank=False, id=ident, compact=True, classes="set-text")
    if isinstance(value, bool):
        return Select([("yes", 1), ("no", 0)], value=int(value), allow_blank=False, id=ident,
                      compact=True, classes="set-bool")
    if isinstance(value, IntEnum):
        options = [(option_words(m), int(m)) for m in type(value)]
        return Select(options, value=int(value), allow_blank=False, id=ident, compact=True)
    text = "" if value is None else str(value)
    nullable = _SEQUENCE_NULLABLE if prefix == "srule" else _NULLABLE
    placeholder = "usual" if prefix == "srule" and name in nullable else \
        "none" if name in nullable else ""
    return Input(text, id=ident, type="integer", placeholder=placeholder, compact=True)


def _read_rule(screen: LobbyScreen, name: str, prefix: str = "rule") -> object:
    widget = screen.query_one(f"#{prefix}-{name}")
    labels = SEQUENCE_RULE_LABELS if prefix == "srule" else RULE_LABELS
    nullable = _SEQUENCE_NULLABLE if prefix == "srule" else _NULLABLE
    label = labels.get(name, name).split(" (")[0]
    if isinstance(widget, Select):
        if widget.has_class("set-text"):
            return str(widget.value)
        value = int(widget.value)  # type: ignore[arg-type]
        return bool(value) if widget.has_class("set-bool") else value
    assert isinstance(widget, Input)
    text = widget.value.strip()
    if not text:
        if name in nullable:
            return None
        raise ValueError(f"{label}: a number, please")
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{label}: {text!r} is not a whole number") from None

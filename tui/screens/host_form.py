"""The host's form in the lobby: every setting of a table as a field, read back into a
:class:`tui.launch.Launch`, and the settings in words (``rules_summary``).

The lobby (``tui.screens.lobby``) shows the form while the host edits it; what is here
builds its rows, reads them and switches them between the games.
"""

from __future__ import annotations

from dataclasses import fields, replace
from enum import IntEnum
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.markup import escape
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Label, Select

from engine.bots import BOT_NAMES, LEVELS, canonical
from engine.classic.board import BOARDS
from engine.classic.config import SequenceConfig
from engine.config import RulesConfig
from engine.games import GAMES, game_def
from netplay.topics import check_table_name
from tui.launch import Launch
from tui.model import SeatPresence

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
    "TwoPlayerDeck.GH": "5 out, keep Reverses",
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

def rules_changed(rules: Any) -> list[tuple[str, str]]:
    """The settings that differ from the defaults: (label, value), in the form's words."""
    default = type(rules)()
    labels = SEQUENCE_RULE_LABELS if isinstance(rules, SequenceConfig) else RULE_LABELS
    changed = []
    for field in fields(rules):
        value = getattr(rules, field.name)
        if value != getattr(default, field.name):
            if isinstance(value, bool):
                shown = "yes" if value else "no"  # as the form offers it
            elif isinstance(value, IntEnum):
                shown = option_words(value)
            else:
                shown = str(value)
            changed.append((labels.get(field.name, field.name).split(" (")[0], shown))
    return changed


def rules_summary(rules: Any) -> str:
    """The settings that differ from the defaults, in words (or "standard rules")."""
    changed = rules_changed(rules)
    return "standard rules" if not changed else "; ".join(f"{k}: {v}" for k, v in changed)


def rules_lines(rules: Any, width: int) -> list[str]:
    """The changed settings a line each, for a column ``width`` wide: ``label: value``,
    or, where that is too long, the value on a line of its own under its label, so that
    an option's words ("5 out, keep Reverses") are never split between lines."""
    lines = []
    for label, value in rules_changed(rules):
        line = f"  {label}: {value}"
        if len(line) <= width:
            lines.append(line)
        else:
            lines += [f"  {label}:", f"    {value}"]
    return lines

def _row(label: str, widget: Widget, classes: str = "") -> Horizontal:
    return Horizontal(Label(escape(label), classes="set-label"), widget,
                      classes=f"set-row {classes}".strip())

def _wide(widget: Widget) -> str:
    """A row whose options are phrases ("each skips one more"): its field goes under its
    label, the column's width, so that no option's words wrap (tui/screens/lobby.tcss)."""
    return " set-wide-row" if widget.has_class("set-words") else ""

def _levels_of(game: str) -> tuple[str, ...]:
    """The bot levels a game has, easiest first (Stacks' three, or the game's own)."""
    if game == "stacks":
        return LEVELS
    names = game_def(game).bot_names
    return tuple(level for level in LEVELS if level in names) or names

LEVEL_WORDS: dict[str, str] = {"easy": "easy", "medium": "medium", "hard": "hard"}
"""A level as the form offers it: one word, which fits the narrow field at 80x24 (the
help and the README say what each level plays like)."""

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
        return Select(options, value=int(value), allow_blank=False, id=ident, compact=True,
                      classes="set-words")
    text = "" if value is None else str(value)
    nullable = _SEQUENCE_NULLABLE if prefix == "srule" else _NULLABLE
    placeholder = "usual" if prefix == "srule" and name in nullable else \
        "none" if name in nullable else ""
    return Input(text, id=ident, type="integer", placeholder=placeholder, compact=True)

def _read_rule(screen: Screen[None], name: str, prefix: str = "rule") -> object:
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


def form_rows(launch: Launch) -> ComposeResult:
    """The host's form, row by row: the game first, then the table and that game's rules."""
    game = game_def(launch.variant)
    # The game first: the rest of the form is that game's. (Focus starts on the next
    # field; Shift+Tab reaches the game.)
    yield _row("Game", Select(list(GAME_CHOICES), value=game.name, allow_blank=False,
                              id="set-game", compact=True), classes="set-game-row")
    if launch.held:
        # No default: a server holds many tables, so each gets a name of its own.
        yield _row("Table name", Input("", id="set-table", max_length=32,
                                       placeholder="e.g. friday", compact=True),
                   classes="set-short-row")
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
            f"set-level-{index}", launch.bot_level(index), game.name),
            classes=f"set-level-row set-level-{index}-row")
    if launch.engine_choices:
        # The engines the ssh server's operator registered: an opponent of its own seat.
        chosen = launch.engines[0][0] if launch.engines else ""
        yield _row("Engine opponent", Select(
            [("none", ""), *((name, name) for name in launch.engine_choices)],
            value=chosen if chosen in launch.engine_choices else "", allow_blank=False,
            id="set-engine", compact=True))
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
        widget = _rule_widget(field.name, getattr(stacks_rules, field.name))
        yield _row(RULE_LABELS.get(field.name, field.name), widget,
                   classes=f"stacks-only{_wide(widget)}")
    classic = launch.rules if isinstance(launch.rules, SequenceConfig) else SequenceConfig()
    for name, label in SEQUENCE_RULE_LABELS.items():
        widget = _rule_widget(name, getattr(classic, name), prefix="srule")
        yield _row(label, widget, classes=f"sequence-only{_wide(widget)}")
    if not launch.held:
        yield Label("", id="set-error")


def read_form(screen: Screen[None], launch: Launch) -> Launch:
    """The launch the form describes, or ``ValueError`` / ``ConfigError`` saying what is
    wrong, in words."""
    table = launch.table
    if launch.held:
        table = check_table_name(screen.query_one("#set-table", Input).value.strip())
    game = game_def(str(screen.query_one("#set-game", Select).value))
    players = int(screen.query_one("#set-players", Select).value)  # type: ignore[arg-type]
    bots = int(screen.query_one("#set-bots", Select).value)  # type: ignore[arg-type]
    levels = tuple(str(screen.query_one(f"#set-level-{i}", Select).value)
                   for i in range(max(bots, 1)))
    standin = str(screen.query_one("#set-standin", Select).value)
    window = float(screen.query_one("#set-window", Input).value or "3")
    clock = float(screen.query_one("#set-clock", Input).value or "0")
    delay = float(screen.query_one("#set-delay", Input).value or "0")
    password = screen.query_one("#set-password", Input).value or None
    values: dict[str, Any] = {}
    rules: Any
    if game.name == "stacks":
        for field in fields(RulesConfig):
            values[field.name] = _read_rule(screen, field.name)
        rules = RulesConfig.from_wire(values)
    else:
        for name in SEQUENCE_RULE_LABELS:
            values[name] = _read_rule(screen, name, prefix="srule")
        rules = game.config_from_wire(values)
        game.new_state(rules, players)  # teams and dealer for this many, in words
        unknown = [level for level in levels[:bots] if level not in game.bot_names]
        if unknown:
            raise ValueError(f"{game.title} has no {unknown[0]} bot yet; choose from "
                             f"{', '.join(game.bot_names)}")
    game.check_players(players)
    engines: tuple[tuple[str, tuple[str, ...]], ...] = launch.engines
    if launch.engine_choices:
        engine = str(screen.query_one("#set-engine", Select).value or "")
        engines = ((engine, ()),) if engine else ()
    if bots + len(engines) >= players:
        seats = f"{bots} bots" + (" and an engine" if engines else "")
        raise ValueError(f"{seats} leave no seat for you at {players} players")
    if not 0 < window <= 60:
        raise ValueError("the block window is more than 0 and at most 60 seconds")
    if not (0 <= clock <= 3600 and 0 <= delay <= 3600):
        raise ValueError("the turn clock and spectator delay are 0 to 3600 seconds")
    return replace(launch, table=table, players=players, bots=bots, engines=engines,
                   bot_levels=levels, standin=standin, block_window=window,
                   turn_clock=clock, spectator_delay=delay, variant=game.name,
                   password=password, rules=rules, table_open=True)


def show_game(screen: Screen[None], name: str) -> None:
    """Make the form ``name``'s: its player counts, its bots and its rules."""
    game = game_def(name)
    try:
        players = screen.query_one("#set-players", Select)
    except NoMatches:
        return
    screen.set_class(name != "stacks", "-classic")
    for row in screen.query(".stacks-only"):
        row.display = name == "stacks"
    for row in screen.query(".sequence-only"):
        row.display = name != "stacks"
    current = players.value if isinstance(players.value, int) else 4
    value = current if current in game.player_counts else \
        min(game.player_counts, key=lambda n: abs(n - current))
    players.set_options([(str(n), n) for n in game.player_counts])
    players.value = value
    levels = _levels_of(name)
    for index in range(5):
        select = screen.query_one(f"#set-level-{index}", Select)
        was = select.value
        select.set_options([(LEVEL_WORDS.get(level, level), level) for level in levels])
        select.value = was if was in levels else "medium" if "medium" in levels \
            else levels[0]


def show_bots(screen: Screen[None], bots: object) -> None:
    """One level row per bot: none when there are no bots."""
    count = bots if isinstance(bots, int) else 0
    for index in range(5):
        for row in screen.query(f".set-level-{index}-row"):
            row.display = index < count


def seats_preview(screen: Screen[None], launch: Launch,
                  ) -> tuple[int, tuple[SeatPresence | None, ...]]:
    """The seats the form's table will have, as the Seats panel shows them before it
    opens: you in the first, the bots chosen in the last ones (each with its level, as the
    host names them), the rest empty. ``(0, ())`` when the form can't be read yet."""
    try:
        players = screen.query_one("#set-players", Select).value
        bots = screen.query_one("#set-bots", Select).value
    except NoMatches:
        return 0, ()
    if not isinstance(players, int) or not isinstance(bots, int):
        return 0, ()
    bots = max(0, min(bots, players - 1))
    seats: list[SeatPresence | None] = [None] * players
    seats[0] = SeatPresence(launch.display_name(), bot=False, present=True, standin=False)
    first_bot = players - bots
    for index in range(bots):
        try:
            level = screen.query_one(f"#set-level-{index}", Select).value
        except NoMatches:
            level = "medium"
        word = LEVEL_WORDS.get(str(level), str(level)) if isinstance(level, str) else "bot"
        seat = first_bot + index
        seats[seat] = SeatPresence(f"Bot {seat + 1} ({word})", bot=True, present=True,
                                   standin=False)
    return players, tuple(seats)

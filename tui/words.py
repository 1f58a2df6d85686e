"""Cards and events in words (and Textual markup): what a person reads on the table.

Colour is never the only cue: every card carries its code (``R4``, ``BW``) or its
action's name, and every event is a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from textual.markup import escape

from engine.cards import FACES, HIDDEN, CardId, Colour, Kind
from engine.events import (
    ActionPlayed,
    CardDiscarded,
    CardPlayed,
    CardsDrawn,
    CardTaken,
    ChipAwarded,
    ChipTaken,
    DrawPileFormed,
    Event,
    GameOver,
    PileBlocked,
    PileCleared,
    PileCompleted,
    Reshuffled,
    SkipsGiven,
    TurnSkipped,
    TurnStarted,
)
from engine.state import Outcome, PileId, Seat, State, Termination, Zone, pile_name
from netplay.clock import Wait

RED = "#b22222"
"""Firebrick: on 8- and 16-colour terminals it becomes red (SGR 31/41), not yellow."""
BLUE = "#2f62b3"
BLUE_WORD = "#6a96e6"
"""Blue text on a dark background (on 8 and 16 colours: bright blue, not white)."""
ACTION = "#c8a020"
_STYLE = {
    Colour.RED: f"bold #ffffff on {RED}",
    Colour.BLUE: f"bold #ffffff on {BLUE}",
}
_ACTION_STYLE = f"bold #1b1b1b on {ACTION}"
_HIDDEN_STYLE = "#b0b0b0 on #404040"

SHORT_ACTION = {
    Kind.SKIP: "Skip",
    Kind.REVERSE: "Reverse",
    Kind.STEAL_CARD: "Steal card",
    Kind.STEAL_CHIP: "Steal chip",
    Kind.BLOCK: "Block",
}


def card_code(card: CardId) -> str:
    """``R4``, ``BW``, ``Skip``, ``Steal card``; ``??`` for a hidden card."""
    if card == HIDDEN:
        return "??"
    face = FACES[card]
    if face.kind.is_action:
        return SHORT_ACTION[face.kind]
    return face.code


def card_style(card: CardId) -> str:
    if card == HIDDEN:
        return _HIDDEN_STYLE
    face = FACES[card]
    if face.colour is None:
        return _ACTION_STYLE
    return _STYLE[face.colour]


def card(card: CardId, *, label: str | None = None, extra: str = "") -> str:
    """Markup for one card: its code on its colour, with a space each side."""
    text = escape(label if label is not None else card_code(card))
    style = card_style(card) + (f" {extra}" if extra else "")
    return f"[{style}] {text} [/]"


def colour_chip(colour: Colour, count: int | None = None) -> str:
    """``R2`` on red: a chip count that also reads without colour."""
    text = colour.letter if count is None else f"{colour.letter}{count}"
    return f"[{_STYLE[colour]}]{text}[/]"


def colour_word(colour: Colour) -> str:
    return f"[bold {RED if colour is Colour.RED else BLUE_WORD}]{colour.title}[/]"


def chips(red: int, blue: int) -> str:
    return f"{colour_chip(Colour.RED, red)} {colour_chip(Colour.BLUE, blue)}"


def outcome_text(outcome: Outcome, names: Sequence[str], me: Seat | None = None) -> str:
    if outcome.winner is not None:
        if outcome.winner == me:
            return "You win!"
        who = names[outcome.winner] if outcome.winner < len(names) else f"Seat {outcome.winner + 1}"
        return f"{who} wins"
    if outcome.termination == Termination.STALEMATE:
        return "A draw: nothing left to draw and nobody could play"
    return "A draw: the turn limit was reached"


_BOT_NAME = re.compile(r"(Bot [0-9]+) \((random|greedy|easy|medium|hard)\)")


def short_name(name: str) -> str:
    """``Bot 3`` for the host's ``Bot 3 (medium)``: the presence column says "bot"."""
    match = _BOT_NAME.fullmatch(name)
    return match.group(1) if match else name


class Narrator:
    """Turns events into lines for the table's log (Textual markup, one line each).

    It remembers each pile's colour and name (the engine's, worked out as the engine
    does when a pile opens) and who completed the last pile, so that a later event can say
    "Ana completed Red pile c — blocked by Bo".
    """

    def __init__(self, names: Sequence[str], me: Seat | None) -> None:
        self.names = tuple(names)
        self.me = me
        self.pile_colour: dict[PileId, Colour] = {}
        self.completed_by: dict[PileId, Seat] = {}
        self.pile_names: dict[PileId, str] = {}
        self.windowed: set[PileId] = set()
        """Completed piles that opened a Block window."""
        self.open: dict[PileId, str] = {}
        """Names of the piles open now (a new pile's name is the first free one)."""

    def who(self, seat: Seat) -> str:
        if seat == self.me:
            return "[b]You[/]"
        name = self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"
        return f"[b]{escape(name)}[/]"

    def whose(self, seat: Seat, *, start: bool = False) -> str:
        """``your`` / ``Ana's`` (``Your`` at the start of a sentence)."""
        if seat == self.me:
            return "[b]Your[/]" if start else "[b]your[/]"
        return f"{self.who(seat)}'s"

    def learn(self, view: State) -> None:
        """Take pile colours from a view (after a snapshot)."""
        piles = list(view.piles)
        if view.window is not None:
            piles.append(view.window.pile)
            self.completed_by[view.window.pile.id] = view.window.seat
        self.open = {}
        for pile in piles:
            self.pile_colour[pile.id] = pile.colour
            self.pile_names[pile.id] = self.open[pile.id] = pile.name

    def name_of(self, pile: PileId) -> str:
        name = self.pile_names.get(pile)
        if name is None:  # a pile opened before we knew the table: its usual name
            name = self.pile_names[pile] = pile_name(pile, set(self.open.values()))
        return name

    def _pile(self, pile: PileId) -> str:
        colour = self.pile_colour.get(pile)
        name = self.name_of(pile)
        return f"{colour_word(colour)} pile {name}" if colour is not None else f"pile {name}"

    def _opened(self, pile: PileId, colour: Colour) -> None:
        if pile not in self.pile_names:
            self.pile_names[pile] = pile_name(pile, set(self.open.values()))
        self.pile_colour[pile] = colour
        self.open[pile] = self.pile_names[pile]

    def describe(self, event: Event) -> str | None:
        """One line for ``event``, or ``None`` for events not worth a line."""
        if isinstance(event, TurnStarted):
            return f"[dim]──[/] {self.whose(event.seat, start=True)} turn [dim]──[/]"
        if isinstance(event, TurnSkipped):
            return f"{self.whose(event.seat, start=True)} turn is skipped"
        if isinstance(event, CardPlayed):
            face = FACES[event.card]
            assert face.colour is not None
            # A player plays from its own discard pile: whose, said all the same.
            source = f" from {self.whose(event.seat)} discard" \
                if event.zone == Zone.DISCARD else ""
            if event.opens:
                self._opened(event.pile, face.colour)
                return f"{self.who(event.seat)} started {self._pile(event.pile)} " \
                       f"with{card(event.card)}{source}"
            self.pile_colour[event.pile] = face.colour
            return f"{self.who(event.seat)} played{card(event.card)}on " \
                   f"{self._pile(event.pile)}{source}"
        if isinstance(event, ActionPlayed):
            kind = FACES[event.card].kind
            if kind in (Kind.STEAL_CARD, Kind.STEAL_CHIP):
                return None  # told with what was taken
            return f"{self.who(event.seat)} played{card(event.card)}"
        if isinstance(event, CardTaken):
            return self._taken(event)
        if isinstance(event, ChipTaken):
            return f"{self.who(event.seat)} played{card(_FIRST_STEAL_CHIP)}and took a " \
                   f"{colour_word(event.colour)} chip from {self.who(event.target)}"
        if isinstance(event, PileCompleted):
            self.completed_by[event.pile] = event.seat
            if event.eligible:
                self.windowed.add(event.pile)
            tail = " — Block window open" if event.eligible else ""
            return f"{self.who(event.seat)} completed {self._pile(event.pile)}{tail}"
        if isinstance(event, PileBlocked):
            by = self.completed_by.get(event.pile)
            completer = self.who(by) if by is not None else "Someone"
            line = f"{completer} completed {self._pile(event.pile)} — " \
                   f"[b]blocked[/] by {self.who(event.seat)}"
            self.open.pop(event.pile, None)
            return line
        if isinstance(event, PileCleared):
            line = f"{self._pile(event.pile)} goes out of play"
            if event.pile in self.windowed:
                line = f"The Block window closed with no Block: {line}"
            self.open.pop(event.pile, None)
            return line
        if isinstance(event, ChipAwarded):
            return f"{self.who(event.seat)} took a {colour_word(event.colour)} chip"
        if isinstance(event, CardDiscarded):
            return f"{self.who(event.seat)} discarded{card(event.card)}"
        if isinstance(event, CardsDrawn):
            if event.seat != self.me:
                return None
            drawn = "".join(card(c) for c in event.cards)
            return f"You drew{drawn}"
        if isinstance(event, SkipsGiven):
            counted: dict[Seat, int] = {}
            for seat in event.seats:
                counted[seat] = counted.get(seat, 0) + 1
            parts = [
                f"{self.who(seat)} will miss {'a turn' if n == 1 else f'{n} turns'}"
                for seat, n in counted.items()
            ]
            return "; ".join(parts)
        if isinstance(event, Reshuffled):
            return f"The out-of-play cards became a new draw pile ({len(event.cards)} cards)"
        if isinstance(event, DrawPileFormed):
            return "The cards are dealt"
        if isinstance(event, GameOver):
            outcome = Outcome(event.termination, event.winner)
            return f"[b]Game over: {escape(outcome_text(outcome, self.names, self.me))}[/]"
        return None

    def _taken(self, event: CardTaken) -> str:
        thief = self.who(event.seat)
        steal = card(_FIRST_STEAL_CARD)
        if event.zone == Zone.DISCARD:
            where = f"{self.whose(event.target)} discard"
            return f"{thief} played{steal}and took{card(event.card)}from {where}"
        what = card(event.card) if event.card != HIDDEN else " a card "
        return f"{thief} played{steal}and took{what}from {self.whose(event.target)} hand"

    def race(self, pile: PileId, winner: Seat | None,
             presses: Sequence[tuple[Seat, str, float, str]]) -> str | None:
        """The press queue of a Block race, when anyone pressed Block."""
        if not any(kind == "block" for _, kind, _, _ in presses):
            return None
        parts = []
        for seat, kind, offset, result in sorted(presses, key=lambda p: p[2]):
            verb = "Block" if kind == "block" else "pass"
            parts.append(f"{self.who(seat)} {verb} {offset / 1000:.2f} s ({result})")
        return "Block race: " + " · ".join(parts)


_FIRST_STEAL_CARD = next(i for i, f in enumerate(FACES) if f.kind is Kind.STEAL_CARD)
_FIRST_STEAL_CHIP = next(i for i, f in enumerate(FACES) if f.kind is Kind.STEAL_CHIP)


def card_box(card_id: CardId, *, key: str = "", selected: bool = False,
             playable: bool = False, click: str = "", narrow: bool = False,
             ) -> tuple[str, str, str]:
    """A card three lines tall (for roomy terminals): a frame, its code, its key below.

    The selected card gets a heavy frame; a playable card a bold frame with a ``•`` on
    top (the others a dim frame): the cue reads without colour. ``narrow`` cards (a pile's)
    are just as wide as their code, so that five fit beside a pile's name.
    """
    label = card_code(card_id)
    inner = len(label) if narrow else max(4, len(label) + 2)
    tl, h, tr, v, bl, br = ("┏", "━", "┓", "┃", "┗", "┛") if selected else \
        ("╭", "─", "╮", "│", "╰", "╯")
    frame = "b" if selected or playable else "dim"
    if narrow:
        face = f"[{card_style(card_id)}]{escape(label)}[/]"
    else:
        face = card(card_id, label=label.center(inner - 2))
    top = h * inner
    if playable:
        top = h + "•" + h * (inner - 2)
    if key:
        left = (inner - len(key)) // 2
        right = inner - left - len(key)
        bottom = h * left + f"[/][b reverse]{escape(key)}[/][{frame}]" + h * right
    else:
        bottom = h * inner
    lines = (
        f"[{frame}]{tl}{top}{tr}[/]",
        f"[{frame}]{v}[/]{face}[{frame}]{v}[/]",
        f"[{frame}]{bl}{bottom}{br}[/]",
    )
    if click:
        return tuple(f"[@click={click}]{line}[/]" for line in lines)  # type: ignore[return-value]
    return lines


def join_boxes(boxes: Sequence[tuple[str, str, str]], gap: str = " ") -> str:
    """Put three-line cards side by side."""
    if not boxes:
        return ""
    return "\n".join(gap.join(box[row] for box in boxes) for row in range(3))


# -- the clock and whom the table waits for -------------------------------------------------


def clock_setting(seconds: float) -> str:
    """The turn clock as a setting: ``off`` or ``60 s a turn``."""
    return "off" if seconds <= 0 else f"{seconds:g} s a turn"


def _secs(value: float) -> str:
    return f"{max(0, int(value + 0.5))} s"


def wait_line(waits: Sequence[Wait], names: Sequence[str], me: Seat | None,
              host_silent: float | None = None, behind: float = 0.0) -> str:
    """Whom the table waits for and how long, in words: "waiting for bob — away 12 s, bot
    plays in 8 s"; "host not responding 6 s". Empty when nobody is slow or on a clock.
    A spectator of a table with a spectator delay (``behind`` seconds) is told that
    instead: "6 s behind the players" (whom the live table waits for is not its game)."""
    if behind > 0:
        late = f"{behind:g} s behind the players"
        if host_silent is not None and host_silent >= 2:
            return f"{late} · host not responding {_secs(host_silent)}"
        return late
    if host_silent is not None and host_silent >= 2:
        return f"host not responding {_secs(host_silent)}"
    parts: list[str] = []
    for wait in waits[:3]:
        mine = wait.seat == me
        who = "you" if mine else (names[wait.seat] if 0 <= wait.seat < len(names)
                                  else f"seat {wait.seat + 1}")
        if wait.away is not None:
            bot = ("a bot plays for them" if wait.bot_in is not None and wait.bot_in < 0.5
                   else f"bot plays in {_secs(wait.bot_in)}" if wait.bot_in is not None
                   else "")
            parts.append(f"waiting for {who} — away {_secs(wait.away)}"
                         + (f", {bot}" if bot else ""))
        elif wait.left is not None:
            then = ", then a bot plays" if wait.bot_in is not None else ""
            if mine:
                parts.append(f"{_secs(wait.left)} left for you{then}")
            else:
                parts.append(f"waiting for {who} — {_secs(wait.left)} left{then}")
    return "; ".join(parts)


def broker_line(text: str) -> str:
    """The session's word about a slow broker (``tui.messages.BrokerNote``), as markup."""
    return f"[b]Slow broker:[/] {escape(text)}"

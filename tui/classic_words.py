"""Classic Sequence in words and markup: cards, chips, teams and events as people read them.

As for Sequence Stacks (:mod:`tui.words`), colour is never the only cue: a card is its
code (``QH``, ``TS``; ``T`` is the ten), a chip is its team's letter (``B``, ``G``,
``R``) on its team's colour, and every event is a sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.markup import escape

from engine.classic.board import cell_name
from engine.classic.cards import FACES, HIDDEN, CardId, JackKind, Suit
from engine.classic.events import (
    CardDiscarded,
    CardsDrawn,
    ChipPlaced,
    ChipRemoved,
    DeadCardExchanged,
    DealerCut,
    DrawPileFormed,
    GameOver,
    Reshuffled,
    SequenceEvent,
    SequenceMade,
    TurnPassed,
    TurnStarted,
)
from engine.classic.state import TEAM_COLOURS, TEAM_LETTERS, SequenceState, Team
from engine.state import Outcome, Seat, Termination

TEAM_BG: tuple[str, ...] = ("#2f62b3", "#2e7d32", "#b22222")
"""Chip colours of the teams (blue, green, red); 8- and 16-colour terminals map them to
blue, green and red."""
TEAM_TEXT: tuple[str, ...] = ("#6a96e6", "#5cb85c", "#e05050")
"""The team colours as text on a dark background."""
RED_SUIT = "#e05050"
HIDDEN_STYLE = "#b0b0b0 on #404040"

JACK_WORDS: dict[JackKind, str] = {
    JackKind.TWO_EYED: "wild",
    JackKind.ONE_EYED: "remove",
}
"""What a jack does, in one word (the hand shows it under the card)."""


def code(card: CardId) -> str:
    """``QH``, ``TS`` (``T`` for 10), ``JD``; ``??`` for a hidden card."""
    if card == HIDDEN:
        return "??"
    return short_code(FACES[card].code)


def short_code(board_code: str) -> str:
    """A board code in two characters: ``10H`` is ``TH``."""
    return "T" + board_code[2:] if board_code.startswith("10") else board_code


def suit_style(card: CardId) -> str:
    if card == HIDDEN:
        return HIDDEN_STYLE
    return f"bold {RED_SUIT}" if FACES[card].suit in (Suit.HEARTS, Suit.DIAMONDS) else "bold"


def card(card: CardId, extra: str = "") -> str:
    """Markup for one card: its code in its suit's colour (red hearts and diamonds)."""
    style = suit_style(card) + (f" {extra}" if extra else "")
    return f"[{style}]{escape(code(card))}[/]"


def card_words(card: CardId) -> str:
    """``Queen of Hearts``, ``Jack of Spades (one-eyed)``."""
    return "a hidden card" if card == HIDDEN else FACES[card].name


def team_letter(team: Team) -> str:
    return TEAM_LETTERS[team] if 0 <= team < len(TEAM_LETTERS) else "?"


def team_title(team: Team) -> str:
    return TEAM_COLOURS[team] if 0 <= team < len(TEAM_COLOURS) else f"Team {team + 1}"


def chip(team: Team, text: str | None = None) -> str:
    """A chip: its team's letter, white on the team colour."""
    shown = team_letter(team) if text is None else text
    bg = TEAM_BG[team] if 0 <= team < len(TEAM_BG) else "#606060"
    return f"[bold #ffffff on {bg}]{escape(shown)}[/]"


def team_word(team: Team) -> str:
    """``Blue`` in blue, with its letter: ``B Blue``."""
    colour = TEAM_TEXT[team] if 0 <= team < len(TEAM_TEXT) else "#c0c0c0"
    return f"{chip(team)} [bold {colour}]{team_title(team)}[/]"


def team_members(view: SequenceState, team: Team, names: Sequence[str],
                 me: Seat | None) -> str:
    return ", ".join("You" if s == me else _name(names, s) for s in view.members(team))


def _name(names: Sequence[str], seat: Seat) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"


def outcome_text(outcome: Outcome, view: SequenceState, names: Sequence[str],
                 me: Seat | None = None) -> str:
    """``Blue wins (Ana, Cy)``, ``You win!``, or why it was a draw. The winner of a classic
    game is a team."""
    winner = outcome.winner
    if winner is not None:
        members = view.members(winner) if 0 <= winner < view.teams else ()
        mine = me is not None and me in members
        if view.teams == view.players:  # everyone plays alone
            if mine:
                return "You win!"
            return f"{_name(names, winner)} ({team_title(winner)}) wins"
        who = ", ".join("you" if s == me else _name(names, s) for s in members)
        return f"{'Your team' if mine else team_title(winner)} wins ({team_title(winner)}: {who})"
    if outcome.termination == Termination.MAX_TURNS:
        return "A draw: the turn limit was reached"
    return "A draw"


class ClassicNarrator:
    """Turns classic Sequence events into log lines (Textual markup, one line each).

    The same shape as :class:`tui.words.Narrator`, so the history and the log take either.
    """

    def __init__(self, names: Sequence[str], me: Seat | None, teams: int = 2) -> None:
        self.names = tuple(names)
        self.me = me
        self.teams = teams
        self.players = len(self.names)

    def who(self, seat: Seat) -> str:
        if seat == self.me:
            return "[b]You[/]"
        return f"[b]{escape(_name(self.names, seat))}[/]"

    def whose(self, seat: Seat, *, start: bool = False) -> str:
        if seat == self.me:
            return "[b]Your[/]" if start else "[b]your[/]"
        return f"{self.who(seat)}'s"

    def learn(self, view: object) -> None:
        """Nothing to learn from a snapshot: events name their cells."""
        if isinstance(view, SequenceState):
            self.teams = view.teams

    def _team(self, seat: Seat) -> Team:
        return seat % max(1, self.teams)

    def describe(self, event: object) -> str | None:
        """One line for ``event``, or ``None`` for events not worth a line."""
        if not isinstance(event, SequenceEvent):
            return None
        if isinstance(event, TurnStarted):
            return f"[dim]──[/] {self.whose(event.seat, start=True)} turn [dim]──[/]"
        if isinstance(event, ChipPlaced):
            jack = FACES[event.card].jack
            how = " (wild)" if jack is JackKind.TWO_EYED else ""
            return (f"{self.who(event.seat)} played {card(event.card)}{how}: "
                    f"{chip(self._team(event.seat))} on {cell_name(event.cell)}")
        if isinstance(event, ChipRemoved):
            return (f"{self.who(event.seat)} played {card(event.card)} and removed the chip "
                    f"on {cell_name(event.cell)}")
        if isinstance(event, DeadCardExchanged):
            return f"{self.who(event.seat)} turned in dead card {card(event.card)}"
        if isinstance(event, SequenceMade):
            first, last = cell_name(event.cells[0]), cell_name(event.cells[-1])
            return f"[b]{team_word(event.team)} made a sequence[/] ({first}-{last})"
        if isinstance(event, CardDiscarded):
            return f"{self.who(event.seat)} could play nothing and discarded {card(event.card)}"
        if isinstance(event, TurnPassed):
            return f"{self.who(event.seat)} could play nothing and passed"
        if isinstance(event, CardsDrawn):
            if event.seat != self.me or HIDDEN in event.cards:
                return None
            return "You drew " + " ".join(card(c) for c in event.cards)
        if isinstance(event, DealerCut):
            return f"{self.who(event.seat)} deal{'' if event.seat == self.me else 's'}"
        if isinstance(event, DrawPileFormed):
            return "The two decks are shuffled and dealt"
        if isinstance(event, Reshuffled):
            return f"The discard piles became a new draw pile ({len(event.cards)} cards)"
        if isinstance(event, GameOver):
            if event.winner is None:
                text = ("A draw: the turn limit was reached"
                        if event.termination == Termination.MAX_TURNS else "A draw")
            elif self.teams == self.players:
                text = "You win!" if event.winner == self.me else \
                    f"{_name(self.names, event.winner)} ({team_title(event.winner)}) wins"
            else:
                mine = self.me is not None and self._team(self.me) == event.winner
                text = f"{'Your team' if mine else team_title(event.winner)} wins"
            return f"[b]Game over: {escape(text)}[/]"
        return None

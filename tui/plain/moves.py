"""Plain mode's moves: a typed command made into the action it means at the table as it
is (``play 3 on a`` is a :class:`~engine.actions.PlayCard` of the third card of your
hand), or a sentence saying why it can't be (the engine's own reason, seats by their
names). What the command leaves open (whom to steal from, which pile) is asked, and the
next line may answer it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from engine.actions import (
    Block,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import FACES, Colour, Kind
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
)
from engine.classic.board import cell_name, parse_cell
from engine.classic.cards import FACES as CLASSIC_FACES
from engine.classic.cards import JackKind
from engine.classic.state import SequenceState
from engine.errors import EngineError
from engine.games import AnyAction
from engine.state import NEW_PILE, Phase, PileId, Seat, State, Zone
from tui import classic_words, words
from tui.plain.commands import Command, Question, number, shown
from tui.plain.words import LIST_CELLS, either, escaped


class Seated(Protocol):
    """What moves need of the table they are made at (:class:`tui.plain.table.PlainTable`)."""

    view: Any
    me: Seat | None
    names: tuple[str, ...]

    def say(self, markup: str) -> None:
        """Say one line."""

    def name(self, seat: Seat) -> str:
        """A seat's name ("You" for your own)."""

    def legal(self) -> list[Any]:
        """What you may do now."""


class PlainMoves:
    """The moves typed at one table: each command made into an action and sent, or said
    why not."""

    def __init__(self, table: Seated, send: Callable[[AnyAction], None]) -> None:
        self.table = table
        self.send = send
        self.question: Question | None = None
        """What the last command left open, for the next line to answer."""
        self.sent: AnyAction | None = None
        """The last action sent, to word the host's refusal of it."""
        self._discard_asked: int | None = None

    def say(self, markup: str) -> None:
        self.table.say(markup)

    def answered(self, text: str) -> str:
        """``text`` as the whole command it makes, if it answers the open question (which
        closes either way)."""
        question, self.question = self.question, None
        if question is not None:
            return question.complete(text) or text
        return text

    def make(self, command: Command, text: str) -> None:
        """Make the move ``command`` asks for (``text``: as typed, for a question)."""
        try:
            if isinstance(self.table.view, SequenceState):
                self._classic(command, text)
            else:
                self._stacks(command, text)
        except EngineError as exc:  # a reason the checks missed: still words
            self.say(escaped(self.reason(exc)))

    def act(self, action: AnyAction) -> None:
        self.sent = action
        self.question = None
        self.send(action)

    def _check(self, action: AnyAction) -> bool:
        """Send ``action`` if the rules allow it now, else say the engine's reason."""
        if action in self.table.legal():
            self.act(action)
            return True
        view = self.table.view
        try:
            if isinstance(view, SequenceState):
                from engine.classic.rules import validate as classic_validate

                classic_validate(view, action)  # type: ignore[arg-type]
            else:
                from engine.rules import validate

                validate(view, action)  # type: ignore[arg-type]
        except EngineError as exc:
            self.say(escaped(self.reason(exc)))
            return False
        self.say("That can't be done now.")
        return False

    def reason(self, exc: Exception) -> str:
        """The engine's reason as a sentence, seats by their names."""
        def named(match: re.Match[str]) -> str:
            seat = int(match.group(1))
            if seat == self.table.me:
                return "your" if match.group(2) else "you"
            return self.table.name(seat) + (match.group(2) or "")

        text = re.sub(r"\bseat (\d+)('s)?", named, str(exc))
        return text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")

    def _ask(self, prefix: str, question: str, answers: dict[str, str]) -> None:
        self.question = Question(prefix, answers)
        self.say(escaped(question))

    def _card(self, number: int | None) -> int | None:
        """The card a number names (said why not, else ``None``)."""
        view, me = self.table.view, self.table.me
        assert view is not None and me is not None and number is not None
        hand = view.hands[me]
        if number == 0 and isinstance(view, State):
            top = view.discard_top(me)
            if top is None:
                self.say("Your discard pile is empty: 0 names its top card.")
            return top
        if 1 <= number <= len(hand):
            return int(hand[number - 1])
        self.say(f"You hold {len(hand)} cards: {number} is not one of them (hand lists them).")
        return None

    # -- Sequence Stacks -----------------------------------------------------------------------

    def _stacks(self, command: Command, text: str) -> None:
        view, me = self.table.view, self.table.me
        assert isinstance(view, State) and me is not None
        verb = command.verb
        legal = self.table.legal()
        if verb == "block":
            blocks = [a for a in legal if isinstance(a, Block)]
            if blocks:
                self.act(blocks[0])
            elif any(isinstance(a, PassBlock) for a in legal):
                self.say("You hold no Block card: type pass (it passes for you anyway).")
            else:
                window = view.window
                held = [c for c in view.hands[me] if FACES[c].kind is Kind.BLOCK]
                self._check(Block(me, held[0] if held else _first(Kind.BLOCK)))
                del window
            return
        if verb == "pass":
            passes = [a for a in legal if isinstance(a, PassBlock)]
            if passes:
                self.act(passes[0])
            elif view.phase == Phase.BLOCK_WINDOW:
                self._check(PassBlock(me))
            else:
                self.say("Pass answers a Block window. To end your turn, discard a card "
                         "(discard N), or type end when your hand is empty.")
            return
        if verb == "end":
            self._check(EndTurn(me))
            return
        if verb == "dead":
            self.say("Dead cards are classic Sequence's: here, discard N ends your turn.")
            return
        card = self._card(command.card)
        if card is None:
            return
        code = words.card_code(card)
        if verb == "discard":
            if command.card == 0:
                self.say("You discard from your hand, not from your discard pile.")
                return
            could = [a for a in legal if isinstance(a, PlayCard) and a.card == card]
            action = Discard(me, card)
            if could and self._discard_asked != card and action in legal:
                self._discard_asked = card
                pile = view.pile(could[0].pile)
                colour = FACES[card].colour
                where = f"on {pile.label()}" if pile is not None else \
                    f"on a new {colour.title if colour is not None else ''} pile"
                self.say(f"{code} could go {where}. Discard it anyway and end your turn? "
                         f"Type {text} again to discard it.")
                return
            self._discard_asked = None
            self._check(action)
            return
        self._play_stacks(view, me, card, command, text)

    def _play_stacks(self, view: State, me: Seat, card: int, command: Command,
                     text: str) -> None:
        kind = FACES[card].kind
        code = words.card_code(card)
        legal = [a for a in self.table.legal() if getattr(a, "card", None) == card]
        if kind is Kind.BLOCK:
            self.say(f"{code} is played in a Block window only: type block then.")
            return
        if kind in (Kind.NUMBER, Kind.WILD):
            plays = [a for a in legal if isinstance(a, PlayCard)]
            if command.where is not None:
                pile = self._pile(view, command.where)
                if pile is None:
                    return
                self._check(PlayCard(me, card, pile))
                return
            if len(plays) == 1:
                self.act(plays[0])
                return
            if not plays:
                self.say(f"{code} fits no pile now.")
                return
            answers = {}
            for action in plays:
                found = view.pile(action.pile)
                where = "new" if found is None else found.name
                answers[where] = f"on {where}"
            self._ask(text, f"On which pile: {either(list(answers))}?", answers)
            return
        if kind in (Kind.SKIP, Kind.REVERSE):
            action_type = PlaySkip if kind is Kind.SKIP else PlayReverse
            self._check(action_type(me, card))
            return
        steals = [a for a in legal if isinstance(a, StealCard | StealChip)]
        if command.target is not None:
            target = self._seat(command.target)
            if target is None:
                return
            steals = [a for a in steals if a.target == target]
        if command.zone is not None:
            zone = Zone.HAND if command.zone == "hand" else Zone.DISCARD
            steals = [a for a in steals if isinstance(a, StealCard) and a.zone == zone]
        if command.colour is not None:
            colour = Colour.RED if command.colour == "red" else Colour.BLUE
            steals = [a for a in steals if isinstance(a, StealChip) and a.colour == colour]
        if len(steals) == 1:
            self.act(steals[0])
            return
        if not steals:
            self._check(self._steal_for(me, card, kind, command))
            return
        targets = list(dict.fromkeys(a.target for a in steals))
        if len(targets) > 1:
            answers = {}
            for seat in targets:
                answers[self.table.name(seat).lower()] = f"from {self.table.name(seat)}"
                answers[str(seat + 1)] = f"from {self.table.name(seat)}"
            self._ask(text, f"Steal from whom: {either([self.table.name(s) for s in targets])}?",
                      answers)
            return
        who = self.table.name(targets[0])
        if kind is Kind.STEAL_CARD:
            self._ask(text, f"From {who}'s hand (a random card) or discard top?",
                      {"hand": "hand", "discard": "discard"})
        else:
            colours = [Colour(a.colour).title.lower() for a in steals
                       if isinstance(a, StealChip)]
            self._ask(text, f"Which chip from {who}: {either(colours)}?",
                      {c: c for c in colours})

    def _steal_for(self, me: Seat, card: int, kind: Kind, command: Command) -> Any:
        """The steal the command describes (for the engine's reason why it can't be)."""
        target = self._seat(command.target, quiet=True) if command.target else None
        if target is None:
            target = next((s for s in range(len(self.table.names)) if s != me), 0)
        if kind is Kind.STEAL_CARD:
            zone = Zone.DISCARD if command.zone == "discard" else Zone.HAND
            return StealCard(me, card, target, zone)
        colour = Colour.BLUE if command.colour == "blue" else Colour.RED
        return StealChip(me, card, target, colour)

    def _pile(self, view: State, where: str) -> PileId | None:
        if where == "new":
            return NEW_PILE
        piles = list(view.piles)
        found = next((p for p in piles if p.name == where), None)
        if found is None:
            names = [p.name for p in sorted(piles, key=lambda p: p.name)]
            open_ = f"the open piles are {', '.join(names)}" if names else "no pile is open"
            self.say(f"There is no pile {where}: {open_} (or new for a new pile).")
            return None
        return found.id

    def _seat(self, words_: str | None, *, quiet: bool = False) -> Seat | None:
        """The opponent some words name (a name, its start, or a seat number)."""
        said = " ".join((words_ or "").lower().split())
        others = [s for s in range(len(self.table.names)) if s != self.table.me]
        for seat in others:
            if self.table.names[seat].lower() == said:
                return seat
        given = number(said.removeprefix("seat ").strip())
        if given is not None and given - 1 in others:
            return given - 1
        starts = [s for s in others if self.table.names[s].lower().startswith(said)]
        if len(starts) == 1:
            return starts[0]
        if not quiet:
            self.say(escaped(f"Nobody called {shown(said)!r} here: "
                             f"{either([self.table.names[s] for s in others])}."))
        return None

    # -- classic Sequence ------------------------------------------------------------------------

    def _classic(self, command: Command, text: str) -> None:
        view, me = self.table.view, self.table.me
        assert isinstance(view, SequenceState) and me is not None
        verb = command.verb
        legal = self.table.legal()
        if verb == "pass":
            self._check(PassTurn(me))
            return
        if verb == "end":
            self.say("Your turn ends by itself once you play a card.")
            return
        if verb == "block":
            self.say("There is no Block in Sequence.")
            return
        card = self._card(command.card)
        if card is None:
            return
        if verb == "dead":
            self._check(ExchangeDeadCard(me, card))
            return
        if verb == "discard":
            self._check(DiscardUnplayable(me, card))
            return
        jack = CLASSIC_FACES[card].jack
        plays = [a for a in legal if isinstance(a, PlaceChip | RemoveChip) and a.card == card
                 and not (isinstance(a, PlaceChip) and a.claim)]
        where = command.where or command.target  # "play 2 at k4": words, not a space
        if where is None:
            if len(plays) == 1:
                self.act(plays[0])
                return
            if not plays:
                if ExchangeDeadCard(me, card) in legal:
                    self.say(f"{classic_words.code(card)} is dead: both its spaces are "
                             f"taken. Type dead {command.card} to turn it in.")
                else:
                    self.say(f"{classic_words.code(card)} can't be played now.")
                return
            cells = [cell_name(a.cell) for a in plays]
            shown = either(cells) if len(cells) <= LIST_CELLS else \
                ", ".join(cells[:LIST_CELLS]) + f" and {len(cells) - LIST_CELLS} more"
            self._ask(text, f"At which space: {shown}? Type the space, e.g. {cells[0]}.",
                      {c.lower(): f"at {c.lower()}" for c in cells})
            return
        try:
            cell = parse_cell(where)
        except ValueError:
            self.say(escaped(f"{where.upper()} is not a board space: they go from A1 to J10."))
            return
        action: Any = RemoveChip(me, card, cell) if jack is JackKind.ONE_EYED else \
            PlaceChip(me, card, cell)
        self._check(action)



def _first(kind: Kind) -> int:
    return next(i for i, f in enumerate(FACES) if f.kind is kind)

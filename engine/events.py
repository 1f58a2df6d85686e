"""Events: what happened. The reducer applies them; the host redacts them per audience.

Hidden card ids travel as :data:`~engine.cards.HIDDEN` to audiences that may not see them
(:mod:`engine.redaction`: the bases :class:`FaceDown` and :class:`DrawnCards`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from engine.cards import HIDDEN, CardId, Colour
from engine.redaction import DrawnCards, FaceDown
from engine.state import HOST, Audience, PileId, Seat, Termination, Zone
from engine.wire import Record


class Event(Record):
    """Base of all events. ``Event.from_wire(d)`` decodes any event type."""

    __slots__ = ()
    _family: ClassVar[dict[str, type[Record]]] = {}

    def redacted_for(self, audience: Audience) -> Event:
        """This event as ``audience`` may see it (default: unchanged)."""
        return self


@dataclass(frozen=True, slots=True)
class DrawPileFormed(FaceDown, Event):
    """The deck was shuffled into the draw pile (bottom to top)."""

    TYPE: ClassVar[str] = "draw_pile"
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class Reshuffled(FaceDown, Event):
    """The reshuffle pool became the new draw pile (bottom to top), §1.8."""

    TYPE: ClassVar[str] = "reshuffled"
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class CardsDrawn(DrawnCards, Event):
    """``seat`` drew ``cards`` from the top of the draw pile, in order."""

    TYPE: ClassVar[str] = "drawn"
    seat: Seat
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    TYPE: ClassVar[str] = "turn"
    seat: Seat


@dataclass(frozen=True, slots=True)
class TurnSkipped(Event):
    """``seat`` used up a skip token: its turn is empty (§1.5.1, A25)."""

    TYPE: ClassVar[str] = "skipped"
    seat: Seat


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    """A number or wild went onto ``pile``; ``opens`` when it started that pile."""

    TYPE: ClassVar[str] = "played"
    seat: Seat
    card: CardId
    zone: Zone
    pile: PileId
    opens: bool


@dataclass(frozen=True, slots=True)
class ActionPlayed(Event):
    """An action card was played (it goes to the special discard); effects follow."""

    TYPE: ClassVar[str] = "action"
    seat: Seat
    card: CardId
    zone: Zone


@dataclass(frozen=True, slots=True)
class CardTaken(Event):
    """Steal a Card: ``seat`` took ``card`` from ``target``'s hand or discard top."""

    TYPE: ClassVar[str] = "card_taken"
    seat: Seat
    target: Seat
    zone: Zone
    card: CardId

    def redacted_for(self, audience: Audience) -> Event:
        if self.zone == Zone.DISCARD or audience in (HOST, self.seat, self.target):
            return self
        return replace(self, card=HIDDEN)


@dataclass(frozen=True, slots=True)
class ChipTaken(Event):
    TYPE: ClassVar[str] = "chip_taken"
    seat: Seat
    target: Seat
    colour: Colour


@dataclass(frozen=True, slots=True)
class PileCompleted(Event):
    """``seat`` completed ``pile``: the Block window opens for ``eligible`` opponents."""

    TYPE: ClassVar[str] = "completed"
    seat: Seat
    pile: PileId
    refill: bool
    eligible: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class BlockPassed(Event):
    TYPE: ClassVar[str] = "block_passed"
    seat: Seat


@dataclass(frozen=True, slots=True)
class PileBlocked(Event):
    """``seat`` blocked the completed pile: it goes out of play and pays no chip."""

    TYPE: ClassVar[str] = "blocked"
    seat: Seat
    card: CardId
    zone: Zone
    pile: PileId


@dataclass(frozen=True, slots=True)
class PileCleared(Event):
    """The window closed with no Block: the completed pile goes out of play."""

    TYPE: ClassVar[str] = "cleared"
    pile: PileId


@dataclass(frozen=True, slots=True)
class ChipAwarded(Event):
    TYPE: ClassVar[str] = "chip"
    seat: Seat
    colour: Colour


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    TYPE: ClassVar[str] = "discarded"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class SkipsGiven(Event):
    """Skip tokens handed out at the end of a turn (one per entry; A13, A14)."""

    TYPE: ClassVar[str] = "skips"
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    TYPE: ClassVar[str] = "turn_ended"
    seat: Seat


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    TYPE: ClassVar[str] = "game_over"
    termination: Termination
    winner: Seat | None

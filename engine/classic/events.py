"""Events of classic Sequence: what happened. The reducer applies them; the host redacts
them per audience (a drawn card's face goes only to the drawer)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.classic.board import Cell
from engine.classic.cards import CardId
from engine.classic.state import Team
from engine.redaction import DrawnCards, FaceDown
from engine.state import Audience, Seat, Termination
from engine.wire import Record


class SequenceEvent(Record):
    """Base of this game's events. ``SequenceEvent.from_wire(d)`` decodes any of them."""

    __slots__ = ()
    _family: ClassVar[dict[str, type[Record]]] = {}

    def redacted_for(self, audience: Audience) -> SequenceEvent:
        """This event as ``audience`` may see it (default: unchanged)."""
        return self


@dataclass(frozen=True, slots=True)
class DealerCut(SequenceEvent):
    """The cut for the deal chose ``seat`` as the dealer (§3.2)."""

    TYPE: ClassVar[str] = "dealer"
    seat: Seat


@dataclass(frozen=True, slots=True)
class DrawPileFormed(FaceDown, SequenceEvent):
    """Both decks were shuffled into the draw pile (bottom to top)."""

    TYPE: ClassVar[str] = "draw_pile"
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class Reshuffled(FaceDown, SequenceEvent):
    """Every discard pile was shuffled into the new draw pile (bottom to top), §3.5."""

    TYPE: ClassVar[str] = "reshuffled"
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class CardsDrawn(DrawnCards, SequenceEvent):
    """``seat`` drew ``cards`` from the top of the draw pile, in order."""

    TYPE: ClassVar[str] = "drawn"
    seat: Seat
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True)
class TurnStarted(SequenceEvent):
    TYPE: ClassVar[str] = "turn"
    seat: Seat


@dataclass(frozen=True, slots=True)
class DeadCardExchanged(SequenceEvent):
    """``seat`` turned in dead ``card`` onto its discard pile; a draw follows."""

    TYPE: ClassVar[str] = "dead_card"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class ChipPlaced(SequenceEvent):
    """``seat`` played ``card`` and put its team's chip on ``cell``."""

    TYPE: ClassVar[str] = "placed"
    seat: Seat
    card: CardId
    cell: Cell


@dataclass(frozen=True, slots=True)
class ChipRemoved(SequenceEvent):
    """``seat`` played one-eyed jack ``card`` and took the chip off ``cell``."""

    TYPE: ClassVar[str] = "removed"
    seat: Seat
    card: CardId
    cell: Cell


@dataclass(frozen=True, slots=True)
class CardDiscarded(SequenceEvent):
    """``seat`` could play nothing and discarded ``card`` with no effect (§3.6)."""

    TYPE: ClassVar[str] = "discarded"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class TurnPassed(SequenceEvent):
    """``seat`` could play nothing and passed (``no_play = pass``)."""

    TYPE: ClassVar[str] = "passed"
    seat: Seat


@dataclass(frozen=True, slots=True)
class SequenceMade(SequenceEvent):
    """``team`` completed the sequence on ``cells``; its chips can't be removed now."""

    TYPE: ClassVar[str] = "sequence"
    team: Team
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class TurnEnded(SequenceEvent):
    TYPE: ClassVar[str] = "turn_ended"
    seat: Seat


@dataclass(frozen=True, slots=True)
class GameOver(SequenceEvent):
    """The end: ``winner`` is the winning team (``None`` for a draw)."""

    TYPE: ClassVar[str] = "game_over"
    termination: Termination
    winner: Team | None

"""Actions of classic Sequence: what the player to move asks for. Frozen wire values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.classic.board import Cell
from engine.classic.cards import CardId
from engine.state import Seat
from engine.wire import Record


class SequenceAction(Record):
    """Base of this game's actions. ``SequenceAction.from_wire(d)`` decodes any of them."""

    __slots__ = ()
    _family: ClassVar[dict[str, type[Record]]] = {}
    seat: Seat


@dataclass(frozen=True, slots=True)
class ExchangeDeadCard(SequenceAction):
    """Turn in a dead card (both its spaces covered) and draw a replacement (§3.3.1)."""

    TYPE: ClassVar[str] = "dead_card"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class PlaceChip(SequenceAction):
    """Play ``card`` and put a chip on ``cell``: a space of that card, or any empty space
    for a two-eyed jack. ``claim`` names the windows (``engine.classic.board.WINDOWS``)
    to register as sequences when the table lets players choose; ``()`` takes the
    engine's choice."""

    TYPE: ClassVar[str] = "place"
    seat: Seat
    card: CardId
    cell: Cell
    claim: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RemoveChip(SequenceAction):
    """Play a one-eyed jack and take an opponent's chip off ``cell``."""

    TYPE: ClassVar[str] = "remove"
    seat: Seat
    card: CardId
    cell: Cell


@dataclass(frozen=True, slots=True)
class DiscardUnplayable(SequenceAction):
    """With no legal play at all: discard ``card`` with no effect, then draw (§3.6)."""

    TYPE: ClassVar[str] = "discard"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class PassTurn(SequenceAction):
    """With no legal play at all, at a table that passes instead (``no_play = pass``)."""

    TYPE: ClassVar[str] = "pass"
    seat: Seat

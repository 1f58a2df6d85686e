"""Actions: what a player (or the host) asks for. Frozen values with a wire form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from engine.cards import CardId, Colour
from engine.state import PileId, Seat, Zone
from engine.wire import Record


class Action(Record):
    """Base of all actions. ``Action.from_wire(d)`` decodes any action type."""

    __slots__ = ()
    _family: ClassVar[dict[str, type[Record]]] = {}
    seat: Seat


@dataclass(frozen=True, slots=True)
class PlayCard(Action):
    """Play a number or wild from hand or discard top onto ``pile`` (or ``NEW_PILE``)."""

    TYPE: ClassVar[str] = "play"
    seat: Seat
    card: CardId
    pile: PileId


@dataclass(frozen=True, slots=True)
class PlaySkip(Action):
    TYPE: ClassVar[str] = "skip"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class PlayReverse(Action):
    TYPE: ClassVar[str] = "reverse"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class StealCard(Action):
    """Play Steal a Card on ``target``: take its discard top, or a random hand card."""

    TYPE: ClassVar[str] = "steal_card"
    seat: Seat
    card: CardId
    target: Seat
    zone: Zone


@dataclass(frozen=True, slots=True)
class StealChip(Action):
    TYPE: ClassVar[str] = "steal_chip"
    seat: Seat
    card: CardId
    target: Seat
    colour: Colour


@dataclass(frozen=True, slots=True)
class Discard(Action):
    """End the play phase: move a hand card onto the personal discard pile."""

    TYPE: ClassVar[str] = "discard"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class EndTurn(Action):
    """End the turn without a discard; legal only with an empty hand (A18)."""

    TYPE: ClassVar[str] = "end_turn"
    seat: Seat


@dataclass(frozen=True, slots=True)
class Block(Action):
    """Block the pile completed in the open window (out of turn, §1.6)."""

    TYPE: ClassVar[str] = "block"
    seat: Seat
    card: CardId


@dataclass(frozen=True, slots=True)
class PassBlock(Action):
    """Decline to Block in the open window."""

    TYPE: ClassVar[str] = "pass_block"
    seat: Seat


@dataclass(frozen=True, slots=True)
class CloseBlockWindow(Action):
    """The host closes the window when its time is up. ``seat`` is ignored (use -1)."""

    TYPE: ClassVar[str] = "close_window"
    seat: Seat = -1

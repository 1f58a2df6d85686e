"""The Sequence Stacks deck: card ids, faces and the two decks (RULES.md §1.1, A1).

Every physical card has a stable id in ``0..119``. The id -> face table is fixed and
public; what is secret is *which* id sits in a hidden zone (a hand, the draw pile).
A peer that does not know a card holds :data:`HIDDEN` in its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

CardId = int
"""A physical card, ``0..119``; :data:`HIDDEN` where the holder of a view can't see it."""

HIDDEN: Final[CardId] = -1
"""Stands for a card whose identity the owner of a view does not know."""

NUMBERS_PER_RANK: Final = 9
WILDS_PER_COLOUR: Final = 7
MAX_RANK: Final = 5


class Colour(IntEnum):
    """The two colours of numbers, wilds, piles and chips."""

    RED = 0
    BLUE = 1

    @property
    def letter(self) -> str:
        return "R" if self is Colour.RED else "B"

    @property
    def title(self) -> str:
        return "Red" if self is Colour.RED else "Blue"

    @property
    def other(self) -> Colour:
        return Colour.BLUE if self is Colour.RED else Colour.RED


class Kind(IntEnum):
    """What a card is. Action kinds are colourless for the rules (A2)."""

    NUMBER = 0
    WILD = 1
    SKIP = 2
    REVERSE = 3
    STEAL_CARD = 4
    STEAL_CHIP = 5
    BLOCK = 6

    @property
    def is_action(self) -> bool:
        return self >= Kind.SKIP


_ACTION_CODES: Final = {
    Kind.SKIP: "SKIP",
    Kind.REVERSE: "REV",
    Kind.STEAL_CARD: "STEAL_CARD",
    Kind.STEAL_CHIP: "STEAL_CHIP",
    Kind.BLOCK: "BLOCK",
}
_ACTION_NAMES: Final = {
    Kind.SKIP: "Skip",
    Kind.REVERSE: "Reverse",
    Kind.STEAL_CARD: "Steal a Card",
    Kind.STEAL_CHIP: "Steal a Chip",
    Kind.BLOCK: "Block",
}


@dataclass(frozen=True, slots=True)
class Face:
    """What is printed on a card."""

    kind: Kind
    colour: Colour | None = None
    rank: int | None = None

    @property
    def code(self) -> str:
        """Short code: ``R1``..``R5``, ``RW``, ``B1``..``BW``, ``SKIP``, ``REV``, ..."""
        if self.kind is Kind.NUMBER:
            assert self.colour is not None
            return f"{self.colour.letter}{self.rank}"
        if self.kind is Kind.WILD:
            assert self.colour is not None
            return f"{self.colour.letter}W"
        return _ACTION_CODES[self.kind]

    @property
    def name(self) -> str:
        """Words for logs and errors: ``Red 4``, ``Blue wild``, ``Steal a Chip``."""
        if self.kind is Kind.NUMBER:
            assert self.colour is not None
            return f"{self.colour.title} {self.rank}"
        if self.kind is Kind.WILD:
            assert self.colour is not None
            return f"{self.colour.title} wild"
        return _ACTION_NAMES[self.kind]

    def __str__(self) -> str:
        return self.name


def _build_faces() -> tuple[Face, ...]:
    faces: list[Face] = []
    for colour in Colour:
        for rank in range(1, MAX_RANK + 1):
            faces += [Face(Kind.NUMBER, colour, rank)] * NUMBERS_PER_RANK
        faces += [Face(Kind.WILD, colour)] * WILDS_PER_COLOUR
    for kind, count in (
        (Kind.SKIP, 3),
        (Kind.REVERSE, 3),
        (Kind.STEAL_CARD, 3),
        (Kind.BLOCK, 3),
        (Kind.STEAL_CHIP, 4),
    ):
        faces += [Face(kind)] * count
    return tuple(faces)


FACES: Final[tuple[Face, ...]] = _build_faces()
"""``FACES[card_id]``: the face of every card of the full deck."""

DECK_SIZE: Final = len(FACES)
assert DECK_SIZE == 120

# Flat per-id tables for the hot paths (legal-move generation, bots).
KIND: Final[tuple[Kind, ...]] = tuple(f.kind for f in FACES)
COLOUR: Final[tuple[Colour | None, ...]] = tuple(f.colour for f in FACES)
RANK: Final[tuple[int, ...]] = tuple(f.rank or 0 for f in FACES)

CARDS_BY_KIND: Final[dict[Kind, tuple[CardId, ...]]] = {
    kind: tuple(i for i, f in enumerate(FACES) if f.kind is kind) for kind in Kind
}


class TwoPlayerDeck(IntEnum):
    """Which cards leave the deck in a 2-player game (A1)."""

    GH = 0
    """Remove 1 Block, 2 Steal a Chip, 1 Steal a Card, 1 Skip; keep the Reverses (DEFAULT)."""
    GR = 1
    """The GH removals plus all 3 Reverses (GameRules.com reading)."""
    FULL = 2
    """Remove nothing (the official S0/S1 text mentions no removal)."""


def _last(kind: Kind, count: int) -> tuple[CardId, ...]:
    return CARDS_BY_KIND[kind][-count:] if count else ()


def removed_for_two_players(variant: TwoPlayerDeck) -> frozenset[CardId]:
    """The card ids taken out of a 2-player deck under the given reading of A1."""
    if variant is TwoPlayerDeck.FULL:
        return frozenset()
    removed = (
        _last(Kind.BLOCK, 1)
        + _last(Kind.STEAL_CHIP, 2)
        + _last(Kind.STEAL_CARD, 1)
        + _last(Kind.SKIP, 1)
    )
    if variant is TwoPlayerDeck.GR:
        removed += CARDS_BY_KIND[Kind.REVERSE]
    return frozenset(removed)


def deck_for(players: int, two_player_deck: TwoPlayerDeck) -> tuple[CardId, ...]:
    """The card ids in play for a table of ``players`` (RULES.md §1.2 items 2-3)."""
    if players == 2:
        removed = removed_for_two_players(two_player_deck)
        return tuple(i for i in range(DECK_SIZE) if i not in removed)
    return tuple(range(DECK_SIZE))


def face(card: CardId) -> Face:
    """The face of a card id; raises ``ValueError`` for a hidden or unknown id."""
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"no card with id {card}")
    return FACES[card]


def card_name(card: CardId) -> str:
    """``Red 4`` for a known card, ``a hidden card`` for :data:`HIDDEN`."""
    return "a hidden card" if card == HIDDEN else FACES[card].name

"""The cards of classic Sequence: two standard 52-card decks, no jokers (RULES.md §3.1).

Card ids are ``deck * 52 + suit * 13 + rank`` with suits in the order spades, hearts,
diamonds, clubs and ranks ace, 2, ..., 10, jack, queen, king, so ids ``0..51`` are the
first deck and ``52..103`` the second. The face of an id is public and fixed; what is
secret is which id sits in a hand or in the draw pile (:data:`~engine.cards.HIDDEN`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from engine.cards import HIDDEN as HIDDEN
from engine.cards import CardId as CardId

DECKS: Final = 2
CARDS_PER_DECK: Final = 52
DECK_SIZE: Final = DECKS * CARDS_PER_DECK

RANKS: Final[tuple[str, ...]] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES: Final[tuple[str, ...]] = (
    "Ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack", "Queen", "King",
)
JACK: Final = RANKS.index("J")


class Suit(IntEnum):
    SPADES = 0
    HEARTS = 1
    DIAMONDS = 2
    CLUBS = 3

    @property
    def letter(self) -> str:
        return "SHDC"[self]

    @property
    def title(self) -> str:
        return self.name.capitalize()


class JackKind(IntEnum):
    """What a jack does (JKS, B1): J♦ and J♣ are two-eyed, J♠ and J♥ one-eyed."""

    NONE = 0
    """Not a jack: the card names two board spaces."""
    TWO_EYED = 1
    """Wild: a chip on any empty space that is not a corner."""
    ONE_EYED = 2
    """Anti-wild: removes one opponent chip that is not part of a sequence."""


@dataclass(frozen=True, slots=True)
class Face:
    suit: Suit
    rank: int
    """Index into :data:`RANKS` (0 = ace, 10 = jack, 12 = king)."""

    @property
    def code(self) -> str:
        """``AS``, ``10H``, ``JD``: the code the board layout uses."""
        return RANKS[self.rank] + self.suit.letter

    @property
    def jack(self) -> JackKind:
        if self.rank != JACK:
            return JackKind.NONE
        if self.suit in (Suit.SPADES, Suit.HEARTS):
            return JackKind.ONE_EYED
        return JackKind.TWO_EYED

    @property
    def name(self) -> str:
        """``10 of Hearts``, ``Jack of Spades (one-eyed)``."""
        text = f"{RANK_NAMES[self.rank]} of {self.suit.title}"
        jack = self.jack
        if jack is JackKind.ONE_EYED:
            return text + " (one-eyed)"
        if jack is JackKind.TWO_EYED:
            return text + " (two-eyed)"
        return text

    def __str__(self) -> str:
        return self.name


FACES: Final[tuple[Face, ...]] = tuple(
    Face(Suit(suit), rank)
    for _deck in range(DECKS)
    for suit in range(len(Suit))
    for rank in range(len(RANKS))
)
"""``FACES[card_id]`` for every card of the two decks."""

CODES: Final[tuple[str, ...]] = tuple(f.code for f in FACES)
JACKS: Final[tuple[JackKind, ...]] = tuple(f.jack for f in FACES)
DECK: Final[tuple[CardId, ...]] = tuple(range(DECK_SIZE))

CARDS_BY_CODE: Final[dict[str, tuple[CardId, ...]]] = {
    code: tuple(i for i, c in enumerate(CODES) if c == code) for code in dict.fromkeys(CODES)
}


def is_card(card: object) -> bool:
    return type(card) is int and 0 <= card < DECK_SIZE


def face(card: CardId) -> Face:
    """The face of a card id; raises ``ValueError`` for a hidden or unknown id."""
    if not is_card(card):
        raise ValueError(f"no card with id {card}")
    return FACES[card]


def card_name(card: CardId) -> str:
    return "a hidden card" if card == HIDDEN else FACES[card].name

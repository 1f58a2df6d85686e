"""Invariants both games share (each game's ``invariants`` module adds its own).

Every card is in exactly one zone, a state has an outcome exactly when its phase is the
end of the game, and a seat's own view never hides its own hand.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from engine.cards import HIDDEN, CardId
from engine.state import Audience, Outcome


class CheckedState(Protocol):
    audience: Audience
    deck: tuple[CardId, ...]
    hands: list[list[CardId]]

    @property
    def phase(self) -> int: ...

    @property
    def outcome(self) -> Outcome | None: ...


def cards_conserved(zones: Sequence[CardId], deck: tuple[CardId, ...], known: bool) -> list[str]:
    """The problems of the cards in ``zones`` (every zone's cards, run together) against
    the ``deck``: when every card is ``known``, each card of the deck in exactly one zone
    and nothing else; else (a view) as many cards as the deck."""
    problems: list[str] = []
    if known:
        if len(zones) == len(deck) and sorted(zones) == _in_order(deck):
            return problems  # the usual case, cheaply: exactly the deck
        counts = Counter(zones)
        dupes = sorted(c for c, n in counts.items() if n > 1)
        if dupes:
            problems.append(f"cards in more than one place: {dupes}")
        missing = sorted(set(deck) - counts.keys())
        if missing:
            problems.append(f"cards in no zone: {missing}")
        extra = sorted(counts.keys() - set(deck))
        if extra:
            problems.append(f"cards that are not in this deck: {extra}")
    elif len(zones) != len(deck):
        problems.append(f"{len(zones)} cards in zones, the deck has {len(deck)}")
    return problems


@functools.lru_cache(maxsize=16)
def _in_order(deck: tuple[CardId, ...]) -> list[CardId]:
    return sorted(deck)


def phase_problems(state: CheckedState, game_over: int) -> list[str]:
    """The outcome exists exactly in the ``game_over`` phase; the audience's own hand is
    known to it."""
    problems: list[str] = []
    if (state.phase == game_over) != (state.outcome is not None):
        problems.append("an outcome exists exactly in the GAME_OVER phase")
    if state.audience >= 0 and HIDDEN in state.hands[state.audience]:
        problems.append("a seat's own hand holds a hidden card")
    return problems

"""Sampling the hidden cards of a view: a full state consistent with what a seat has seen.

A seat's view (kept by the same reducer as the host's state, from the events redacted
for it) holds every card it has seen where it now is: its own hand, the discard piles,
the open piles, the out-of-play and special discards, and the cards it knows to sit in
an opponent's hand (one it had stolen from it, or one it gave away). Every other slot
(the rest of the opponents' hands, the whole draw pile) holds ``HIDDEN``. The cards that
can fill those slots are exactly the cards of the deck the view does not show anywhere;
a sample deals them uniformly at random into the hidden slots, so every sample is a
state the game could really be in, as far as this seat can tell.

What the view does not keep, a sample can't respect: after a blind steal from a hand
that held a card this seat knew, the reducer forgets which of the two hands holds it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from engine.cards import HIDDEN, CardId
from engine.state import HOST, SPECTATOR, State


class ViewError(ValueError):
    """The view is not one a sample can be drawn for (its counts don't add up)."""


def known_cards(view: State) -> list[CardId]:
    """Every card the view shows, wherever it is (hidden slots excluded)."""
    known: list[CardId] = []
    for hand in view.hands:
        known.extend(c for c in hand if c != HIDDEN)
    for discard in view.discards:
        known.extend(discard)
    for pile in view.piles:
        known.extend(pile.cards)
    if view.window is not None:
        known.extend(view.window.pile.cards)
    known.extend(view.out_of_play)
    known.extend(view.special_discard)
    known.extend(c for c in view.draw_pile if c != HIDDEN)
    return known


def unknown_cards(view: State) -> list[CardId]:
    """The cards of the deck the view does not show: what fills its hidden slots."""
    return unseen_cards(view.deck, known_cards(view))


def unseen_cards(deck: Sequence[CardId], known: list[CardId]) -> list[CardId]:
    """The cards of ``deck`` not in ``known`` (any game); raises :class:`ViewError` when
    ``known`` shows a card twice or one outside the deck."""
    seen = Counter(known)
    extra = seen - Counter(deck)
    if extra:
        raise ViewError(f"the view shows cards twice or outside the deck: {sorted(extra)}")
    return [c for c in deck if c not in seen]


def hidden_slots(view: State) -> int:
    return count_hidden(view.hands, view.draw_pile)


def count_hidden(hands: list[list[CardId]], draw_pile: list[CardId]) -> int:
    return sum(hand.count(HIDDEN) for hand in hands) + draw_pile.count(HIDDEN)


def deal_hidden(
    hands: list[list[CardId]], draw_pile: list[CardId], unseen: list[CardId],
    rng: random.Random,
) -> list[CardId]:
    """Deal ``unseen`` uniformly at random into the hidden slots of ``hands`` (in place)
    and of ``draw_pile``; returns the draw pile filled (any game whose hidden cards are
    the opponents' hands and the draw pile)."""
    cards = list(unseen)
    # A uniform permutation: sorting by independent uniform keys (ties have
    # probability ~0) costs a tenth of ``rng.shuffle``'s rejection sampling per card.
    draw = rng.random
    cards.sort(key=lambda _: draw())
    take = iter(cards)
    for hand in hands:
        if HIDDEN in hand:
            hand[:] = [next(take) if c == HIDDEN else c for c in hand]
    if HIDDEN in draw_pile:
        return [next(take) if c == HIDDEN else c for c in draw_pile]
    return draw_pile


class Determinizer:
    """Samples full states for one view; the unknown cards are worked out once."""

    __slots__ = ("_unknown", "view")

    def __init__(self, view: State) -> None:
        if view.audience == SPECTATOR:
            raise ViewError("a spectator's view has no seat to sample for")
        self.view = view
        self._unknown = unknown_cards(view)
        if len(self._unknown) != hidden_slots(view):
            raise ViewError(
                f"{hidden_slots(view)} hidden slots but {len(self._unknown)} unseen cards"
            )

    def sample(self, rng: random.Random) -> State:
        """A full state (``audience == HOST``) that agrees with the view everywhere it shows
        a card, with the unseen cards dealt uniformly at random into the hidden slots."""
        state = self.view.copy()
        state.audience = HOST
        state.draw_pile = deal_hidden(state.hands, state.draw_pile, self._unknown, rng)
        return state

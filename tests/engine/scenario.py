"""Builders for constructed game states: every card of the deck in exactly one zone.

A test names the cards it cares about by face code (``R4``, ``BW``, ``BLOCK``) through a
:class:`Cards` allocator, places them with :func:`table`, and lets the builder put every
other card of the deck where it says (by default at the bottom of the draw pile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

import pytest

from engine.actions import Action, CloseBlockWindow
from engine.cards import FACES, CardId, Colour
from engine.config import RulesConfig
from engine.errors import IllegalActionError
from engine.events import Event
from engine.invariants import check_invariants
from engine.rng import Rng
from engine.rules import legal_actions, step
from engine.state import Phase, Pile, Seat, State, default_pile_name

SEED = b"seed"

E = TypeVar("E", bound=Event)

Rest = Literal["draw", "out_of_play", "special_discard"] | int
"""Where the cards nobody placed go: the bottom of the draw pile, the reshuffle pool,
the special discard, or (an int) the bottom of that seat's personal discard pile."""


class Cards:
    """Hands out distinct card ids by face code: ``c("R4")`` is a Red 4 not yet handed out."""

    def __init__(self) -> None:
        self._used: set[CardId] = set()

    def __call__(self, code: str) -> CardId:
        for card, face in enumerate(FACES):
            if face.code == code and card not in self._used:
                self._used.add(card)
                return card
        raise ValueError(f"no unused card {code!r} left")

    def many(self, *codes: str) -> list[CardId]:
        return [self(code) for code in codes]


def table(
    players: int = 3,
    *,
    config: RulesConfig | None = None,
    hands: Mapping[Seat, Sequence[CardId]] | None = None,
    discards: Mapping[Seat, Sequence[CardId]] | None = None,
    piles: Sequence[Pile] = (),
    draw: Sequence[CardId] = (),
    out_of_play: Sequence[CardId] = (),
    special_discard: Sequence[CardId] = (),
    chips: Mapping[Seat, tuple[int, int]] | None = None,
    skip_tokens: Mapping[Seat, int] | None = None,
    current: Seat = 1,
    direction: int = 1,
    turn: int = 1,
    rest: Rest = "draw",
) -> State:
    """A state in the PLAY phase of ``current``'s turn, built zone by zone.

    ``draw`` lists the top of the draw pile with its top card LAST; ``rest`` says where
    the unplaced cards go (under ``draw`` when it is ``"draw"``, at the bottom of a
    discard pile when it is a seat). ``chips`` are taken out of the supply.
    """
    state = State.new(config or RulesConfig(), players)
    hands = hands or {}
    discards = discards or {}
    placed: list[CardId] = [*draw, *out_of_play, *special_discard]
    for cards in (*hands.values(), *discards.values(), *(p.cards for p in piles)):
        placed += cards
    if len(placed) != len(set(placed)):
        raise ValueError("a card is placed twice")
    outside = set(placed) - set(state.deck)
    if outside:
        raise ValueError(f"cards not in this table's deck: {sorted(outside)}")
    unplaced = [c for c in state.deck if c not in set(placed)]

    state.hands = [list(hands.get(s, ())) for s in range(players)]
    state.discards = [list(discards.get(s, ())) for s in range(players)]
    state.piles = [p.copy() for p in piles]
    state.next_pile_id = max((p.id for p in piles), default=-1) + 1
    state.draw_pile = list(draw)
    state.out_of_play = list(out_of_play)
    state.special_discard = list(special_discard)
    if rest == "draw":
        state.draw_pile[:0] = unplaced
    elif rest == "out_of_play":
        state.out_of_play += unplaced
    elif rest == "special_discard":
        state.special_discard += unplaced
    else:
        state.discards[rest][:0] = unplaced
    for seat, (red, blue) in (chips or {}).items():
        state.chips[seat] = [red, blue]
        state.supply[Colour.RED] -= red
        state.supply[Colour.BLUE] -= blue
    for seat, tokens in (skip_tokens or {}).items():
        state.skip_tokens[seat] = tokens
    state.current = current
    state.direction = direction
    state.turn = turn
    state.phase = Phase.PLAY
    # The constructed turn is taken to have just begun.
    state.dry_at_start = not state.draw_pile and not state.has_reshuffle_pool()
    problems = check_invariants(state)
    assert not problems, problems
    return state


def pile(pile_id: int, colour: Colour, cards: Sequence[CardId]) -> Pile:
    return Pile(pile_id, colour, list(cards), default_pile_name(pile_id))


def act(state: State, *actions: Action, seed: bytes = SEED) -> list[Event]:
    """Step each action in turn with one seeded generator; return all the events.

    Each action must also be listed by ``legal_actions`` (the host's ``CloseBlockWindow``
    is never listed), and after each step the engine's invariants (one zone per card,
    chips conserved, pile limits, phase consistency) must still hold.
    """
    rng = Rng(seed)
    events: list[Event] = []
    for action in actions:
        if not isinstance(action, CloseBlockWindow):
            assert action in legal_actions(state, action.seat), f"{action} is not listed"
        events += step(state, action, rng)
        problems = check_invariants(state)
        assert not problems, problems
    return events


def illegal(state: State, action: Action, *words: str) -> str:
    """Assert ``action`` is refused with a message holding ``words``; state unchanged."""
    if state.phase in (Phase.PLAY, Phase.BLOCK_WINDOW) and 0 <= action.seat < state.players:
        assert action not in legal_actions(state, action.seat), f"{action} is listed"
    before = state.copy()
    with pytest.raises(IllegalActionError) as info:
        step(state, action, Rng(SEED))
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    assert state.hands == before.hands
    assert state.discards == before.discards
    assert state.phase == before.phase
    assert state.current == before.current
    return message


def of_type(events: Sequence[Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def one(events: Sequence[Event], kind: type[E]) -> E:
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def types(events: Sequence[Event]) -> list[str]:
    return [type(e).__name__ for e in events]

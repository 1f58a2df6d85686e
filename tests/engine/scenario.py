"""Builders for constructed positions of both games: every card in exactly one zone.

A test names the cards it cares about by code through a :class:`Cards` allocator
(Sequence Stacks: ``R4``, ``BW``, ``BLOCK``) or a :class:`SequenceCards` one (classic
Sequence: ``5H``, ``JD``), places them with :func:`table` or :func:`sequence_table`, and
lets the builder put every other card where it says (by default in the draw pile). Then
:func:`act` steps listed actions and :func:`illegal` checks refusals, in either game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import pytest

from engine.actions import Action, CloseBlockWindow
from engine.cards import FACES, CardId, Colour
from engine.classic import invariants as classic_invariants
from engine.classic import rules as classic_rules
from engine.classic.actions import SequenceAction
from engine.classic.board import parse_cell
from engine.classic.cards import CODES, JACKS, JackKind
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.state import Phase as SequencePhase
from engine.classic.state import Sequence as Seq
from engine.classic.state import SequenceState, Team
from engine.config import RulesConfig
from engine.errors import IllegalActionError
from engine.events import Event
from engine.invariants import check_invariants
from engine.rng import Rng
from engine.rules import legal_actions, step
from engine.state import Phase, Pile, Seat, State, default_pile_name

SEED = b"seed"
"""The generator of :func:`act` and :func:`illegal` at a Sequence Stacks table."""
CLASSIC_SEED = b"classic-seed"
"""The same at a classic Sequence table."""

E = TypeVar("E", bound=Event | SequenceEvent)

Rest = Literal["draw", "out_of_play", "special_discard"] | int
"""Where the cards nobody placed go: the bottom of the draw pile, the reshuffle pool,
the special discard, or (an int) the bottom of that seat's personal discard pile."""


class Cards:
    """Hands out distinct card ids by face code: ``c("R4")`` is a Red 4 not yet handed out."""

    CODES: tuple[str, ...] = tuple(face.code for face in FACES)

    def __init__(self) -> None:
        self._used: set[CardId] = set()

    def __call__(self, code: str) -> CardId:
        for card, known in enumerate(self.CODES):
            if known == code and card not in self._used:
                self._used.add(card)
                return card
        raise ValueError(f"no unused card {code!r} left")

    def many(self, *codes: str) -> list[CardId]:
        return [self(code) for code in codes]


class SequenceCards(Cards):
    """Distinct classic card ids by code: ``c("5H")`` is a 5 of Hearts not handed out yet."""

    CODES = CODES


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


# -- classic Sequence -----------------------------------------------------------------


def cells(*names: str) -> list[int]:
    return [parse_cell(name) for name in names]


def sequence_table(
    players: int = 2,
    *,
    config: SequenceConfig | None = None,
    hands: Mapping[Seat, Sequence[CardId]] | None = None,
    chips: Mapping[str, Team] | None = None,
    sequences: Sequence[tuple[Team, Sequence[str]]] = (),
    draw: Sequence[CardId] = (),
    discards: Mapping[Seat, Sequence[CardId]] | None = None,
    current: Seat = 0,
    turn: int = 1,
    rest: Literal["draw"] | Seat = "draw",
    fill_hands: bool = True,
) -> SequenceState:
    """A classic Sequence state at the start of ``current``'s turn.

    ``draw`` is the top of the draw pile, its top card LAST. Hands shorter than the
    table's hand size are topped up with cards nobody named (``fill_hands``), so each
    hand is full as at a real turn start. ``chips`` maps space names to teams;
    ``sequences`` lists completed ones (their spaces must hold the team's chips).
    """
    state = SequenceState.new(config or SequenceConfig(), players)
    hands = {s: list(h) for s, h in (hands or {}).items()}
    discards = discards or {}
    placed = [*draw, *(c for h in hands.values() for c in h)]
    placed += [c for d in discards.values() for c in d]
    if len(placed) != len(set(placed)):
        raise ValueError("a card is placed twice")
    unplaced = [c for c in state.deck if c not in set(placed)]
    state.hands = [hands.get(s, []) for s in range(players)]
    if fill_hands:
        # Fillers are never jacks, so a test's jacks are the only ones in play.
        fillers = [c for c in unplaced if JACKS[c] is JackKind.NONE]
        for hand in state.hands:
            while len(hand) < state.hand_size:
                card = fillers.pop()
                unplaced.remove(card)
                hand.append(card)
    state.discards = [list(discards.get(s, ())) for s in range(players)]
    state.draw_pile = list(draw)
    if rest == "draw":
        state.draw_pile[:0] = unplaced
    else:
        state.discards[rest][:0] = unplaced
    for name, team in (chips or {}).items():
        state.chips[parse_cell(name)] = team
    for team, names in sequences:
        seq = tuple(sorted(cells(*names)))
        state.sequences.append(Seq(team, seq))
        for cell in seq:
            state.locked[cell] = True
    state.current = current
    state.dealer = (current - 1) % players
    state.turn = turn
    state.phase = SequencePhase.PLAY
    problems = classic_invariants.check_invariants(state)
    assert not problems, problems
    return state


# -- either game ------------------------------------------------------------------------


def _rules(state: State | SequenceState) -> tuple[
    Callable[[Any, Seat], list[Any]], Callable[[Any, Any, Rng], list[Any]],
    Callable[[Any], list[str]], bytes,
]:
    """The functions a scenario steps ``state``'s game with, and its generator's seed."""
    if isinstance(state, SequenceState):
        return (
            classic_rules.legal_actions, classic_rules.step,
            classic_invariants.check_invariants, CLASSIC_SEED,
        )
    return legal_actions, step, check_invariants, SEED


def act(
    state: Any, *actions: Action | SequenceAction, seed: bytes | None = None
) -> list[Any]:
    """Step each action in turn with one seeded generator; return all the events.

    Each action must also be listed by ``legal_actions`` (the host's ``CloseBlockWindow``
    is never listed), and after each step the game's invariants (one zone per card,
    chips conserved, pile limits, phase consistency, ...) must still hold.
    """
    legal, step_, invariants, default_seed = _rules(state)
    rng = Rng(default_seed if seed is None else seed)
    events: list[Any] = []
    for action in actions:
        if not isinstance(action, CloseBlockWindow):
            assert action in legal(state, action.seat), f"{action} is not listed"
        events += step_(state, action, rng)
        problems = invariants(state)
        assert not problems, problems
    return events


def illegal(state: Any, action: Action | SequenceAction, *words: str) -> str:
    """Assert ``action`` is refused with a message holding ``words``; state unchanged."""
    legal, step_, _, seed = _rules(state)
    deciding = (
        (SequencePhase.PLAY,) if isinstance(state, SequenceState)
        else (Phase.PLAY, Phase.BLOCK_WINDOW)
    )
    seat = getattr(action, "seat", None)
    if state.phase in deciding and seat is not None and 0 <= seat < state.players:
        assert action not in legal(state, seat), f"{action} is listed"
    before = state.copy()
    with pytest.raises(IllegalActionError) as info:
        step_(state, action, Rng(seed))
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    assert state.hands == before.hands
    assert state.discards == before.discards
    assert state.chips == before.chips
    assert state.phase == before.phase
    assert state.current == before.current
    return message


def of_type(events: Sequence[Event | SequenceEvent], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def one(events: Sequence[Event | SequenceEvent], kind: type[E]) -> E:
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def types(events: Sequence[Event | SequenceEvent]) -> list[str]:
    return [type(e).__name__ for e in events]

"""Builders for constructed classic Sequence positions: every card in exactly one zone.

Tests name cards by code (``5H``, ``JD``) and spaces by name (``B2``); :func:`table`
places them and puts every other card where it says (by default under the named top of
the draw pile), then checks the engine's invariants on the result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, TypeVar

import pytest

from engine.classic.actions import SequenceAction
from engine.classic.board import parse_cell
from engine.classic.cards import CODES, JACKS, CardId, JackKind
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.invariants import check_invariants
from engine.classic.rules import legal_actions, step
from engine.classic.state import Phase, SequenceState, Team
from engine.classic.state import Sequence as Seq
from engine.errors import IllegalActionError
from engine.rng import Rng
from engine.state import Seat

SEED = b"classic-seed"
E = TypeVar("E", bound=SequenceEvent)


class Cards:
    """Distinct card ids by code: ``c("5H")`` is a 5 of Hearts not handed out yet."""

    def __init__(self) -> None:
        self._used: set[CardId] = set()

    def __call__(self, code: str) -> CardId:
        for card, known in enumerate(CODES):
            if known == code and card not in self._used:
                self._used.add(card)
                return card
        raise ValueError(f"no unused card {code!r} left")

    def many(self, *codes: str) -> list[CardId]:
        return [self(code) for code in codes]


def cells(*names: str) -> list[int]:
    return [parse_cell(name) for name in names]


def table(
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
    """A state at the start of ``current``'s turn.

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
    state.phase = Phase.PLAY
    problems = check_invariants(state)
    assert not problems, problems
    return state


def act(state: SequenceState, *actions: SequenceAction, seed: bytes = SEED) -> list[SequenceEvent]:
    """Step each action (each must be listed by ``legal_actions``); check invariants."""
    rng = Rng(seed)
    events: list[SequenceEvent] = []
    for action in actions:
        assert action in legal_actions(state, action.seat), f"{action} is not listed"
        events += step(state, action, rng)
        problems = check_invariants(state)
        assert not problems, problems
    return events


def illegal(state: SequenceState, action: SequenceAction, *words: str) -> str:
    """Assert ``action`` is refused with a message holding ``words``; state unchanged."""
    if state.phase == Phase.PLAY and 0 <= action.seat < state.players:
        assert action not in legal_actions(state, action.seat), f"{action} is listed"
    before = state.copy()
    with pytest.raises(IllegalActionError) as info:
        step(state, action, Rng(SEED))
    message = str(info.value)
    for word in words:
        assert word.lower() in message.lower(), f"{word!r} not in {message!r}"
    assert state.hands == before.hands
    assert state.chips == before.chips
    assert state.discards == before.discards
    assert state.current == before.current
    return message


def of_type(events: Sequence[SequenceEvent], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def one(events: Sequence[SequenceEvent], kind: type[E]) -> E:
    found = of_type(events, kind)
    assert len(found) == 1, f"expected one {kind.__name__}, got {found}"
    return found[0]


def types(events: Sequence[SequenceEvent]) -> list[str]:
    return [type(e).__name__ for e in events]

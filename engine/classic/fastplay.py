"""Classic Sequence's fast path for the search: a legal action applied straight to the
state, no events (as :mod:`engine.fastplay` is for Sequence Stacks).

:func:`play` does what :func:`engine.classic.rules.step` does to the state, for an action
that :func:`engine.classic.rules.legal_actions` listed for that very state, without the
legality check, the event objects and the reducer's checks of each event; a reshuffle
draws the generator as ``step`` does. tests/engine/classic/test_fastplay.py checks after
every action of many random games that it and ``step`` leave equal states.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import WINDOWS
from engine.classic.rules import default_claim
from engine.classic.state import EMPTY, Phase, Sequence, SequenceState
from engine.rng import Rng
from engine.state import Outcome, Seat, Termination


def play(state: SequenceState, action: SequenceAction, rng: Rng) -> None:
    """Apply a legal ``action`` to ``state`` in place, as ``step`` would."""
    _PLAYS[type(action)](state, action, rng)


def _to_discard(state: SequenceState, seat: Seat, card: int) -> None:
    state.hands[seat].remove(card)
    state.discards[seat].append(card)


def _draw_one(state: SequenceState, seat: Seat, rng: Rng) -> None:
    """:meth:`engine.stepping.Stepper.draw` of one card: every discard pile reshuffled
    into the draw pile when it is empty; nothing to draw, no card."""
    pile = state.draw_pile
    if not pile:
        pool = [card for discards in state.discards for card in discards]
        if not pool:
            return
        rng.shuffle(pool)
        state.draw_pile = pile = pool
        for discards in state.discards:
            discards.clear()
    state.hands[seat].append(pile.pop())


def _end_turn(state: SequenceState, seat: Seat) -> None:
    if state.turn >= state.config.max_turns:
        state.phase = Phase.GAME_OVER
        state.outcome = Outcome(Termination.MAX_TURNS, None)
        return
    state.current = state.next_seat(seat)
    state.turn += 1
    state.phase = Phase.PLAY
    state.exchanges = 0
    state.played = False


def _finish_turn(state: SequenceState, seat: Seat, rng: Rng) -> None:
    _draw_one(state, seat, rng)
    _end_turn(state, seat)


def _exchange(state: SequenceState, action: ExchangeDeadCard, rng: Rng) -> None:
    _to_discard(state, action.seat, action.card)
    state.exchanges += 1
    _draw_one(state, action.seat, rng)


def _place(state: SequenceState, action: PlaceChip, rng: Rng) -> None:
    seat, cell = action.seat, action.cell
    team = state.team_of(seat)
    claim = action.claim or default_claim(state, cell, team)
    _to_discard(state, seat, action.card)
    state.chips[cell] = team
    state.played = True
    locked = state.locked
    for w in claim:
        cells = WINDOWS[w]
        state.sequences.append(Sequence(team, cells))
        for c in cells:
            locked[c] = True
    if state.sequence_count(team) >= state.to_win:
        state.phase = Phase.GAME_OVER
        state.outcome = Outcome(Termination.WIN, team)
        return
    _finish_turn(state, seat, rng)


def _remove(state: SequenceState, action: RemoveChip, rng: Rng) -> None:
    _to_discard(state, action.seat, action.card)
    state.chips[action.cell] = EMPTY
    state.played = True
    _finish_turn(state, action.seat, rng)


def _discard(state: SequenceState, action: DiscardUnplayable, rng: Rng) -> None:
    _to_discard(state, action.seat, action.card)
    state.played = True
    _finish_turn(state, action.seat, rng)


def _pass(state: SequenceState, action: PassTurn, rng: Rng) -> None:
    state.played = True
    _end_turn(state, action.seat)


_PLAYS: dict[type[SequenceAction], Callable[[SequenceState, Any, Rng], None]] = {
    ExchangeDeadCard: _exchange,
    PlaceChip: _place,
    RemoveChip: _remove,
    DiscardUnplayable: _discard,
    PassTurn: _pass,
}

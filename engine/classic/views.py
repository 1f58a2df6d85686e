"""What each audience may see of a classic table, and its public hash.

The same rules as Sequence Stacks (:mod:`engine.views`): the draw pile and every other
player's hand are hidden, teammates included (table talk is not allowed, §3.6); the
board, the sequences and the discard piles are public.
"""

from __future__ import annotations

import functools
import hashlib
import json

from engine.classic.cards import HIDDEN
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.state import SequenceState
from engine.state import HOST, SPECTATOR, Audience


def view_for(state: SequenceState, audience: Audience) -> SequenceState:
    """A copy of ``state`` as ``audience`` (a seat, SPECTATOR or HOST) may see it."""
    if audience != HOST and audience != SPECTATOR and not 0 <= audience < state.players:
        raise ValueError(f"no seat {audience} at a {state.players}-player table")
    view = state.copy()
    view.audience = audience
    if audience == HOST:
        return view
    view.draw_pile = [HIDDEN] * len(state.draw_pile)
    for seat, hand in enumerate(view.hands):
        if seat != audience:
            view.hands[seat] = [HIDDEN] * len(hand)
    return view


def spectator_view(state: SequenceState) -> SequenceState:
    return view_for(state, SPECTATOR)


def redact(event: SequenceEvent, audience: Audience) -> SequenceEvent:
    return event.redacted_for(audience)


def public_state(state: SequenceState) -> list[object]:
    """The public part of a state as plain data, in a fixed order."""
    return [
        "sequence",
        state.players,
        state.teams,
        int(state.phase),
        state.turn,
        state.dealer,
        state.current,
        state.exchanges,
        state.played,
        len(state.draw_pile),
        [len(hand) for hand in state.hands],
        state.discards,
        state.chips,
        [[s.team, list(s.cells)] for s in state.sequences],
        None
        if state.outcome is None
        else [int(state.outcome.termination), state.outcome.winner],
        _config_json(state.config),
    ]


@functools.lru_cache(maxsize=32)
def _config_json(config: SequenceConfig) -> str:
    return json.dumps(config.to_wire(), separators=(",", ":"), sort_keys=True)


def public_hash(state: SequenceState) -> str:
    """SHA-256 (hex, 32 chars) of the canonical JSON of :func:`public_state`: equal on the
    host and every view of the same moment; never equal to a Sequence Stacks hash."""
    encoded = json.dumps(public_state(state), separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(encoded.encode()).hexdigest()[:32]

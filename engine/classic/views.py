"""What each audience may see of a classic table, and its public hash.

The same rules and machinery as Sequence Stacks (:mod:`engine.redaction`): the draw
pile and every other player's hand are hidden, teammates included (table talk is not
allowed, §3.6); the board, the sequences and the discard piles are public.
"""

from __future__ import annotations

from engine import redaction
from engine.classic.events import SequenceEvent
from engine.classic.state import SequenceState
from engine.redaction import config_json, hash_public
from engine.state import SPECTATOR, Audience


def view_for(state: SequenceState, audience: Audience) -> SequenceState:
    """A copy of ``state`` as ``audience`` (a seat, SPECTATOR or HOST) may see it."""
    return redaction.view_for(state, audience)


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
        config_json(state.config),
    ]


def public_hash(state: SequenceState) -> str:
    """SHA-256 (hex, 32 chars) of the canonical JSON of :func:`public_state`: equal on the
    host and every view of the same moment; never equal to a Sequence Stacks hash."""
    return hash_public(public_state(state))

"""What each audience may see of a Sequence Stacks table: views of a state, redacted
events, the public hash (the machinery both games share: :mod:`engine.redaction`)."""

from __future__ import annotations

from engine import redaction
from engine.events import Event
from engine.redaction import config_json, hash_public
from engine.state import SPECTATOR, Audience, State


def view_for(state: State, audience: Audience) -> State:
    """A copy of ``state`` as ``audience`` (a seat, SPECTATOR or HOST) may see it.

    Hidden zones (the draw pile, other players' hands) hold :data:`HIDDEN` in place of
    every card. A view of a view keeps what the narrower audience may not see hidden.
    """
    return redaction.view_for(state, audience)


def spectator_view(state: State) -> State:
    return view_for(state, SPECTATOR)


def redact(event: Event, audience: Audience) -> Event:
    """``event`` as ``audience`` may receive it."""
    return event.redacted_for(audience)


def public_state(state: State) -> list[object]:
    """The public part of a state as plain data, in a fixed order."""
    window = state.window
    return [
        state.players,
        int(state.phase),
        state.turn,
        state.current,
        state.dealer,
        state.direction,
        len(state.draw_pile),
        [len(hand) for hand in state.hands],
        state.discards,
        state.chips,
        state.supply,
        state.skip_tokens,
        [[p.id, int(p.colour), p.cards, p.name] for p in state.piles],
        state.next_pile_id,
        state.out_of_play,
        state.special_discard,
        state.plays_this_turn,
        state.skips_this_turn,
        state.idle_turns,
        state.dry_at_start,
        None
        if window is None
        else [window.pile.id, int(window.pile.colour), window.pile.cards, window.pile.name,
              window.seat,
              window.refill, list(window.eligible), sorted(window.passed)],
        None
        if state.outcome is None
        else [int(state.outcome.termination), state.outcome.winner],
        config_json(state.config),
    ]


def public_hash(state: State) -> str:
    """SHA-256 (hex, 32 chars) of the canonical JSON of :func:`public_state`.

    Equal on the host and on every view of the same moment of the same game.
    """
    return hash_public(public_state(state))

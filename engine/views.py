"""What each audience may see: views of a state, redacted events, the public hash."""

from __future__ import annotations

import functools
import hashlib
import json

from engine.cards import HIDDEN
from engine.config import RulesConfig
from engine.events import Event
from engine.state import HOST, SPECTATOR, Audience, State


def view_for(state: State, audience: Audience) -> State:
    """A copy of ``state`` as ``audience`` (a seat, SPECTATOR or HOST) may see it.

    Hidden zones (the draw pile, other players' hands) hold :data:`HIDDEN` in place of
    every card. A view of a view keeps what the narrower audience may not see hidden.
    """
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
        _config_json(state.config),
    ]


@functools.lru_cache(maxsize=32)
def _config_json(config: RulesConfig) -> str:
    return json.dumps(config.to_wire(), separators=(",", ":"), sort_keys=True)


def public_hash(state: State) -> str:
    """SHA-256 (hex, 32 chars) of the canonical JSON of :func:`public_state`.

    Equal on the host and on every view of the same moment of the same game.
    """
    encoded = json.dumps(public_state(state), separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(encoded.encode()).hexdigest()[:32]

"""A state (usually a view) as plain data and back, for snapshots and resyncs.

``state_from_wire`` takes untrusted data: anything out of shape raises
:class:`MalformedError`, and the result passes the structural checks a view needs.
"""

from __future__ import annotations

import re
from typing import Any

from engine.cards import DECK_SIZE, Colour
from engine.config import RulesConfig
from engine.errors import MalformedError
from engine.invariants import check_invariants
from engine.state import (
    HOST,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PILE_NAMES,
    SPECTATOR,
    BlockWindow,
    Phase,
    Pile,
    State,
    default_pile_name,
)
from engine.wire import (
    decoding_snapshot,
    outcome_from_wire,
    outcome_to_wire,
    possible,
    snapshot_cards,
    snapshot_int,
)


def _pile(p: Pile) -> list[object]:
    return [p.id, int(p.colour), list(p.cards), p.name]


def state_to_wire(state: State) -> dict[str, Any]:
    window = state.window
    return {
        "config": state.config.to_wire(),
        "players": state.players,
        "audience": state.audience,
        "draw_pile": list(state.draw_pile),
        "hands": [list(h) for h in state.hands],
        "discards": [list(d) for d in state.discards],
        "chips": [list(c) for c in state.chips],
        "supply": list(state.supply),
        "skip_tokens": list(state.skip_tokens),
        "piles": [_pile(p) for p in state.piles],
        "next_pile_id": state.next_pile_id,
        "out_of_play": list(state.out_of_play),
        "special_discard": list(state.special_discard),
        "direction": state.direction,
        "current": state.current,
        "dealer": state.dealer,
        "phase": int(state.phase),
        "turn": state.turn,
        "plays_this_turn": state.plays_this_turn,
        "skips_this_turn": list(state.skips_this_turn),
        "idle_turns": state.idle_turns,
        "dry_at_start": state.dry_at_start,
        "window": None
        if window is None
        else [_pile(window.pile), window.seat, window.refill, list(window.eligible),
              sorted(window.passed)],
        "outcome": outcome_to_wire(state.outcome),
    }


_int = snapshot_int


def _cards(value: object, name: str) -> list[int]:
    return snapshot_cards(value, name, DECK_SIZE)


def _per_seat(value: object, name: str, players: int) -> list[object]:
    if not isinstance(value, list) or len(value) != players:
        raise MalformedError(f"snapshot field {name} must have one entry per seat")
    return value


def _pile_from(value: object) -> Pile:
    if not isinstance(value, list) or len(value) not in (3, 4):
        raise MalformedError("a snapshot pile is [id, colour, cards, name]")
    pile_id = _int(value[0], "pile id", 0, 1 << 30)
    # A snapshot from before pile names carries none: the pile gets its usual one.
    name = value[3] if len(value) == 4 else default_pile_name(pile_id)
    if not isinstance(name, str) or not _PILE_NAME.fullmatch(name):
        raise MalformedError("a pile name is a letter of PILE_NAMES (and maybe a number)")
    return Pile(
        pile_id,
        Colour(_int(value[1], "pile colour", 0, 1)),
        _cards(value[2], "pile cards"),
        name,
    )


_PILE_NAME = re.compile(f"[{PILE_NAMES}][0-9]{{0,9}}")


def state_from_wire(data: object) -> State:
    """Rebuild a state from :func:`state_to_wire` output (untrusted)."""
    if not isinstance(data, dict):
        raise MalformedError("a snapshot must be a map")
    with decoding_snapshot():
        config = RulesConfig.from_wire(data["config"])
        players = _int(data["players"], "players", MIN_PLAYERS, MAX_PLAYERS)
        state = State.new(config, players)
        state.audience = _int(data["audience"], "audience", HOST, players - 1)
        state.draw_pile = _cards(data["draw_pile"], "draw_pile")
        state.hands = [_cards(h, "hand") for h in _per_seat(data["hands"], "hands", players)]
        state.discards = [
            _cards(d, "discard") for d in _per_seat(data["discards"], "discards", players)
        ]
        chips = _per_seat(data["chips"], "chips", players)
        state.chips = []
        for pair in chips:
            if not isinstance(pair, list) or len(pair) != 2:
                raise MalformedError("chips are [red, blue] per seat")
            state.chips.append([_int(v, "chips", 0, 1 << 20) for v in pair])
        supply = data["supply"]
        if not isinstance(supply, list) or len(supply) != 2:
            raise MalformedError("supply is [red, blue]")
        state.supply = [_int(v, "supply", 0, 1 << 20) for v in supply]
        state.skip_tokens = [
            _int(v, "skip tokens", 0, 1 << 20)
            for v in _per_seat(data["skip_tokens"], "skip_tokens", players)
        ]
        piles = data["piles"]
        if not isinstance(piles, list) or len(piles) > 64:
            raise MalformedError("piles must be a list")
        state.piles = [_pile_from(p) for p in piles]
        state.next_pile_id = _int(data["next_pile_id"], "next_pile_id", 0, 1 << 30)
        state.out_of_play = _cards(data["out_of_play"], "out_of_play")
        state.special_discard = _cards(data["special_discard"], "special_discard")
        direction = data["direction"]
        if direction not in (1, -1) or type(direction) is not int:
            raise MalformedError("direction is 1 or -1")
        state.direction = direction
        state.current = _int(data["current"], "current", 0, players - 1)
        state.dealer = _int(data.get("dealer", 0), "dealer", 0, players - 1)
        state.phase = Phase(_int(data["phase"], "phase", 0, len(Phase) - 1))
        state.turn = _int(data["turn"], "turn", 0, 1 << 30)
        state.plays_this_turn = _int(data["plays_this_turn"], "plays_this_turn", 0, 1 << 30)
        skips = data["skips_this_turn"]
        if not isinstance(skips, list) or len(skips) > 1000 or any(s not in (1, -1) for s in skips):
            raise MalformedError("skips_this_turn is a list of directions")
        state.skips_this_turn = [int(s) for s in skips]
        state.idle_turns = _int(data["idle_turns"], "idle_turns", 0, 1 << 30)
        dry = data["dry_at_start"]
        if type(dry) is not bool:
            raise MalformedError("dry_at_start is a boolean")
        state.dry_at_start = dry
        window = data["window"]
        if window is not None:
            if not isinstance(window, list) or len(window) != 5:
                raise MalformedError("window is [pile, seat, refill, eligible, passed]")
            pile, seat, refill, eligible, passed = window
            if type(refill) is not bool:
                raise MalformedError("window refill is a boolean")
            state.window = BlockWindow(
                _pile_from(pile),
                _int(seat, "window seat", 0, players - 1),
                refill,
                tuple(_int(s, "eligible", 0, players - 1) for s in _list(eligible)),
                {_int(s, "passed", 0, players - 1) for s in _list(passed)},
            )
        state.outcome = outcome_from_wire(data["outcome"], players)
    return possible(state, check_invariants)


def _list(value: object) -> list[object]:
    if not isinstance(value, list) or len(value) > MAX_PLAYERS:
        raise MalformedError("expected a short list of seats")
    return value


__all__ = ["SPECTATOR", "state_from_wire", "state_to_wire"]

"""A classic table's state (usually a view) as plain data and back, for resyncs.

``state_from_wire`` takes untrusted data: anything out of shape raises
:class:`MalformedError`, and the result passes :func:`check_invariants`.
"""

from __future__ import annotations

from typing import Any

from engine.classic.board import CELLS, WINDOW_OF
from engine.classic.cards import DECK_SIZE
from engine.classic.config import PLAYER_COUNTS, SequenceConfig
from engine.classic.invariants import check_invariants
from engine.classic.state import EMPTY, Phase, Sequence, SequenceState
from engine.errors import MalformedError
from engine.state import HOST
from engine.wire import (
    decoding_snapshot,
    outcome_from_wire,
    outcome_to_wire,
    possible,
    snapshot_bool,
    snapshot_cards,
    snapshot_int,
    snapshot_list,
)


def state_to_wire(state: SequenceState) -> dict[str, Any]:
    return {
        "game": "sequence",
        "config": state.config.to_wire(),
        "players": state.players,
        "audience": state.audience,
        "draw_pile": list(state.draw_pile),
        "hands": [list(h) for h in state.hands],
        "discards": [list(d) for d in state.discards],
        "chips": list(state.chips),
        "sequences": [[s.team, list(s.cells)] for s in state.sequences],
        "dealer": state.dealer,
        "current": state.current,
        "phase": int(state.phase),
        "turn": state.turn,
        "exchanges": state.exchanges,
        "played": state.played,
        "outcome": outcome_to_wire(state.outcome),
    }


_int = snapshot_int
_bool = snapshot_bool
_list = snapshot_list


def _cards(value: object, name: str) -> list[int]:
    return snapshot_cards(value, name, DECK_SIZE)


def state_from_wire(data: object) -> SequenceState:
    """Rebuild a state from :func:`state_to_wire` output (untrusted)."""
    if not isinstance(data, dict) or data.get("game") != "sequence":
        raise MalformedError("a Sequence snapshot must be a map with game 'sequence'")
    with decoding_snapshot():
        config = SequenceConfig.from_wire(data["config"])
        players = _int(data["players"], "players", 2, max(PLAYER_COUNTS))
        state = SequenceState.new(config, players)
        state.audience = _int(data["audience"], "audience", HOST, players - 1)
        state.draw_pile = _cards(data["draw_pile"], "draw_pile")
        hands = _list(data["hands"], "hands", players)
        discards = _list(data["discards"], "discards", players)
        if len(hands) != players or len(discards) != players:
            raise MalformedError("hands and discards need one entry per seat")
        state.hands = [_cards(h, "hand") for h in hands]
        state.discards = [_cards(d, "discard") for d in discards]
        chips = _list(data["chips"], "chips", CELLS)
        if len(chips) != CELLS:
            raise MalformedError(f"chips must list all {CELLS} spaces")
        state.chips = [_int(c, "chips", EMPTY, state.teams - 1) for c in chips]
        for entry in _list(data["sequences"], "sequences", 64):
            if not isinstance(entry, list) or len(entry) != 2:
                raise MalformedError("a sequence is [team, cells]")
            team = _int(entry[0], "sequence team", 0, state.teams - 1)
            cells = tuple(
                _int(c, "sequence cell", 0, CELLS - 1) for c in _list(entry[1], "cells", 5)
            )
            if cells not in WINDOW_OF:
                raise MalformedError("a sequence must be five spaces in a line")
            state.sequences.append(Sequence(team, cells))
            for cell in cells:
                state.locked[cell] = True
        state.dealer = _int(data["dealer"], "dealer", 0, players - 1)
        state.current = _int(data["current"], "current", 0, players - 1)
        try:
            state.phase = Phase(_int(data["phase"], "phase", 0, max(Phase)))
        except ValueError:
            raise MalformedError("snapshot field phase is not a phase") from None
        state.turn = _int(data["turn"], "turn", 0, 1 << 30)
        state.exchanges = _int(data["exchanges"], "exchanges", 0, 64)
        state.played = _bool(data["played"], "played")
        state.outcome = outcome_from_wire(data["outcome"], state.teams)
    return possible(state, check_invariants)

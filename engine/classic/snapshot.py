"""A classic table's state (usually a view) as plain data and back, for resyncs.

``state_from_wire`` takes untrusted data: anything out of shape raises
:class:`MalformedError`, and the result passes :func:`check_invariants`.
"""

from __future__ import annotations

from typing import Any

from engine.classic.board import CELLS, WINDOW_OF
from engine.classic.cards import DECK_SIZE, HIDDEN
from engine.classic.config import PLAYER_COUNTS, SequenceConfig
from engine.classic.invariants import check_invariants
from engine.classic.state import EMPTY, Phase, Sequence, SequenceState
from engine.errors import EngineError, MalformedError
from engine.state import HOST, Outcome, Termination


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
        "outcome": None
        if state.outcome is None
        else [int(state.outcome.termination), state.outcome.winner],
    }


def _int(value: object, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise MalformedError(f"snapshot field {name} must be an integer {low}..{high}")
    return value


def _bool(value: object, name: str) -> bool:
    if type(value) is not bool:
        raise MalformedError(f"snapshot field {name} must be true or false")
    return value


def _list(value: object, name: str, most: int) -> list[object]:
    if not isinstance(value, list) or len(value) > most:
        raise MalformedError(f"snapshot field {name} must be a list of at most {most}")
    return value


def _cards(value: object, name: str) -> list[int]:
    return [_int(v, name, HIDDEN, DECK_SIZE - 1) for v in _list(value, name, DECK_SIZE)]


def state_from_wire(data: object) -> SequenceState:
    """Rebuild a state from :func:`state_to_wire` output (untrusted)."""
    if not isinstance(data, dict) or data.get("game") != "sequence":
        raise MalformedError("a Sequence snapshot must be a map with game 'sequence'")
    try:
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
        outcome = data["outcome"]
        if outcome is not None:
            if not isinstance(outcome, list) or len(outcome) != 2:
                raise MalformedError("outcome is [termination, winner]")
            termination = Termination(_int(outcome[0], "termination", 0, len(Termination) - 1))
            winner = None if outcome[1] is None else _int(outcome[1], "winner", 0, state.teams - 1)
            state.outcome = Outcome(termination, winner)
    except KeyError as exc:
        raise MalformedError(f"snapshot is missing {exc.args[0]!r}") from None
    except EngineError as exc:
        if isinstance(exc, MalformedError):
            raise
        raise MalformedError(f"snapshot: {exc}") from exc
    problems = check_invariants(state)
    if problems:
        raise MalformedError(f"snapshot of an impossible state: {problems[0]}")
    return state

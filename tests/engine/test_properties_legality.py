"""Engine properties over seeded games at 2-6 players: legal actions: accepted, nothing else
is; the same from a view as from the host.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

import pytest

from engine.actions import CloseBlockWindow
from engine.errors import IllegalActionError
from engine.rng import Rng
from engine.rules import is_legal, legal_actions, step, validate
from engine.state import HOST, SPECTATOR, Phase
from engine.views import public_hash
from tests.engine.gameplay import (
    Table,
    choose,
    new_game,
    play,
    random_action,
    table_seed,
    wire_key,
)
from tests.engine.seeded import SOAK, seeded_games

# -- 3. legal actions are accepted, nothing else is ---------------------------------------------

RANDOM_ACTIONS_PER_STATE = 12


def check_legality(table: Table, rng: Rng) -> None:
    state = table.state
    if state.outcome is not None:
        for _ in range(RANDOM_ACTIONS_PER_STATE):
            action = random_action(state, rng)
            with pytest.raises(IllegalActionError):
                validate(state, action)
        return
    legal: dict[int, set[str]] = {}
    for seat in range(state.players):
        actions = legal_actions(state, seat)
        keys = {wire_key(a) for a in actions}
        assert len(keys) == len(actions), f"{table.where()}: duplicate legal actions"
        legal[seat] = keys
        for action in actions:
            try:
                validate(state, action)
            except IllegalActionError as exc:
                raise AssertionError(f"{table.where()}: listed {action} rejected: {exc}") from None
            trial = state.copy()
            events = step(trial, action, Rng(b"probe"))
            assert events, f"{table.where()}: {action} did nothing"
    if state.phase == Phase.PLAY:
        assert legal[state.current], f"{table.where()}: the seat to move has no legal action"
    before = state.copy()
    before_hash = public_hash(state)
    before_hands = [list(hand) for hand in state.hands]
    position = table.game.rng.position
    for _ in range(RANDOM_ACTIONS_PER_STATE):
        action = random_action(state, rng)
        if isinstance(action, CloseBlockWindow):
            expected = state.phase == Phase.BLOCK_WINDOW
        else:
            expected = 0 <= action.seat < state.players and wire_key(action) in legal[action.seat]
        assert is_legal(state, action) == expected, f"{table.where()}: {action}"
        if expected:
            continue
        with pytest.raises(IllegalActionError):
            table.game.act(action)
        assert state == before, f"{table.where()}: rejected {action} changed the state"
        assert table.game.rng.position == position, f"{table.where()}: {action} used randomness"
    assert public_hash(state) == before_hash
    assert state.hands == before_hands


def run_legality(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    probe = Rng(b"illegal" + table_seed(seed))
    play(table, rng, on_state=lambda t: check_legality(t, probe))


@seeded_games(40)
def test_legal_actions_are_accepted_and_nothing_else_is(seed: int, players: int) -> None:
    run_legality(seed, players)


@pytest.mark.slow
@seeded_games(40 * SOAK)
def test_legal_actions_are_accepted_and_nothing_else_is_soak(seed: int, players: int) -> None:
    run_legality(seed, players)


NOT_SEATS = (HOST, SPECTATOR, 6, 100)


def test_legal_actions_of_a_non_seat_are_empty() -> None:
    for seed in range(40):
        players = 2 + seed % 5
        table, rng = new_game(seed, players, default_config=True)
        while not table.over:
            for seat in (*NOT_SEATS, players):
                assert legal_actions(table.state, seat) == [], f"{table.where()}: seat {seat}"
            table.act(choose(table, rng, 80))

# -- 6. legal actions from a view are the host's -------------------------------------------------


def check_view_legality(table: Table) -> None:
    host = table.state
    for seat, view in enumerate(table.views):
        from_view = sorted(wire_key(a) for a in legal_actions(view, seat))
        from_host = sorted(wire_key(a) for a in legal_actions(host, seat))
        assert from_view == from_host, f"{table.where()}: seat {seat}"


def run_view_legality(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True)
    play(table, rng, on_state=check_view_legality)


@seeded_games(100)
def test_legal_actions_from_a_view_equal_the_hosts(seed: int, players: int) -> None:
    run_view_legality(seed, players)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_legal_actions_from_a_view_equal_the_hosts_soak(seed: int, players: int) -> None:
    run_view_legality(seed, players)

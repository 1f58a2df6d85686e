"""Classic Sequence's fast path (:func:`engine.classic.fastplay.play`) against ``step``,
move by move, over the property tests' random games (a third on the DEFAULT rules, the
rest on random house rules: teams, sequences to win, dead cards, no-play rule, chosen
sequences, turn limits): after every action the two states are equal field for field
and the two generators at the same position."""

from __future__ import annotations

import pytest

from engine.classic.fastplay import play
from engine.rng import Rng, derive_seed
from tests.engine.classic.gameplay import PLAYERS, Table


def _agree(seed: int, players: int) -> int:
    table = Table(seed, players, [])
    fast = table.state.copy()
    fast_rng = Rng(derive_seed(seed, label="classic"))
    for _ in range(table.game.rng.position):
        fast_rng.next_word()
    actions = 0
    while not table.game.over:
        action = table.choose()
        table.step(action)
        play(fast, action, fast_rng)
        actions += 1
        assert fast == table.state, f"{table.where()}: the fast path differs after {action}"
        assert fast_rng.position == table.game.rng.position, f"{table.where()}: generator"
    return actions


@pytest.mark.parametrize("players", PLAYERS)
def test_fast_path_agrees_with_step_over_random_games(players: int) -> None:
    assert sum(_agree(seed, players) for seed in range(8)) > 100


@pytest.mark.slow
@pytest.mark.parametrize("players", PLAYERS)
def test_fast_path_agrees_with_step_soak(players: int) -> None:
    for seed in range(8, 208):
        _agree(seed, players)

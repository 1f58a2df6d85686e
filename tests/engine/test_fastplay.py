"""The search's fast path (:func:`engine.fastplay.play`) against ``step``, move by move.

Every game is played twice in lockstep from the same deal: one state through
:func:`engine.rules.step` (validation, events, the reducer), the other through the fast
path, each with its own generator from the same seed. After every action the two states
must be equal field for field and the generators at the same position. The games are the
property tests' (:mod:`tests.engine.gameplay`): random legal actions, more or less eager
to play on, any seat answering a Block window, the host closing windows early now and
then, a third of the seeds on the DEFAULT rules and the others on random house rules.
"""

from __future__ import annotations

import random

import pytest

from engine.bots.greedy import GreedyBot
from engine.bots.search import decider
from engine.fastplay import play
from engine.game import Game
from engine.rng import Rng
from engine.rules import legal_actions, step
from tests.engine.gameplay import Table, choose, chooser_rng, config_for, table_seed


def _agree(seed: int, players: int) -> int:
    """Play property game ``(seed, players)`` both ways; the number of actions compared."""
    table = Table(players, seed, config_for(seed, players))
    fast = table.state.copy()
    fast_rng = Rng(table_seed(seed))
    # Bring the fast path's generator to where the deal left the host's.
    for _ in range(table.game.rng.position):
        fast_rng.next_word()
    rng = chooser_rng(seed)
    eager = rng.below(101)
    actions = 0
    while not table.over:
        action = choose(table, rng, eager)
        table.act(action)
        play(fast, action, fast_rng)
        actions += 1
        assert fast == table.state, f"{table.where()}: the fast path differs after {action}"
        assert fast_rng.position == table.game.rng.position, f"{table.where()}: generator"
    return actions


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fast_path_agrees_with_step_over_random_games(players: int) -> None:
    compared = sum(_agree(seed, players) for seed in range(60))
    assert compared > 1000


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_fast_path_agrees_with_step_soak(players: int) -> None:
    for seed in range(60, 1060):
        _agree(seed, players)


@pytest.mark.parametrize("players", [2, 4])
def test_fast_path_agrees_in_greedy_self_play(players: int) -> None:
    """The games the search's playouts are made of: greedy against greedy, DEFAULT rules."""
    for index in range(10):
        seed = bytes([players, index])
        game = Game.new(players, seed)
        fast = game.state.copy()
        fast_rng = Rng(seed)
        for _ in range(game.rng.position):
            fast_rng.next_word()
        bot = GreedyBot(rng=random.Random(index))
        while game.state.outcome is None:
            seat, legal = decider(game.state)
            action = legal[0] if seat < 0 else bot.choose(game.state, seat, legal)
            step(game.state, action, game.rng)
            play(fast, action, fast_rng)
            assert fast == game.state
            assert legal_actions(fast, seat) == legal_actions(game.state, seat)

"""Engine properties over seeded games at 2-6 players: every game ends.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.bots.random_bot import RandomBot
from engine.config import (
    RulesConfig,
    StalemateResult,
)
from engine.runner import game_seed, play_game
from tests.engine.gameplay import (
    config_for,
)
from tests.engine.seeded import SOAK, seeded_games

# -- 9. every game ends -------------------------------------------------------------------------

ENDINGS = {"win", "stalemate", "max_turns"}


def run_bot_game(seed: int, players: int, bot: str, *, house_rules: bool = False) -> None:
    config = config_for(seed, players) if house_rules else RulesConfig()
    bots: list[Any] = [RandomBot(game_seed(seed, 1000 + s)) for s in range(players)]
    if bot != "random":
        greedy = pytest.importorskip("engine.bots.greedy")
        for s in range(players):
            if bot == "greedy" or (s + seed) % 2:
                bots[s] = greedy.GreedyBot(bytes([s, seed % 256]))
    # The runner's own per-event checks (invariants, view hashes) on one game in twenty.
    result = play_game(players, bots, game_seed(seed, players), config, check=seed % 20 == 0)
    where = f"seed={seed} players={players} bot={bot} house_rules={house_rules}"
    assert result.termination in ENDINGS, where
    assert result.invariant_violations == 0, where
    assert result.turns <= config.max_turns, where
    if result.termination == "win":
        assert result.winner is not None
        red, blue = result.chips[result.winner]
        need = config.win_min_each_colour
        assert red + blue >= config.win_chips and red >= need and blue >= need, where
    elif config.stalemate_result == StalemateResult.DRAW or result.termination == "max_turns":
        assert result.winner is None, where


@seeded_games(300)
def test_every_random_bot_game_ends(seed: int, players: int) -> None:
    run_bot_game(seed, players, "random")


@pytest.mark.slow
@seeded_games(300 * SOAK)
def test_every_random_bot_game_ends_soak(seed: int, players: int) -> None:
    run_bot_game(seed, players, "random")


@seeded_games(60)
def test_every_greedy_bot_game_ends(seed: int, players: int) -> None:
    run_bot_game(seed, players, "greedy")


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_every_greedy_bot_game_ends_soak(seed: int, players: int) -> None:
    run_bot_game(seed, players, "greedy")


@seeded_games(100)
def test_every_greedy_against_random_game_ends_under_house_rules(seed: int, players: int) -> None:
    run_bot_game(seed, players, "mixed", house_rules=True)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_every_greedy_against_random_game_ends_under_house_rules_soak(
    seed: int, players: int
) -> None:
    run_bot_game(seed, players, "mixed", house_rules=True)

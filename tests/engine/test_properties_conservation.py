"""Engine properties over seeded games at 2-6 players: cards, chips and the outcome.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

import pytest

from engine.config import (
    StealChipWin,
)
from engine.events import (
    Event,
    GameOver,
)
from engine.invariants import check_invariants
from engine.state import Termination
from tests.engine.gameplay import (
    Table,
    card_zone_problems,
    chip_problems,
    new_game,
    play,
    table_pile_problems,
)
from tests.engine.seeded import SOAK, completing_pile, seeded_games

# -- 1. every card in exactly one zone ---------------------------------------------------------


def check_card_zones(table: Table, event: Event) -> None:
    state = table.shadow
    problems = card_zone_problems(state)
    problems += table_pile_problems(state, completing_pile(event))
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_card_zones(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_card_zones])
    assert not card_zone_problems(table.state), table.where()
    play(table, rng)


@seeded_games(200)
def test_every_card_is_in_exactly_one_zone_after_every_event(seed: int, players: int) -> None:
    run_card_zones(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_every_card_is_in_exactly_one_zone_soak(seed: int, players: int) -> None:
    run_card_zones(seed, players)


def check_engine_invariants(table: Table, event: Event) -> None:
    problems = check_invariants(table.shadow)
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_engine_invariants(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_engine_invariants])
    play(table, rng)


@seeded_games(100)
def test_check_invariants_holds_after_every_event(seed: int, players: int) -> None:
    run_engine_invariants(seed, players)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_check_invariants_holds_after_every_event_soak(seed: int, players: int) -> None:
    run_engine_invariants(seed, players)


# -- 2. chips are conserved ------------------------------------------------------------------


def check_chips(table: Table, event: Event) -> None:
    state = table.shadow
    problems = chip_problems(state)
    if not state.config.unlimited_chips:
        total = sum(state.supply) + sum(sum(chips) for chips in state.chips)
        if total != 2 * state.config.chips_per_colour:
            problems.append(f"{total} chips in all")
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_chips(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_chips])
    play(table, rng)


@seeded_games(200)
def test_chips_are_conserved_after_every_event(seed: int, players: int) -> None:
    run_chips(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_chips_are_conserved_soak(seed: int, players: int) -> None:
    run_chips(seed, players)


@pytest.mark.parametrize("players", range(2, 7))
def test_the_default_table_holds_40_chips(players: int) -> None:
    table, rng = new_game(0, players, default_config=True, event_checks=[check_chips])
    state = table.state
    assert state.supply == [20, 20]
    play(table, rng)
    assert sum(state.supply) + sum(map(sum, state.chips)) == 40


# -- the outcome and the win condition -------------------------------------------------------


def check_outcome(table: Table) -> None:
    """At every decision point and at the end: the game is over exactly when it should be."""
    state = table.state
    cfg = state.config
    outcome = state.outcome
    if outcome is None:
        assert state.turn <= cfg.max_turns, table.where()
        if cfg.steal_chip_win == StealChipWin.ILLEGAL:
            # Chips come from completions (checked at once) or steals (illegal to win).
            winners = [s for s, (r, b) in enumerate(state.chips) if state.meets_win(r, b)]
            assert not winners, f"{table.where()}: seats {winners} meet the win but play on"
        return
    if outcome.termination == Termination.WIN:
        assert outcome.winner is not None
        assert state.meets_win(*state.chips[outcome.winner]), table.where()
    elif outcome.termination == Termination.MAX_TURNS:
        assert outcome.winner is None
        assert state.turn >= cfg.max_turns, table.where()
    else:
        assert not state.draw_pile and not state.has_reshuffle_pool(), table.where()
    last = table.events[-1] if table.events else table.deal_events[-1]
    assert last == GameOver(outcome.termination, outcome.winner), table.where()


def run_outcome(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    play(table, rng, on_state=check_outcome)
    assert sum(isinstance(e, GameOver) for e in table.events) == 1, table.where()


@seeded_games(200)
def test_games_end_exactly_when_someone_wins_or_the_game_is_stuck(seed: int, players: int) -> None:
    run_outcome(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_games_end_exactly_when_they_should_soak(seed: int, players: int) -> None:
    run_outcome(seed, players)

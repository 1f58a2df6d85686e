"""``stacks bench engine``'s figure of the engine against a bare playout: the three ways
play the very same games, and the ratio is what the figures say."""

from __future__ import annotations

from stacks.bench.engine import against_bare, measure_bare, measure_engine


def test_the_bare_playout_plays_the_engines_games() -> None:
    # With no time to spare each plays its first three games: the same seeds and bots.
    engine = measure_engine("random", 4, 0.0, bot_views=True)
    trusted = measure_bare("random", 4, 0.0, trusted=True)
    bare = measure_bare("random", 4, 0.0)
    assert engine["games"] == trusted["games"] == bare["games"] == 3
    assert engine["mean_actions"] == trusted["mean_actions"] == bare["mean_actions"]


def test_the_ratio_is_the_engine_over_the_bare_playout() -> None:
    figure = against_bare(0.0)
    engine, bare = figure["engine_games_per_second"], figure["bare_games_per_second"]
    assert isinstance(engine, float) and isinstance(bare, float) and bare > 0
    assert figure["ratio"] == round(engine / bare, 3)

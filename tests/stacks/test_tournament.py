"""``stacks tournament``: line-ups with seats rotated, Wilson intervals, the JSON figures."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

from stacks.commands.tournament import lineups, run_tournament, schedule, wilson


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(65, 100)
    assert low == pytest.approx(0.5525, abs=2e-4) and high == pytest.approx(0.7364, abs=2e-4)
    assert wilson(0, 10)[0] == pytest.approx(0.0, abs=1e-12)
    assert wilson(10, 10)[1] == pytest.approx(1.0, abs=1e-12)
    assert wilson(0, 0) == (0.0, 1.0)


def test_line_ups_are_one_line_up_a_round_robin_or_the_names_cycled() -> None:
    assert lineups(["hard", "medium"], 2) == [("hard", "medium")]
    assert lineups(["easy", "medium", "hard"], 2) == [
        ("easy", "medium"), ("easy", "hard"), ("medium", "hard")]
    assert lineups(["hard", "medium"], 4) == [("hard", "medium", "hard", "medium")]


def test_every_bot_sits_in_every_seat_equally_often() -> None:
    plan = schedule(["hard", "medium", "medium", "medium"], 4, 40)
    seats = Counter((game.index("hard")) for game in plan)
    assert seats == {0: 10, 1: 10, 2: 10, 3: 10}
    plan = schedule(["easy", "medium", "hard"], 2, 60)
    for name in ("easy", "medium", "hard"):
        assert Counter(game.index(name) for game in plan if name in game) == {0: 20, 1: 20}


def test_a_tournament_counts_games_wins_and_decision_times() -> None:
    results = run_tournament(["medium", "easy"], 2, 20, seed=3)
    summary = results.summary()
    bots = summary["bots"]
    assert isinstance(bots, dict)
    assert bots["medium"]["games"] == bots["easy"]["games"] == 20
    assert bots["medium"]["wins"] + bots["easy"]["wins"] + summary["draws"] == 20
    assert bots["medium"]["decisions"] > 0 and bots["medium"]["ms_per_decision_max"] > 0
    seats = summary["seats"]
    assert isinstance(seats, list) and sum(s["wins"] for s in seats) + summary["draws"] == 20
    # Same seed, same games (no search bot in it: timing can't change a decision).
    again = run_tournament(["medium", "easy"], 2, 20, seed=3).summary()["bots"]
    assert isinstance(again, dict)
    assert again["medium"]["wins"] == bots["medium"]["wins"]


def test_the_command_prints_json_per_bot_and_uses_worker_processes() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "tournament", "--games", "4", "--players", "2",
         "--bots", "hard,greedy", "--iterations", "5", "--jobs", "2", "--json"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    data = json.loads(out.stdout)
    assert set(data["bots"]) == {"hard", "medium"}
    for row in data["bots"].values():
        assert {"games", "wins", "win_rate"} <= set(row)
        assert row["games"] == 4
        assert row["win_rate"] == pytest.approx(row["wins"] / row["games"], abs=1e-4)
    assert data["jobs"] == 2 and data["iterations"] == 5


def test_the_command_refuses_an_unknown_bot() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "tournament", "--bots", "hard,expert"],
        capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 2 and "unknown bot 'expert'" in out.stderr

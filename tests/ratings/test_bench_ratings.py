"""The ratings benchmark (`python -m stacks.bench.ratings`) runs and reports every query
with and without the planner's statistics."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_the_ratings_bench_reports_each_query_before_and_after_analyze(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stacks.bench.ratings", "--database",
         f"sqlite:///{tmp_path / 'r.sqlite'}", "--games", "300", "--people", "20"],
        capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("made and rated 300 games of 20 players")
    for query in ("leaderboard (all)", "leaderboard (top 50)", "a player's 50 newest games",
                  "a player's card"):
        for when in ("no planner statistics yet", "after ANALYZE"):
            assert any(line.startswith(f"{query}: ") and when in line for line in lines), \
                (query, when, lines)

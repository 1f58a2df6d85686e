"""``stacks tournament --engine``: an outside program against our bots, seats rotated, its
win rate with a Wilson interval and its answer times, for both games."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from stacks.commands.tournament import lineups, schedule

ROOT = Path(__file__).parents[2]
MINIMAL = ROOT / "examples" / "engines" / "minimal.py"
BAD = ROOT / "tests" / "netplay" / "engines" / "misbehaving.py"


def test_the_engine_sits_in_every_line_up_and_in_every_seat_equally_often() -> None:
    assert lineups(["medium", "hard"], 2, ["mine"]) == [("mine", "medium"), ("mine", "hard")]
    assert lineups(["medium"], 3, ["mine"]) == [("mine", "medium", "medium")]
    plan = schedule(["medium", "hard"], 2, 8, ["mine"])
    assert all("mine" in game for game in plan)
    assert Counter(game.index("mine") for game in plan) == {0: 4, 1: 4}


@pytest.mark.parametrize("game", ["stacks", "sequence"])
def test_a_tournament_reports_the_engine_s_win_rate_interval_and_answer_times(
    game: str,
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "tournament", "--game", game, "--games", "4",
         "--bots", "medium", "--engine", f"mini={sys.executable} {MINIMAL}", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "engine mini: minimal-py by the examples, protocol 1" in result.stderr
    summary = json.loads(result.stdout)
    mini = summary["bots"]["mini"]
    assert mini["games"] == 4 and summary["bots"]["medium"]["games"] == 4
    low, high = mini["ci95"]
    assert 0 <= low <= mini["win_rate"] <= high <= 1
    stats = summary["engines"]["mini"]
    assert stats["decisions"] == mini["decisions"] > 0
    assert stats["answered"] == stats["decisions"] and stats["stand_in"] == 0
    assert 0 < stats["answer_ms_p50"] <= stats["answer_ms_max"]
    versus = stats["versus"]["medium"]
    assert versus["games"] == 4 and versus["wins"] == mini["wins"]


def test_a_tournament_refuses_an_engine_of_another_protocol_version_in_words() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "tournament", "--games", "2",
         "--engine", f"bad={sys.executable} {BAD} wrong_version"],
        cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "speaks engine protocol 99; this program speaks version 1 only" in result.stderr
    assert "Traceback" not in result.stderr


def test_stacks_bot_refuses_an_engine_of_another_protocol_version_in_words(
    tmp_path: Path,
) -> None:
    """Before it goes near a table: the handshake's refusal, and no seat taken."""
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "bot", "friday", "--broker",
         "mqtt://127.0.0.1:9", "--engine", f"{sys.executable} {BAD} wrong_version"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.startswith("stacks bot: engine misbehaving refused: bad-wrong_version "
                                    "speaks engine protocol 99; this program speaks version 1")

"""``stacks bench ssh`` reaches the menu of every session and reports every measure (a
short run: the numbers are not judged here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_ssh_reaches_the_menu_and_reports_every_measure() -> None:
    pytest.importorskip("asyncssh")
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "bench", "ssh", "--json", "--connects", "2",
         "--sessions", "3", "--seconds", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["connects"] == 2
    assert report["sessions"] == 3
    assert report["session_processes"] == 3
    assert report["sessions_forked"] is True  # stacks serve forks them by default
    assert report["pss_per_session_mean_mib"] > 0
    assert report["presses"] > 0

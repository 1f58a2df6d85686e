"""``stacks bench ui`` runs and reports every measure (a short run: numbers not judged),
the cold start beside a minimal Textual app's and their ratio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_bench_ui_reports_cold_start_beside_a_minimal_app_key_repaint_moves_and_idle_cpu() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "stacks.cli", "bench", "ui", "--json", "--starts", "1",
         "--keys", "4"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["cold_start_to_first_frame"]["runs"] == 1
    assert report["minimal_textual_app_to_first_frame"]["runs"] == 1
    assert report["cold_start_ratio"] == pytest.approx(
        report["cold_start_to_first_frame"]["p50_ms"]
        / report["minimal_textual_app_to_first_frame"]["p50_ms"], abs=0.02)
    assert report["targets"]["cold_start_ratio"] == 1.5
    assert report["key_to_repainted_table"]["runs"] == 4
    assert report["move_to_table_updated_via_host"]["runs"] == 2
    assert set(report["idle_cpu_percent"]) == {"menu", "game_waiting_for_you"}

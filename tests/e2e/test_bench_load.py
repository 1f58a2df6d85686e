"""`stacks bench load` in its small form: a few tables for a few seconds on a Mosquitto of
its own; every table's game finishes and every seat verifies the deal."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.e2e.conftest import ROOT, SCALE, mosquitto_exe, stacks_command


def test_a_few_tables_at_once_all_finish_and_verify() -> None:
    if mosquitto_exe() is None:
        pytest.skip("mosquitto is not installed")
    done = subprocess.run(
        stacks_command("bench", "load", "--tables", "3", "--pace", "0", "--seconds", "2",
                       "--processes", "2", "--json"),
        cwd=ROOT, capture_output=True, text=True, timeout=240 * SCALE,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["tables"] == 3
    assert report["tables_finished"] == 3
    assert report["tables_verified"] == 3
    assert report["processes"] == 2
    assert report["actions"] > 0 and report["actions_per_s"] > 0
    assert 0 < report["p50_ms"] <= report["p99_ms"] <= report["max_ms"]
    assert report["frames_per_s"] > report["actions_per_s"]  # a batch reaches every seat
    assert report["broker_cpu_percent"] is not None and report["peers_cpu_percent"] > 0
    # What the bench reports beside latency: the peers' CPU per action, and the set-up per table.
    assert report["peer_cpu_ms_per_action"] > 0
    assert report["setup_ms_per_table"] > 0 and report["setup_cpu_ms_per_table"] > 0
    # Both say the same wall time: the whole set-up (rounded to 10 ms) and a third of it
    # (rounded to 0.01 ms). A 1 % slack was not enough for the rounding of a 0.30 s set-up.
    assert abs(report["setup_seconds"] * 1000 - report["setup_ms_per_table"] * 3) <= 5.0 + 0.015


def test_the_load_benchs_tables_do_not_act_in_step() -> None:
    # With a fixed wait, tables dealt together kept acting together, one burst a period,
    # and p99 measured the burst's queue: each wait is drawn from 0.5 to 1.5 x the pace.
    from netplay.identity import Identity
    from stacks.bench.load_worker import _LoadBot

    seat = _LoadBot(Identity.generate(), "t", broker="mqtt://127.0.0.1:1", think=2.0)
    waits = [seat._think_time() for _ in range(400)]
    assert all(1.0 <= wait <= 3.0 for wait in waits)
    assert min(waits) < 1.2 and max(waits) > 2.8
    assert 1.9 < sum(waits) / len(waits) < 2.1  # the pace is the mean
    seat.think = 0.0  # after the measured window the games play out at full speed
    assert seat._think_time() == 0.0


def test_a_worker_whose_bench_is_gone_closes_its_tables_and_ends(mosquitto: str) -> None:
    """A ``stacks bench load`` killed (-9) before its "go" leaves its workers' pipes at
    their end: each closes its tables and ends then, rather than measuring for nobody."""
    worker = subprocess.Popen(
        [sys.executable, "-m", "stacks.bench.load_worker", json.dumps({
            "urls": [mosquitto], "tables": [0], "pace": 0, "seconds": 3600,
            "prefix": "orphan"})],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert worker.stdout is not None and worker.stdin is not None
        assert worker.stdout.readline().strip() == "ready"
        worker.stdin.close()  # as the kernel does when the bench dies
        assert worker.wait(60 * SCALE) == 1
        assert worker.stdout.read() == ""
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()

"""`stacks bench web` in its small form: one browser-like spectator for a few seconds; the
figures are there and the latency is measured (not that it is fast); an interrupted run
leaves no process behind; a client reads a turn's header from a cut-up terminal stream."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from stacks.bench.ssh import tree
from stacks.bench.web import _Client
from tests.e2e.conftest import ROOT, SCALE, mosquitto_exe, stacks_command
from tests.support import wait_until

TIMEOUT = 240 * SCALE


def test_one_spectator_for_a_few_seconds_is_measured() -> None:
    if mosquitto_exe() is None:
        pytest.skip("mosquitto is not installed")
    done = subprocess.run(
        stacks_command("bench", "web", "--spectators", "1", "--seconds", "4", "--pace",
                       "0.2", "--json"),
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["benchmark"] == "web" and report["target_p99_ms"] == 100
    assert len(report["load_average_before"]) == 3
    [step] = report["steps"]
    assert step["spectators"] == 1 and step["connected"] == 1
    assert step["turns"] > 0 and step["samples"] + step["missed"] == step["turns"]
    assert step["samples"] > 0
    assert 0 <= step["p50_ms"] <= step["p99_ms"] <= step["max_ms"]
    assert step["kiosks_cpu_percent"] > 0 and step["web_cpu_percent"] >= 0
    assert step["pss_per_spectator_mib"] > 10  # a Textual program, read from /proc
    assert step["web_pss_mib"] > 10
    assert step["stream_kib_per_client_s"] > 0
    assert len(step["load_average"]) == 3
    within = report["most_spectators_within_target"]
    assert within == (1 if step["p99_ms"] <= 100 else None)


def _kiosk_among(pids: list[int]) -> bool:
    for pid in pids:
        try:
            if b"--kiosk" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                return True
        except OSError:
            continue
    return False


def _gone(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rindex(")") + 2] == "Z"


def test_an_interrupted_bench_stops_every_process_it_started() -> None:
    if mosquitto_exe() is None:
        pytest.skip("mosquitto is not installed")
    bench = subprocess.Popen(
        stacks_command("bench", "web", "--spectators", "1", "--seconds", "600", "--json"),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    started: list[int] = []
    try:

        def a_view_open() -> bool:
            nonlocal started
            assert bench.poll() is None, bench.communicate()
            started = tree(bench.pid)[1:]
            return _kiosk_among(started)

        wait_until(a_view_open, "the bench to open a view (broker, web server, host, kiosk)",
                   TIMEOUT / SCALE, interval=0.2)
        # Not a wait for a state: a moment more for whatever else the bench starts to be in
        # the tree read below; every process read there must be gone after the interrupt.
        time.sleep(1.0)
        started = tree(bench.pid)[1:]
        bench.send_signal(signal.SIGTERM)
        _, err = bench.communicate(timeout=120 * SCALE)
        assert bench.returncode == 130, err
        assert b"interrupted" in err
        left = [pid for pid in started if not _gone(pid)]
        assert left == [], f"still running: {left}"
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for pid in started:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_client_reads_a_turns_header_cut_between_messages() -> None:
    client = _Client(0)
    header = "\x1b[12;80H\x1b[2m── 1".encode()
    client.feed(header, 1.0)
    assert client.turns == {}
    client.feed("2. \x1b[0mAnn's turn \x1b[2m──\x1b[0m".encode(), 2.0)
    assert client.turns == {12: 2.0}
    # A repaint of the same line later keeps the first time it showed.
    client.feed("\x1b[11;80H\x1b[2m── 12. \x1b[0mAnn's turn".encode(), 3.0)
    assert client.turns == {12: 2.0}
    # A character cut in two between messages is read whole.
    data = "\x1b[13;80H── 13. Bo's turn".encode()
    cut = data.index("─".encode()) + 1
    client.feed(data[:cut], 4.0)
    client.feed(data[cut:], 5.0)
    assert client.turns[13] == 5.0

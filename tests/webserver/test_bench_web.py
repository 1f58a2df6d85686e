"""`stacks bench web` in its small form: two browser-like spectators of one table for a
few seconds, and the real Chromium beside them; the figures are there and the latency is
measured (not that it is fast); the Chromium's picture was read and matched the clients'
screens; an interrupted run leaves no process behind; a client reads a turn's header from
the screen it decodes, however the header's cells came; the browser's check tells a page
that shows another screen than the clients decoded; without a Chromium the bench says so
and starts nothing (or runs without one, told to); the tables' games start spread over a
pace, or all at once with --lockstep."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import time
from collections import deque
from pathlib import Path

import pytest

from stacks.bench.browser import chromium_exe
from stacks.bench.ssh import tree
from stacks.bench.web import _Client, _Screen, _starts
from stacks.bench.web_browser import compare, screen_rows, words
from tests.e2e.conftest import ROOT, SCALE, mosquitto_exe, stacks_command
from tests.support import wait_until

TIMEOUT = 240 * SCALE


def test_two_spectators_of_a_table_for_a_few_seconds_are_measured() -> None:
    if mosquitto_exe() is None:
        pytest.skip("mosquitto is not installed")
    # Without a Chromium (none installed) the bench runs told so, and checks no picture.
    told = ["--no-browser"] if chromium_exe() is None else []
    done = subprocess.run(
        stacks_command("bench", "web", "--spectators", "2", "--seconds", "4", "--pace",
                       "0.2", "--json", *told),
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["benchmark"] == "web" and report["target_p99_ms"] == 250
    assert report["tables"] == 1 and report["terminal"] == "120x40"
    assert len(report["load_average_before"]) == 3
    [step] = report["steps"]
    assert step["spectators"] == 2 and step["connected"] == 2
    assert step["turns"] > 0 and step["samples"] + step["missed"] == 2 * step["turns"]
    assert step["samples"] > 0
    assert 0 <= step["p50_ms"] <= step["p99_ms"] <= step["max_ms"]
    assert step["programs"] == 1  # one spectator program for the table's two visitors
    assert step["server_cpu_percent"] > 0 and step["web_cpu_percent"] >= 0
    assert step["server_rss_mib"] > 20  # the web server and a Textual program, from /proc
    assert step["mib_per_further_visitor"] is not None
    assert step["stream_kib_per_client_s"] > 0
    assert len(step["load_average"]) == 3
    within = report["most_spectators_within_target"]
    assert within == (2 if step["p99_ms"] <= 250 else None)
    browser = step["browser"]
    if told:
        assert browser == {"checked": False} and report["browser"].startswith("none")
        return
    # One real Chromium watched the table: every read of its terminal in the window was a
    # screen the websocket clients decoded, and it drew the turns' headers.
    assert browser["checked"] and browser["matched"], browser
    assert browser["reads"] > 0 and browser["reads_matched"] == browser["reads"], browser
    assert browser["screens_read"] > 1, browser  # the game moved on the page as it was read
    assert browser["mismatches"] == [] and report["browser_failures"] == []
    assert browser["samples"] + browser["missed"] == step["turns"], browser
    assert browser["samples"] > 0 and 0 <= browser["p50_ms"] <= browser["p99_ms"], browser


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


def test_a_client_reads_a_turns_header_from_its_screen() -> None:
    client = _Client(0, _Screen.blank(40, 4))
    client.feed(b"\x1b[?1049h\x1b[0m\x1b[H\x1b[2J\x1b[1;1HSeats\x1b[3;5H\x1b[0;2m\xe2\x94\x80"
                b"\xe2\x94\x80 11. \x1b[0;1mAnn's turn", 1.0)
    assert client.drawn.is_set() and client.turns == {11: 1.0}
    # Only the cells that changed are sent: "── 11." becomes "── 12." by one cell.
    client.feed(b"\x1b[3;9H2", 2.0)
    assert client.turns == {11: 1.0, 12: 2.0}
    # The header drawn again (the log scrolled) keeps the first time it showed.
    client.feed("\x1b[2;5H── 12. Ann's turn\x1b[3;5H── 13. Bo's turn".encode(), 3.0)
    assert client.turns == {11: 1.0, 12: 2.0, 13: 3.0}
    # Two clients in step reach the same screen; one whose bytes differ goes its own way.
    blank = _Screen.blank(40, 4)
    other, twin = _Client(1, blank), _Client(2, blank)
    other.feed(b"\x1b[4;1H\xe2\x94\x80\xe2\x94\x80 7. Bo", 1.0)
    twin.feed(b"\x1b[4;1H\xe2\x94\x80\xe2\x94\x80 7. Bo", 1.5)
    assert other.screen is twin.screen and twin.turns == {7: 1.5}
    twin.feed(b"\x1b[4;4H8", 2.0)
    assert other.screen is not twin.screen and twin.turns == {7: 1.5, 8: 2.0}


def _rows(*lines: str, height: int = 4) -> tuple[str, ...]:
    return tuple(lines) + ("",) * (height - len(lines))


def test_the_browser_check_tells_a_page_that_shows_another_screen() -> None:
    # The screens a websocket client decoded, as the page's terminal reads them.
    client = _Client(0, _Screen.blank(20, 4))
    client.history = deque()
    client.feed(b"\x1b[1;1HSeats  Ann  Bo\x1b[3;1H\xe2\x94\x80\xe2\x94\x80 1. Ann", 10.0)
    client.feed(b"\x1b[4;1HAnn plays 7\xe2\x99\xa0", 11.0)
    decoded = [(at, screen_rows(screen.rows)) for at, screen in client.history]
    assert decoded[1][1] == _rows("Seats  Ann  Bo", "", "── 1. Ann", "Ann plays 7♠")
    # The page read either screen, trailing blanks or not: every read matches.
    reads = [(10.2, _rows("Seats  Ann  Bo   ", "", "── 1. Ann")),
             (11.3, _rows("Seats  Ann  Bo", "", "── 1. Ann", "Ann plays 7♠"))]
    assert compare(reads, decoded) == (2, [])
    # A read a little ahead of the client's (the browser got the message first) matches.
    assert compare([(10.9, decoded[1][1])], decoded) == (1, [])
    # A card the page shows that no screen of the client had: a mismatch, in words.
    wrong = [(11.3, _rows("Seats  Ann  Bo", "", "── 1. Ann", "Ann plays 8♠"))]
    matched, told = compare(wrong, decoded)
    assert matched == 0
    assert told == ["1 row(s) differ from the websocket client's screen of that moment (nor "
                    "was it any screen the client had within 5 s); row 4 read 'Ann plays 8♠' "
                    "in the page, 'Ann plays 7♠' in the client"]
    # A screen the client had, but long before the read: the page is stuck, a mismatch.
    assert compare([(30.0, decoded[0][1])], decoded, slack=5.0)[0] == 0
    # A missing row (the terminal at another size) is one too.
    assert compare([(11.0, decoded[1][1][:3])], decoded)[0] == 0
    # And a mismatch fails the count, said in words.
    report = {"matched": False, "words": f"1 of 2 reads of the page's terminal were no "
              f"screen the websocket clients decoded: {told[0]}"}
    assert words(report).startswith("  browser: FAILED: 1 of 2 reads")


def test_without_chromium_the_bench_says_so_and_starts_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}  # no chromium (nor anything else) on PATH
    done = subprocess.run(stacks_command("bench", "web", "--spectators", "1", "--seconds",
                                         "1", "--json"),
                          cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stdout == ""
    assert "no Chromium found" in done.stderr and "--no-browser" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_tables_start_spread_over_a_pace_unless_in_lockstep() -> None:
    spread = _starts(argparse.Namespace(tables=4, pace=2.0, lockstep=False))
    assert spread == [0.0, 0.5, 1.0, 1.5]
    assert _starts(argparse.Namespace(tables=4, pace=2.0, lockstep=True)) == [0.0] * 4
    assert _starts(argparse.Namespace(tables=1, pace=0.5, lockstep=False)) == [0.0]

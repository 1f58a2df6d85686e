"""A late or restarted `stacks watch --headless` prints every public event exactly once,
in order, from the first batch: the same lines as a spectator that was there from the
start (real processes on a real Mosquitto)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import IO

from tests.e2e.conftest import ROOT, SCALE, stacks_command
from tests.support import wait_until


def _spawn(tmp_path: Path, *args: str, out: IO[str] | None = None) -> subprocess.Popen[str]:
    env = dict(os.environ, HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_DATA_HOME=str(tmp_path / "data"))
    return subprocess.Popen(stacks_command(*args), cwd=ROOT,
                            stdout=subprocess.PIPE if out is None else out,
                            stderr=subprocess.PIPE, text=True, env=env)


def _events(out: str) -> list[tuple[int, object]]:
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [(line["batch"], line["event"]) for line in lines if "batch" in line]


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=180 * SCALE)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"{proc.args} did not finish:\n{err}") from None
    return proc.returncode, out, err


def test_late_and_restarted_spectators_print_the_whole_game_once_in_order(
    mosquitto: str, tmp_path: Path,
) -> None:
    host = _spawn(tmp_path, "host", "--headless", "--players", "2", "--bots", "1",
                  "--bot-delay", "0.1", "--table", "late", "--broker", mosquitto,
                  "--profile", "host", "--record", str(tmp_path / "late.json"),
                  "--block-window", "0.5")
    early_file = tmp_path / "early.jsonl"
    early_out_file = early_file.open("w")
    early = _spawn(tmp_path, "watch", "late", "--headless", "--broker", mosquitto,
                   "--profile", "early", out=early_out_file)
    bot = _spawn(tmp_path, "bot", "late", "--broker", mosquitto, "--think", "0.1",
                 "--profile", "bot")
    procs = [host, early, bot]
    try:

        def well_into_the_game() -> bool:
            assert early.poll() is None, f"the early spectator ended with {early.returncode}"
            return len(early_file.read_text().splitlines()) >= 30

        wait_until(well_into_the_game, "30 lines from the early spectator", 60, interval=0.05)
        restarted = _spawn(tmp_path, "watch", "late", "--headless", "--broker", mosquitto,
                           "--profile", "late")
        procs.append(restarted)
        assert restarted.stdout is not None
        restarted.stdout.readline()
        os.kill(restarted.pid, signal.SIGKILL)  # killed mid-catch-up, started again
        restarted.wait(10)
        late = _spawn(tmp_path, "watch", "late", "--headless", "--broker", mosquitto,
                      "--profile", "late")
        procs.append(late)
        early_rc, _, early_err = _finish(early)
        early_out_file.close()
        late_rc, late_out, late_err = _finish(late)
        assert (early_rc, late_rc) == (0, 0), (early_err, late_err)
        late_events = _events(late_out)
        numbers = [n for n, _ in late_events]
        assert numbers[0] == 1 and numbers == sorted(numbers)
        assert sorted(set(numbers)) == list(range(1, numbers[-1] + 1))  # no gap
        # Exactly the events the spectator that was there from the start printed.
        assert late_events == _events(early_file.read_text())
        assert '"verification"' in late_out and '"ok": true' in late_out
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()

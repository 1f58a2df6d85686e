"""A LAN game counts on both machines: a headless host (one STACKS_HOME) and a player who
joins from the interface in a real terminal (tmux; another STACKS_HOME); afterwards
``stacks ratings`` on each shows the game once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, SCALE
from tests.e2e.test_tmux_ui import TMUX, Tmux, _wait_for
from tests.support import wait_until
from tests.tmux_env import tmux_env

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")


class QuietTmux(Tmux):
    """tmux on its own socket (``-L``), run without the ``$TMUX`` of a surrounding tmux."""

    def run(self, *args: str) -> str:
        assert TMUX is not None
        env = tmux_env()  # nor COLUMNS/LINES: in a pane that exports them, only the footer shows
        result = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True,
                                text=True, timeout=30, env=env)
        if result.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {result.stderr.strip()}")
        return result.stdout


@pytest.fixture
def mux() -> Iterator[QuietTmux]:
    server = QuietTmux(f"stacks-lan-ratings-{os.getpid()}")
    try:
        yield server
    finally:
        assert TMUX is not None
        subprocess.run([TMUX, "-L", server.socket, "kill-server"], capture_output=True,
                       timeout=30, env=tmux_env())


def _ratings(home: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-m", "stacks.cli", "ratings", "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "STACKS_HOME": str(home)})
    assert done.returncode == 0, done.stdout + done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_lan_game_counts_once_on_the_host_s_machine_and_on_the_joiner_s(
    mux: QuietTmux, embedded: str, tmp_path: Path,
) -> None:
    host_home, joiner_home = tmp_path / "host-machine", tmp_path / "joiner-machine"
    stacks = [sys.executable, "-m", "stacks.cli"]
    with open(tmp_path / "host.log", "w") as out:
        host = subprocess.Popen(
            [*stacks, "host", "--headless", "--players", "2", "--bots", "medium",
             "--table", "lanrated", "--broker", embedded, "--block-window", "0.5",
             "--rule", "win_chips=3", "--rule", "win-min-each-colour=0",
             "--verify-wait", "10"],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True,
            env={**os.environ, "STACKS_HOME": str(host_home)})
    try:
        mux.start("bo", [*stacks, "join", "lanrated", "--broker", embedded, "--name", "Bo",
                         "--profile", "bo"],
                  {"STACKS_HOME": str(joiner_home), "TERM": "xterm-256color",
                   "PYTHONPATH": str(ROOT)})
        _wait_for(mux, "bo", "lanrated · turn ", 90)

        def over_or_moved() -> bool:
            screen = mux.screen("bo")
            if "Game over" in screen:
                return True
            assert "[exited]" not in screen, screen
            mux.keys("bo", "b" if "Block?" in screen else "i")
            mux.keys("bo", "Enter")
            return False

        wait_until(over_or_moved, "the game's end", 600, interval=0.3,
                   diagnostics=lambda: mux.screen("bo"))
        # The start of the line only: where the game-over box wraps it depends on how long
        # the record's path above it is (the test's own folder); the ratings below are
        # the substance.
        screen = _wait_for(mux, "bo", "Rated: the game is in this", 60)
        assert "Fair deal: ✓ verified" in screen, screen
        assert host.wait(120 * SCALE) == 0, (tmp_path / "host.log").read_text()
        mux.keys("bo", "q")
        _wait_for(mux, "bo", "[exited]", 30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait(30)

    hosts, joiners = _ratings(host_home), _ratings(joiner_home)
    for seen in (hosts, joiners):
        players = seen["players"]
        assert isinstance(players, list)
        assert sorted((p["name"], p["games"]) for p in players) == \
            [("Bo", 1), ("Bot (medium)", 1)], seen
    assert {p["fingerprint"] for p in hosts["players"]} == \
        {p["fingerprint"] for p in joiners["players"]}  # type: ignore[union-attr]

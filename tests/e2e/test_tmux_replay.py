"""`stacks replay RECORD` in a real terminal (tmux): open a record, step to the end, quit.

The record is a real host's (the synchronous test table played to the end), written the
way ``stacks host --record`` writes it. Needs tmux (``apt-get install tmux``).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from netplay.record import write_record
from tests.e2e.conftest import ROOT
from tests.e2e.test_tmux_ui import TMUX, Tmux, _wait_for
from tests.netplay.harness import SHORT, Table

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")


@pytest.fixture
def tmux() -> Iterator[Tmux]:
    server = Tmux(f"stacks-replay-{os.getpid()}")
    try:
        yield server
    finally:
        server.kill()


def test_stacks_replay_opens_a_record_steps_to_the_end_and_quits(
    tmux: Tmux, tmp_path: Path,
) -> None:
    table = Table(3, seed=41, rules=SHORT)
    table.run_to_end()
    record = tmp_path / "game.json"
    write_record(record, table.host.record())
    events = sum(len(b.events) for b in table.host.batches)
    env = {"STACKS_HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    tmux.start("r", [sys.executable, "-m", "stacks.cli", "replay", str(record)], env)
    screen = _wait_for(tmux, "r", f"event 0/{events}", 60)
    assert "before the deal" in screen and "every hand" in screen
    tmux.keys("r", "]")
    screen = _wait_for(tmux, "r", "turn 1 ·", 30)
    tmux.keys("r", "Right")
    _wait_for(tmux, "r", "event ", 30)
    tmux.keys("r", "End")
    screen = _wait_for(tmux, "r", f"event {events}/{events}", 30)
    assert re.search(r"wins|draw", screen), screen
    assert "Game over" in screen  # the history's last line, the event just replayed
    tmux.keys("r", "v")
    _wait_for(tmux, "r", "'s view", 30)
    tmux.keys("r", "q")
    _wait_for(tmux, "r", "[exited]", 30)

"""The suite's tmux terminals are their own, even when the suite runs inside tmux.

Developers run the tests from a tmux pane: the suite then carries the outer tmux's
``TMUX``/``TMUX_PANE`` and the outer terminal's ``COLUMNS``/``LINES``. A program in a test's
tmux must still see its own pane (80x24 here), or Textual draws for the outer size and the
test reads only the footer. Both tmux helpers (tests/e2e/ and tests/sshserver/) are checked
with an outer tmux's variables set, as a nested run has them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_tmux_ui import TMUX, Tmux, _wait_for
from tests.sshserver.conftest import Tmux as SshTmux

pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")

SIZE = "import shutil; s = shutil.get_terminal_size(); print(f'size {s.columns}x{s.lines}')"


@pytest.fixture
def inside_tmux(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The suite's environment as a pane of a 132x43 tmux gives it."""
    monkeypatch.setenv("TMUX", f"{tmp_path / 'outer.sock'},4242,0")
    monkeypatch.setenv("TMUX_PANE", "%7")
    monkeypatch.setenv("COLUMNS", "132")
    monkeypatch.setenv("LINES", "43")


@pytest.fixture
def e2e_tmux() -> Iterator[Tmux]:
    server = Tmux(f"stacks-nested-{os.getpid()}")
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def ssh_tmux(tmp_path: Path) -> Iterator[SshTmux]:
    folder = tmp_path / "tmux"
    folder.mkdir()
    mux = SshTmux(folder)
    try:
        yield mux
    finally:
        mux.kill()


@pytest.mark.usefixtures("inside_tmux")
def test_an_e2e_terminal_has_its_own_size_when_the_suite_runs_in_tmux(e2e_tmux: Tmux) -> None:
    e2e_tmux.start("p", [sys.executable, "-c", SIZE], {})
    screen = _wait_for(e2e_tmux, "p", "[exited]", 30)
    assert "size 80x24" in screen, screen


@pytest.mark.usefixtures("inside_tmux")
def test_an_ssh_terminal_has_its_own_size_when_the_suite_runs_in_tmux(ssh_tmux: SshTmux) -> None:
    ssh_tmux.open("p", [sys.executable, "-c", SIZE], 80, 24)
    ssh_tmux.wait_exit("p")
    screen = ssh_tmux.screen("p")
    assert "size 80x24" in screen, screen

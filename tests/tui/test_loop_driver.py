"""The ssh sessions' terminal driver (`tui.driver.LoopDriver`), in a real terminal.

Each program under ``stacks serve`` reads its keys and writes its frames on its event
loop: no input thread waking ten times a second, no writer thread to hand each frame to.
Here ``stacks`` runs in a pseudo-terminal with that driver (``TEXTUAL_DRIVER``, as Textual
allows) and is used as a player would: the menu, the arrow keys, Escape on its own, a
terminal that stops reading for a while, quitting.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import struct
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stacks.bench.ui import Terminal
from tests.support import SCALE, wait_until
from tests.tui.conftest import TIMEOUT
from tui.app import make_app
from tui.driver import LoopDriver
from tui.serve_link import ServeLink

MENU = b"Play against bots"


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(TERM="xterm-256color", COLORTERM="truecolor", STACKS_HOME=str(home),
               XDG_DATA_HOME=str(home), XDG_STATE_HOME=str(home), XDG_CACHE_HOME=str(home),
               TEXTUAL_DRIVER="tui.driver:LoopDriver")
    env.pop("TEXTUAL", None)
    return env


@pytest.fixture
def menu(tmp_path: Path) -> Iterator[Terminal]:
    """``stacks`` at its menu in a 100x30 terminal, with the loop driver."""
    term = Terminal([sys.executable, "-m", "stacks.cli"], _env(tmp_path), 100, 30)
    try:
        term.read_until(MENU, timeout=TIMEOUT)
        term.settle(1.0, TIMEOUT)  # start-up paints (the footer) come after the first frame
        yield term
    finally:
        term.close()


def _switches(pid: int) -> int:
    """Context switches of all of ``pid``'s threads so far."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/status") as status:
            total += sum(int(line.split()[1]) for line in status if "ctxt_switches" in line)
    return total


def _press(term: Terminal, key: bytes, mark: bytes) -> bytes:
    """Press ``key``; what the program wrote until ``mark`` showed."""
    offset, _ = term.press(key)
    term.read_until(mark, offset, timeout=TIMEOUT)
    term.settle(0.1, TIMEOUT)
    return bytes(term.output[offset:])


def test_a_program_under_stacks_serve_drives_its_terminal_from_the_loop() -> None:
    """The app picks the driver when the ssh server started it (its link is there); a
    program in a terminal of its own keeps Textual's."""
    ours, theirs = socket.socketpair()
    try:
        served = make_app(link=ServeLink(theirs.fileno()))
        alone = make_app()
    finally:
        ours.close()
        theirs.close()
    if "TEXTUAL_DRIVER" not in os.environ:
        assert served.driver_class is LoopDriver
        assert alone.driver_class is not LoopDriver


def test_a_program_at_rest_does_not_wake(menu: Terminal) -> None:
    """A hundred sessions at their menus cost nothing: none of their threads wakes while
    nobody types (Textual's input thread looks at the terminal ten times a second)."""
    pid = menu.proc.pid
    woke: list[int] = []

    def a_quiet_second() -> bool:
        before = _switches(pid)
        menu.drain(1.0)  # a second's watch
        woke.append(_switches(pid) - before)
        return woke[-1] <= 2

    # Start-up work may still be going on at first.
    wait_until(a_quiet_second, "a second in which the program does not wake",
               TIMEOUT / SCALE, interval=0, diagnostics=lambda: f"it woke {woke} times")


def test_keys_move_the_highlight_and_escape_alone_is_a_key(menu: Terminal) -> None:
    repaint = _press(menu, b"\x1b[B", b"Host a table")  # down: the highlight moves on
    assert b"Play against bots" in repaint  # the line it left, painted again
    assert len(repaint) < 2000  # the two lines, not the screen
    _press(menu, b"\x1b[A", b"Play against bots")
    # Escape with nothing after it: a key once no more bytes follow (not a sequence's
    # start). The help screen opens with ?, and Escape closes it: the menu again.
    _press(menu, b"?", b"Esc closes")
    _press(menu, b"\x1b", MENU)


def test_a_terminal_that_stops_reading_does_not_stop_the_program(menu: Terminal) -> None:
    """The player's connection stalls (nothing reads the terminal) while the screen keeps
    changing: the program keeps running its loop (with Textual's writer thread it soon
    waits on the writer's full queue), and once the terminal reads again everything
    arrives, the latest screen last."""
    pid = menu.proc.pid
    for n in range(80):  # each resize repaints the whole screen: more than a pty holds
        rows = 30 - n % 2
        fcntl.ioctl(menu.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, 100, 0, 0))
        os.killpg(pid, signal.SIGWINCH)
        time.sleep(0.03)  # the stimulus: resizes one after the other, as a person's drag

    def waiting_in() -> str:
        with open(f"/proc/{pid}/wchan") as wchan:
            return wchan.read()

    # The kernel names where the program waits (a hardened one may not): for events.
    wait_until(lambda: waiting_in() in ("", "0") or "poll" in waiting_in(),
               "the program to wait for events", interval=0.05,
               diagnostics=lambda: f"it waits in {waiting_in()}")
    offset = len(menu.output)
    _press(menu, b"\x1b[B", b"Host a table")
    assert menu.proc.poll() is None
    assert len(menu.output) - offset > 20_000  # the stalled repaints came through too


def test_quitting_gives_the_terminal_back(menu: Terminal) -> None:
    offset, _ = menu.press(b"\x11")  # ctrl+q
    assert menu.proc.wait(TIMEOUT) == 0
    menu.drain(0.2)
    tail = bytes(menu.output[offset:])
    assert b"\x1b[?1049l" in tail  # off the alternate screen
    assert b"\x1b[?25h" in tail  # the cursor shown again
    attrs = termios.tcgetattr(menu.master)
    assert attrs[3] & termios.ICANON and attrs[3] & termios.ECHO  # a line terminal again

"""A trial's spectator: a person watching a table through the real terminal interface.

An OpenSSH client in a tmux window of its own (``ssh -tt … watch TABLE``): its session
runs what a real ``stacks serve`` session runs for ``watch`` (the Textual interface,
`stacks.bench.cluster.player` hands ``watch`` over to it). A thread reads the window's
screen every `LOOK_EVERY` seconds and keeps each screen that changed, with the time (a
toast lasts 10 s); the window stays when ssh exits (``remain-on-exit``), so what a
session said last as it ended is read too; its output goes to a log (``pipe-pane``).
When its ssh connection ends before the game is over on its screen, it connects again
at once in the same window, to ``again`` (the node that did not fail), as a person
would.

`Watcher.problems` reads the screens against the fault: the table drawn (its name and a
turn) before the fault; after it, the words of the move (or, for a drained node's
spectator, the words telling it to connect again, then the table again); the turn
growing past the fault's; the game-over screen.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

LOOK_EVERY = 0.2
"""Seconds between two reads of the spectator's screen."""
GAME_OVER = "Game over"
"""The game-over screen's headline (`tui.screens.gameover`)."""
NEW_KEY = "choose your name"
"""What the interface asks a key the server does not know yet (`tui.screens.account`):
the spectator takes the name it offers (its ssh login name), Enter, as a person would."""
MAX_CONNECTIONS = 6


@dataclass
class Screen:
    at: float
    """`time.time` when it was read."""
    text: str
    connection: int
    """Which of the spectator's ssh connections showed it (0: the first)."""


@dataclass
class Watcher:
    """The spectator of ``table``, its ssh client run by ``argv(node)`` in the tmux
    server at ``socket``, window ``name``."""

    name: str
    table: str
    socket: Path
    log: Path
    argv: Callable[[str], list[str]]
    tmux: Callable[..., subprocess.CompletedProcess[str] | None]
    """`trial.tmux` (a command of the tmux server at ``socket``: its result)."""
    again: str = "n2"
    screens: list[Screen] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    connects: list[float] = field(default_factory=list)
    """`time.time` of each ssh connection's start."""
    named: dict[int, float] = field(default_factory=dict)
    """Connection → when the spectator last took the name it was offered (Enter)."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    # -- running -----------------------------------------------------------------------------

    def start(self, node: str) -> None:
        self._connect(node)
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"spectator-{self.name}")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        with contextlib.suppress(subprocess.SubprocessError):
            self._look()
        with self.log.with_suffix(".screens").open("w") as out:
            for screen in self.screens:
                out.write(f"== {screen.at:.3f} connection {screen.connection}\n"
                          f"{screen.text.rstrip()}\n")

    def _connect(self, node: str) -> None:
        with self.log.open("ab") as out:
            out.write(f"{time.time():.3f} CONNECT {node}\r\n".encode())
        command = shlex.join(self.argv(node))
        if not self.nodes:
            self.tmux(self.socket, "new-session", "-d", "-s", self.name, "-x", "120",
                      "-y", "34", command)
            self.tmux(self.socket, "set-option", "-t", self.name, "remain-on-exit", "on")
        else:
            self.tmux(self.socket, "pipe-pane", "-t", self.name)  # closed: opened again
            self.tmux(self.socket, "respawn-pane", "-k", "-t", self.name, command)
        self.tmux(self.socket, "pipe-pane", "-t", self.name,
                  f"cat >> {shlex.quote(str(self.log))}")
        self.nodes.append(node)
        self.connects.append(time.time())

    def _ended(self) -> bool:
        """Whether its ssh ended (the window stays after it: ``pane_dead``); not when
        tmux did not answer."""
        done = self.tmux(self.socket, "display-message", "-p", "-t", self.name,
                         "#{pane_dead}")
        return done is not None and done.returncode == 0 and done.stdout.strip() == "1"

    def _look(self) -> None:
        done = self.tmux(self.socket, "capture-pane", "-p", "-t", self.name)
        if done is None or done.returncode != 0:
            return
        text = done.stdout
        if text.strip() and (not self.screens or self.screens[-1].text != text):
            self.screens.append(Screen(time.time(), text, len(self.nodes) - 1))
        connection = len(self.nodes) - 1
        if NEW_KEY in text and time.time() - self.named.get(connection, 0.0) > 2.0:
            # Once the question shows, and again if it is still asked 2 s later.
            self.named[connection] = time.time()
            self.tmux(self.socket, "send-keys", "-t", self.name, "Enter")

    def _run(self) -> None:
        while not self._stop.wait(LOOK_EVERY):
            try:
                self._step()
            except subprocess.SubprocessError:  # tmux slow to answer: the next look
                continue

    def _step(self) -> None:
        self._look()
        if self._stop.is_set() or not self._ended():
            return
        self._look()  # what it showed as its ssh ended
        if self.over() or len(self.nodes) >= MAX_CONNECTIONS:
            return
        self._connect(self.again)  # the ssh connection ended early: again, at once

    # -- what its screen showed --------------------------------------------------------------

    def _turns(self, screens: Sequence[Screen], *, over: bool = False) -> list[int]:
        """The turns its screens showed on the table's status line (``TABLE · turn N``)
        and, with ``over``, on its game-over screen (``Game over — … after N turns``)."""
        status = re.compile(re.escape(self.table) + r" · turn (\d+)|"
                            + GAME_OVER + r"[^\n]*after (\d+) turns")
        return [int(a or b) for screen in screens for a, b in status.findall(screen.text)
                if a or over]

    def drawn(self, before: float | None = None) -> bool:
        """Whether the table (its name and a turn number) was drawn (before ``before``)."""
        return bool(self._turns([s for s in self.screens
                                 if before is None or s.at < before]))

    def over(self) -> bool:
        return any(GAME_OVER in screen.text for screen in self.screens)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def problems(self, fault_at: float, *, moved: str | None, reconnect: str | None) -> list[str]:
        """What went wrong on the spectator's screen, in words: ``moved`` are the words it
        must read after the fault (``None``: none asked), ``reconnect`` the words telling
        it to connect again (its node drained; ``None``: it must keep its connection)."""
        who = f"the spectator {self.name} ({' then '.join(self.nodes)})"
        found: list[str] = []
        before = [s for s in self.screens if s.at < fault_at]
        after = [s for s in self.screens if s.at >= fault_at]
        turns = self._turns(before)
        if not turns:
            found.append(f"{who}: the table was not drawn (its name and turn) before the "
                         f"fault; its last screen:\n{_last(before)}")
        if moved is not None and not any(moved in _flat(s.text) for s in after):
            found.append(f"{who}: its screen never showed {moved!r} after the fault")
        if reconnect is not None:
            told = [s for s in after if reconnect in _flat(s.text)]
            if not told and reconnect not in self.output():
                found.append(f"{who}: its screen never showed {reconnect!r}")
            if len(self.nodes) < 2:
                found.append(f"{who}: it never connected again")
            elif not self._turns([s for s in after if s.connection >= 1], over=True):
                # Its game over counts: on a loaded machine the game may end in the 2-3 s
                # a new session's interface takes to start.
                found.append(f"{who}: the table was not drawn again after it connected "
                             f"again; its last screen:\n{_last(after)}")
        elif len(self.nodes) > 1:
            found.append(f"{who}: its ssh connection ended {len(self.nodes) - 1} time(s)")
        later = self._turns(after, over=True)
        if turns and not any(turn > max(turns) for turn in later):
            found.append(f"{who}: the game did not go on on its screen after the fault "
                         f"(turn {max(turns)} before it, {max(later, default=None)} after)")
        if not any(GAME_OVER in s.text for s in after):
            found.append(f"{who}: its screen never showed the game over; its last screen:\n"
                         f"{_last(after)}")
        return found


def _flat(text: str) -> str:
    """A screen's lines, each with its runs of spaces made one (words of a line)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def _last(screens: Sequence[Screen]) -> str:
    return screens[-1].text.rstrip() if screens else "(nothing)"

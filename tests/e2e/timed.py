"""A program under test whose output lines are read as they come, each with the time it
came (``time.monotonic()``), for tests that wait for what a program says and compare
when it said it."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.e2e.conftest import ROOT, SCALE, stacks_command


class Timed:
    """``stacks ARGS`` in its own process; :attr:`out` and :attr:`err` fill as it talks."""

    def __init__(self, home: Path, *args: str) -> None:
        env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / "config"),
                   XDG_DATA_HOME=str(home / "data"))
        self.proc = subprocess.Popen(stacks_command(*args), cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        self.out: list[tuple[float, str]] = []
        self.err: list[tuple[float, str]] = []
        self._changed = threading.Condition()
        self._readers = [threading.Thread(target=self._read, args=(stream, into), daemon=True)
                         for stream, into in ((self.proc.stdout, self.out),
                                              (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()

    def _read(self, stream: Any, into: list[tuple[float, str]]) -> None:
        for line in stream:
            with self._changed:
                into.append((time.monotonic(), line.rstrip("\n")))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def said(self, words: str, *, err: bool = False, timeout: float = 60.0) -> float:
        """When the program first said ``words`` (waiting for it); fails with everything
        it said if it never does or exits first."""
        lines = self.err if err else self.out
        deadline = time.monotonic() + timeout * SCALE
        with self._changed:
            while True:
                for at, line in lines:
                    if words in line:
                        return at
                if self.proc.poll() is not None and not any(r.is_alive() for r in self._readers):
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(min(left, 0.2))
        raise AssertionError(f"{self.proc.args[3:]} never said {words!r}:\n{self.text()}")

    def finish(self, timeout: float = 120.0) -> int:
        try:
            self.proc.wait(timeout * SCALE)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            for reader in self._readers:
                reader.join(5)
            raise AssertionError(f"{self.proc.args[3:]} did not finish:\n{self.text()}") \
                from None
        for reader in self._readers:
            reader.join(5)
        return self.proc.returncode

    def text(self) -> str:
        return "\n".join(["-- stdout:", *(line for _, line in self.out),
                          "-- stderr:", *(line for _, line in self.err)])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def json_lines(self) -> list[tuple[float, dict[str, Any]]]:
        """What ``watch --headless`` printed: its JSON lines, each with when it came."""
        return [(at, json.loads(line)) for at, line in self.out if line.startswith("{")]


def spectator_saw_every_batch_once(watcher: Timed, record: Path) -> float:
    """Check a headless spectator's lines against the game's record: every event of every
    batch once and in order, then the outcome, then a verified deal; when the last batch
    came."""
    batches = json.loads(record.read_text())["batches"]
    expected = [batch["n"] for batch in batches for _ in batch["events"]]
    lines = watcher.json_lines()
    numbers = [body["batch"] for _, body in lines if "batch" in body]
    assert numbers == expected, watcher.text()
    last = max(at for at, body in lines if "batch" in body)
    kinds = [next(iter(body)) for _, body in lines if "batch" not in body]
    assert kinds == ["outcome", "verification"], watcher.text()
    assert lines[-1][1]["verification"]["ok"] is True, watcher.text()
    return last

"""The progress bar of the long commands (tournament, simulate, bench load).

On stderr only, and only when stderr is a terminal: standard output stays what the
command prints (its table, its ``--json`` object), and a pipe, a file or a test's
captured output never sees a bar. It appears once the run has lasted ``delay`` seconds
(a short run shows none) and is gone when the run ends.
"""

from __future__ import annotations

import sys
import threading
from types import TracebackType
from typing import IO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

DELAY = 2.0
"""Seconds a run lasts before its bar appears."""


class Bar:
    """``with Bar("playing", total=400) as bar: ... bar.advance()``.

    ``stream`` (default stderr) gets the bar if it is a terminal; ``delay`` as
    :data:`DELAY`. ``total=None``: no count, only the time elapsed.
    """

    def __init__(
        self, description: str, total: float | None, *, stream: IO[str] | None = None,
        delay: float = DELAY,
    ) -> None:
        stream = sys.stderr if stream is None else stream
        isatty = getattr(stream, "isatty", None)
        self.shown = False
        self.enabled = bool(isatty and isatty())
        self._delay = delay
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        if not self.enabled:
            return
        columns = (
            [TextColumn("[progress.description]{task.description}"), BarColumn(),
             MofNCompleteColumn(), TimeRemainingColumn()]
            if total is not None
            else [TextColumn("[progress.description]{task.description}"), TimeElapsedColumn()]
        )
        self.progress = Progress(
            *columns, console=Console(file=stream, force_terminal=True), transient=True,
            auto_refresh=True,
        )
        self.task = self.progress.add_task(description, total=total)

    def __enter__(self) -> Bar:
        if self.progress is not None:
            if self._delay <= 0:
                self._show()
            else:
                self._timer = threading.Timer(self._delay, self._show)
                self._timer.daemon = True
                self._timer.start()
        return self

    def _show(self) -> None:
        with self._lock:
            if self._closed or self.progress is None:
                return
            self.progress.start()
            self.shown = True

    def advance(self, amount: float = 1) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task, amount)

    def update(self, *, description: str | None = None, completed: float | None = None,
               total: float | None = None) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=description, completed=completed,
                                 total=total)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            self._closed = True
            if self.shown and self.progress is not None:
                self.progress.stop()

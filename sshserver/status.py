"""What the ssh server's own terminal shows: its events, and the sessions and tables it
has (a live status line on a terminal, timestamped lines otherwise). Where players reach
the server is the server's own banner (`sshserver.server`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Collection, Mapping
from typing import Protocol, TextIO

log = logging.getLogger(__name__)


class Named(Protocol):
    """A session as the status line names it."""

    @property
    def name(self) -> str: ...


class Holding(Protocol):
    """The server's held tables, as the status line counts them."""

    @property
    def tables(self) -> Mapping[str, object]: ...


class Counted(Protocol):
    """What the status line reads of the server: its sessions and its held tables."""

    @property
    def sessions(self) -> Collection[Named]: ...

    @property
    def tables(self) -> Holding: ...


class Status:
    """Events and the session count on the server's terminal.

    On a terminal: a live status line under the events; otherwise timestamped lines.
    """

    def __init__(self, out: TextIO | None = None, *, log_status: bool = False) -> None:
        self.out = out
        self.log_status = log_status
        """Log the status line when it changes (JSON logs: ``out`` is then ``None``)."""
        self._live: Callable[[str], None] | None = None
        self._print: Callable[[str], None] | None = None
        self.line = ""

    def attach(self, live: Callable[[str], None], printer: Callable[[str], None]) -> None:
        self._live, self._print = live, printer

    def event(self, text: str, kind: str = "notice", **fields: object) -> None:
        """One of the server's events, in words; ``kind`` and ``fields`` name it for
        JSON logs (`sshserver.logformat`)."""
        log.info("%s", text, extra={"event": kind, "fields": fields})
        if self._print is not None:
            self._print(text)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {text}", file=self.out, flush=True)

    def changed(self, server: Counted) -> None:
        n = len(server.sessions)
        names = sorted(s.name for s in server.sessions if s.name)
        line = f"{n} session{'s' if n != 1 else ''} connected"
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            line += f": {shown}"
        tables = len(server.tables.tables)
        if tables:
            line += f" · {tables} table{'s' if tables != 1 else ''} held"
        if line == self.line:
            return
        self.line = line
        if self.log_status:
            log.info("%s", line, extra={"event": "status", "fields": {
                "sessions": n, "tables": tables}})
        if self._live is not None:
            self._live(line)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {line}", file=self.out, flush=True)


"""What the ssh server's own terminal shows: its events, the sessions and tables it has
(a live status line on a terminal, timestamped lines otherwise), and where players reach
it."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

from broker.address import lan_address
from sshserver.keys import fingerprint

if TYPE_CHECKING:
    from sshserver.server import GameServer

log = logging.getLogger(__name__)


class Status:
    """Events and the session count on the server's terminal.

    On a terminal: a live status line under the events; otherwise timestamped lines.
    """

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self._live: Callable[[str], None] | None = None
        self._print: Callable[[str], None] | None = None
        self.line = ""

    def attach(self, live: Callable[[str], None], printer: Callable[[str], None]) -> None:
        self._live, self._print = live, printer

    def event(self, text: str) -> None:
        log.info("%s", text)
        if self._print is not None:
            self._print(text)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {text}", file=self.out, flush=True)

    def changed(self, server: GameServer) -> None:
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
        if self._live is not None:
            self._live(line)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {line}", file=self.out, flush=True)


def where_lines(server: GameServer) -> list[str]:
    settings = server.settings
    bind = settings.bind or "0.0.0.0"
    shown = "HOST"
    if bind in ("0.0.0.0", "::"):
        shown = lan_address() or socket.gethostname()
    elif bind:
        shown = bind
    port = server.port
    flag = "" if port == 22 else f"-p {port} "
    if settings.open:
        who = "any ssh key may connect (--open)"
    else:
        count = server.authorized.count if server.authorized else 0
        who = f"{count} authorized key{'s' if count != 1 else ''} in {settings.keys_path}"
        if count == 0:
            who += " (nobody new can connect)"
        who += ", and the keys added to accounts"
    broker = settings.broker or "mqtt://127.0.0.1:1883 (this machine)"
    key = fingerprint(server.host_key) if server.host_key else "?"
    lines = [
        f"ssh server on {bind}:{port} · players: ssh {flag}NAME@{shown}",
        f"{who} · tables on {broker}",
        f"host key {key} · Ctrl-C to stop",
    ]
    if server.web is not None:
        lines.insert(2, f"web page of the held tables on {server.web.url} (at most "
                     f"{settings.web_max_spectators} browser spectators)")
    return lines


# -- the command --------------------------------------------------------------------------------

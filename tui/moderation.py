"""What a player of an ssh server does about moderation from the table: every chat line
goes by the server first (op ``chat``: a muted player's line is refused in words, the
server's word filter masks what it must), ``!NAME why`` reports a player and their last
chat lines to the moderators (op ``report``), and the server's lines to everyone, or to
this player, are shown as they come (op ``notices``, asked every few seconds)."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from tui.serve_link import LinkError

if TYPE_CHECKING:
    from tui.appbase import GameApp
    from tui.control import Control

NOTICE_EVERY = 5.0
"""Seconds between two asks for the server's lines."""
REPORT_USAGE = ("Report a player: !NAME and why, e.g. \"!bob insults\" (their last chat "
                "lines here go with it to the moderators).")
NOTICE_SHOWN = 12.0
"""Seconds a line of the server stays on the screen."""
HEARD = 60
"""Chat lines a table keeps to send with a report."""


def heard_lines() -> deque[tuple[str, str]]:
    return deque(maxlen=HEARD)


def _speaker(shown: str) -> str:
    """The name a chat line was shown under, less its ``(watching)`` or ``(host)``."""
    name, _, _ = shown.partition(" (")
    return name.strip().casefold()


async def send_checked(control: Control, text: str) -> None:
    """Send a chat line by way of the server (or report, for ``!NAME why``)."""
    app = control.app
    link = app.link
    assert link is not None
    table = control.launch.table if control.launch is not None else ""
    if text.startswith("!"):
        await _report(control, text[1:].strip(), table)
        return
    try:
        reply = await link.request("chat", table=table, text=text)
    except LinkError as exc:
        app.notify(f"Not sent: {exc}", severity="warning", timeout=10)
        return
    if control.session is not None:
        control.session.chat(str(reply.get("text") or text))


async def _report(control: Control, words: str, table: str) -> None:
    app = control.app
    assert app.link is not None
    target, _, reason = words.partition(" ")
    if not target:
        app.notify(REPORT_USAGE, timeout=10)
        return
    heard = control.following.heard if control.following is not None else ()
    said = [f"{name}: {line}" for name, line in heard if _speaker(name) == target.casefold()]
    try:
        reply = await app.link.request("report", target=target, reason=reason.strip(),
                                       table=table, line=" / ".join(said[-3:]))
    except LinkError as exc:
        app.notify(f"Report not sent: {exc}", severity="warning", timeout=10)
        return
    app.notify(str(reply.get("note") or "Your report reached the moderators."), timeout=8)


class Notices:
    """The server's lines for this session, asked for every :data:`NOTICE_EVERY` s."""

    def __init__(self, app: GameApp) -> None:
        self.app = app
        self.after: int | None = None

    def start(self) -> None:
        self.app.set_interval(NOTICE_EVERY, self.ask)

    async def ask(self) -> None:
        link = self.app.link
        if link is None:
            return
        try:
            reply = await link.request("notices", after=self.after)
        except LinkError:
            return  # an older server, or a busy one: the next ask
        last = reply.get("last")
        if isinstance(last, int) and not isinstance(last, bool):
            self.after = last
        lines = reply.get("lines")
        for line in lines if isinstance(lines, list) else []:
            self.app.notify(str(line), title="Server", timeout=NOTICE_SHOWN)

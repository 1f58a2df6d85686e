"""The menu's Moderate, for the accounts an ssh server names moderators: a command line
and the server's answers. The commands are the server's (``help`` lists them: who, mute,
rename, ban, close, say, audit, reports...); each line goes over the session's link (op
``moderate``) and the server does it and says what it did."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, RichLog

from tui.appbase import GameApp
from tui.serve_link import LinkError


class ModerateScreen(Screen[None]):
    """Type a moderator's command; the server's answer is written below."""

    CSS_PATH = "moderate.tcss"
    AUTO_FOCUS = "#moderate-line"  # the command line, never the log above it
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="moderate-box"):
            yield Label("[b]Moderate[/]  [dim]help lists the commands · every action is in "
                        "the audit log[/]", id="moderate-title")
            yield RichLog(id="moderate-log", wrap=True, markup=False, highlight=False)
            yield Input(id="moderate-line", placeholder="e.g. who · reports · mute NAME 10m "
                        "why", compact=True)
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        self.query_one("#moderate-line", Input).focus()
        await self._run("reports")

    @on(Input.Submitted, "#moderate-line")
    async def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        line = event.value.strip()
        event.input.value = ""
        if line:
            await self._run(line)

    async def _run(self, line: str) -> None:
        log = self.query_one("#moderate-log", RichLog)
        log.write(f"> {line}")
        app = self.app
        if not isinstance(app, GameApp) or app.link is None:
            log.write("Moderation belongs to an ssh server (stacks serve).")
            return
        try:
            reply = await app.link.request("moderate", line=line)
        except LinkError as exc:
            log.write(f"refused: {exc}")
            return
        log.write(str(reply.get("text") or "done"))

    def action_back(self) -> None:
        self.dismiss(None)

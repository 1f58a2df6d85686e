"""Your account on an ssh server: the name asked at first login, and the menu's Account
(change the name, add another key, remove one). The server owns the accounts; these
screens ask it over the session's link (`tui.serve_link`, ops ``name``, ``add_key`` and
``remove_key``) and show its answer, a refusal in its words. A key added to the account
logs in to it from then on (the server's authorized keys need not list it); a removed
key does not."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Input, Label

from tui.appbase import GameApp
from tui.serve_link import LinkError, Reply

MAX_NAME = 24


async def _ask(screen: Screen[Any], op: str, **fields: object) -> Reply:
    app = screen.app
    assert isinstance(app, GameApp) and app.link is not None
    return await app.link.request(op, **fields)


class NameScreen(Screen[str | None]):
    """First login with a key the server does not know: choose the name you play under.
    Dismissed with the name the server took; Esc leaves (``None``)."""

    CSS_PATH = "account.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "leave", "Leave")]

    def __init__(self, suggestion: str = "") -> None:
        super().__init__()
        self.suggestion = suggestion

    def compose(self) -> ComposeResult:
        with Vertical(id="account-box"):
            yield Label("[b]Welcome: choose your name[/]", id="account-title")
            yield Label("This server does not know your key yet. The name you choose is "
                        "yours here: others see it at the tables and on the leaderboard, "
                        "and you can change it later from the menu (a).",
                        id="account-words")
            yield Input(self.suggestion, id="account-name", max_length=MAX_NAME * 2,
                        placeholder="your name")
            yield Label("", id="account-error")
            yield Label("[dim]Enter: take this name · Esc: leave[/]", id="account-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#account-name", Input).focus()

    @on(Input.Submitted, "#account-name")
    async def submitted(self, event: Input.Submitted) -> None:
        event.stop()
        error = self.query_one("#account-error", Label)
        error.update("[dim]Asking the server…[/]")
        try:
            reply = await _ask(self, "name", name=event.value)
        except LinkError as exc:
            error.update(f"[b]Refused:[/] {escape(str(exc))}")
            return
        self.dismiss(str(reply["name"]))

    def action_leave(self) -> None:
        self.dismiss(None)


class AccountScreen(Screen[str | None]):
    """The menu's Account: your name and keys; change the name, add a key, remove one.
    Dismissed with the name you play under now."""

    CSS_PATH = "account.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self) -> None:
        super().__init__()
        self.name_now: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="account-box"):
            yield Label("[b]Your account[/]", id="account-title")
            yield Label("", id="account-words")
            yield Label("New name", classes="account-label")
            yield Input(id="account-name", max_length=MAX_NAME * 2, placeholder="your name",
                        compact=True)
            yield Label("Add a key: paste its .pub line; it logs in as you",
                        classes="account-label")
            yield Input(id="account-key", placeholder="ssh-ed25519 AAAA… you@laptop",
                        compact=True)
            yield Label("Remove a key: its .pub line or its SHA256:… fingerprint",
                        classes="account-label")
            yield Input(id="account-remove", placeholder="SHA256:… or ssh-ed25519 AAAA…",
                        compact=True)
            yield Label("", id="account-error")
            yield Label("[dim]Enter: do it · Tab: the next field · Esc: back to the menu[/]",
                        id="account-keys")
        yield Footer(compact=True)

    async def on_mount(self) -> None:
        self.query_one("#account-name", Input).focus()
        try:
            self._show(await _ask(self, "account"))
        except LinkError as exc:
            self._said(f"[b]The server did not answer:[/] {escape(str(exc))}")

    def _show(self, reply: Reply) -> None:
        self.name_now = str(reply.get("name") or "")
        keys = int(reply.get("keys") or 0)
        listed = reply.get("key_list")
        here = reply.get("this_key")
        shown = "".join(
            f"\n  {escape(str(k))}{' (this connection)' if k == here else ''}"
            for k in (listed if isinstance(listed, list) else []))
        words = (f"You play as [b]{escape(self.name_now)}[/]; "
                 f"{keys} key{'s' if keys != 1 else ''} log{'s' if keys == 1 else ''} in "
                 f"to this account:{shown}" if reply.get("account") else
                 f"You play as [b]{escape(self.name_now)}[/] (no account yet: choose a "
                 "name to make one).")
        self.query_one("#account-words", Label).update(words)

    def _said(self, text: str) -> None:
        self.query_one("#account-error", Label).update(text)

    @on(Input.Submitted, "#account-name")
    async def rename(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            reply = await _ask(self, "name", name=event.value)
        except LinkError as exc:
            self._said(f"[b]Refused:[/] {escape(str(exc))}")
            return
        self._show(reply)
        event.input.value = ""
        self._said(f"Your name is now [b]{escape(str(reply['name']))}[/].")

    @on(Input.Submitted, "#account-key")
    async def add_key(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            reply = await _ask(self, "add_key", key=event.value)
        except LinkError as exc:
            self._said(f"[b]Refused:[/] {escape(str(exc))}")
            return
        self._show(reply)
        event.input.value = ""
        self._said(escape(str(reply.get("note") or "Added.")))

    @on(Input.Submitted, "#account-remove")
    async def remove_key(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            reply = await _ask(self, "remove_key", key=event.value)
        except LinkError as exc:
            self._said(f"[b]Refused:[/] {escape(str(exc))}")
            return
        self._show(reply)
        event.input.value = ""
        self._said(escape(str(reply.get("note") or "Removed.")))

    def action_back(self) -> None:
        self.dismiss(self.name_now)

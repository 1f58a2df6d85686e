"""Join or watch: which table, on which broker, under which name (and the password)."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.markup import escape
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Button, Footer, Input, Label, OptionList
from textual.widgets.option_list import Option

from netplay.lobby import TableInfo
from netplay.topics import check_table_name
from netplay.transport import BrokerAddress
from tui.discovery import find_tables
from tui.launch import DEFAULT_BROKER, Launch
from tui.messages import Start

LOOK_AGAIN = 3.0
"""Seconds between looks for tables on the LAN while none has been found."""


class ConnectScreen(Screen[None]):
    """A short form; Enter in the last field (or the button) connects."""

    CSS_PATH = "connect.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "connect", "Connect", priority=True),
        Binding("ctrl+r", "search", "Look again"),
    ]

    def __init__(self, role: Literal["join", "watch"], defaults: Launch, *,
                 ask_password: bool = False) -> None:
        super().__init__()
        self.role = role
        self.defaults = defaults
        self.ask_password = ask_password
        self._found: list[TableInfo] = []
        self._again: Timer | None = None

    def compose(self) -> ComposeResult:
        d = self.defaults
        verb = "Join" if self.role == "join" else "Watch"
        with Vertical(id="connect-box"):
            yield Label(f"[b]{verb} a table[/]", id="connect-title")
            yield Label("Looking for tables on the LAN…", id="connect-found-title")
            yield OptionList(id="connect-found")
            # Compact fields (one line each): the whole form, button included, fits 80x24
            # with a list of found tables above it.
            yield _field("Table", Input(d.table, id="connect-table", compact=True))
            yield _field("Broker", Input(d.broker or DEFAULT_BROKER, id="connect-broker",
                                         compact=True))
            yield _field("Your name", Input(d.display_name(), id="connect-name",
                                            max_length=24, compact=True))
            if self.role == "join":
                yield _field("Password", Input(d.password or "", id="connect-password",
                                               password=True, placeholder="none",
                                               compact=True))
            yield Label("", id="connect-error")
            yield Button(verb, id="connect-go", variant="primary", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        # Straight to the first field that still needs an answer.
        first = "#connect-table"
        if self.role == "join" and self.defaults.table and self.defaults.password is None \
                and self.ask_password:
            first = "#connect-password"
        self.query_one(first, Input).focus()
        self.query_one("#connect-found", OptionList).display = False
        self.action_search()

    def action_search(self) -> None:
        """Look for tables on the LAN's brokers (and on the broker given, if any)."""
        if self._again is not None:
            self._again.stop()
            self._again = None
        self.query_one("#connect-found-title", Label).update("Looking for tables on the LAN…")
        self.run_worker(self._search(), exclusive=True, group="search")

    async def _search(self) -> None:
        given = [self.defaults.broker] if self.defaults.broker else []
        title = self.query_one("#connect-found-title", Label)
        try:
            self._found = await find_tables(2.0, brokers=given)
        except Exception as exc:  # discovery is a convenience: never take the form down
            title.update(f"Could not look on the LAN ({escape(str(exc))}): type the address.")
            return
        found = self.query_one("#connect-found", OptionList)
        found.clear_options()
        if not self._found:
            title.update("No table found on the LAN yet, still looking (ctrl+r looks now): "
                         "or type the table and the broker address.")
            found.display = False
            # A table started after the form opened (or still announcing) turns up by itself.
            self._again = self.set_timer(LOOK_AGAIN, self.action_search)
            return
        title.update("Tables found: ↑↓ and Enter pick one (ctrl+r looks again), or type "
                     "the table below:")
        me = self._my_key()
        found.add_options([Option(escape(t.line(me))) for t in self._found])
        found.highlighted = 0
        found.display = True
        # Enter should pick a found table, as the line above says, unless the user has
        # already started on the form (the table field is no longer the default).
        table = self.query_one("#connect-table", Input)
        if table.has_focus and table.value == self.defaults.table:
            found.focus()

    def _my_key(self) -> bytes | None:
        """Our profile's key, to say "your seat" of a table where it is seated."""
        from netplay.identity import profiles_dir
        from tui.appbase import GameApp
        from tui.discovery import profile_key
        from tui.launch import default_profile

        app = self.app
        base = app.profiles if isinstance(app, GameApp) else None
        return profile_key(base or profiles_dir(), self.defaults.profile or default_profile())

    @on(OptionList.OptionSelected, "#connect-found")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        table = self._found[event.option_index]
        self.query_one("#connect-table", Input).value = table.table
        self.query_one("#connect-broker", Input).value = table.broker
        target = "#connect-password" if table.password and self.role == "join" else "#connect-name"
        self.query_one(target, Input).focus()

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query(Input))
        at = inputs.index(event.input)
        if at + 1 < len(inputs):
            inputs[at + 1].focus()
        else:
            self.action_connect()

    @on(Button.Pressed, "#connect-go")
    def _go(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_connect()

    def action_connect(self) -> None:
        error = self.query_one("#connect-error", Label)
        table = self.query_one("#connect-table", Input).value.strip()
        broker = self.query_one("#connect-broker", Input).value.strip() or DEFAULT_BROKER
        name = self.query_one("#connect-name", Input).value.strip()
        password = None
        if self.role == "join":
            password = self.query_one("#connect-password", Input).value or None
        try:
            check_table_name(table)
            BrokerAddress.parse(broker)
        except ValueError as exc:
            error.update(f"[b]{escape(str(exc))}[/]")
            return
        launch = replace(self.defaults, role=self.role, table=table, broker=broker,
                         name=name or self.defaults.display_name(), password=password,
                         table_open=True)
        self.post_message(Start(launch))

    def action_back(self) -> None:
        self.app.pop_screen()


def _field(label: str, widget: Input) -> Horizontal:
    return Horizontal(Label(label, classes="connect-label"), widget, classes="connect-row")

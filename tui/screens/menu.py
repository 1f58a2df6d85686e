"""The main menu: play against bots, host, join, watch, rules, quit."""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from tui.messages import Start

LOGO = """\
[b]┌─┐┌─┐┌─┐ ┬ ┬┌─┐┌┐┌┌─┐┌─┐  ┌─┐┌┬┐┌─┐┌─┐┬┌─┌─┐[/]
[b]└─┐├┤ │─┼┐│ │├┤ ││││  ├┤   └─┐ │ ├─┤│  ├┴┐└─┐[/]
[b]└─┘└─┘└─┘└└─┘└─┘┘└┘└─┘└─┘  └─┘ ┴ ┴ ┴└─┘┴ ┴└─┘[/]"""

ITEMS = [
    ("play", "p", "Play against bots", "you and three bots, right now"),
    ("host", "h", "Host a table", "friends join from other terminals"),
    ("join", "j", "Join a table", "a table someone hosts"),
    ("watch", "w", "Watch a table", "follow a game as a spectator"),
    ("rules", "r", "Rules", "how to play"),
    ("quit", "q", "Quit", ""),
]


class MenuScreen(Screen[None]):
    """Pick what to do; each item has a key, arrows and Enter work too."""

    CSS_PATH = "menu.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"choose('{ident}')", title.split()[0], show=ident != "rules")
        for ident, key, title, _ in ITEMS
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="menu-box"):
            yield Label(LOGO, id="menu-logo")
            yield Label("[dim]Goliath's card game, in the terminal[/]", id="menu-tagline")
            yield OptionList(
                *[Option(f"[b]{key}[/]  {title}  [dim]{more}[/]", id=ident)
                  for ident, key, title, more in ITEMS],
                id="menu-options",
            )
        yield Footer(compact=True)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.action_choose(event.option.id)

    def action_choose(self, ident: str) -> None:
        from tui.app import StacksApp

        app = self.app
        assert isinstance(app, StacksApp)
        defaults = app.defaults
        if ident == "quit":
            app.exit()
        elif ident == "rules":
            app.action_rules()
        elif ident == "play":
            players = defaults.players if defaults.role == "play" else 4
            self.post_message(Start(replace(defaults, role="play", players=players,
                                            bots=players - 1, broker=None, table_open=True)))
        elif ident == "host" and app.link is not None:
            # Under `stacks serve`: the server holds the table; we ask it, then sit at it.
            self.post_message(Start(replace(defaults, role="host", bots=0, table_open=False,
                                            held=True)))
        elif ident == "host":
            from tui.commands.net import default_record_path

            table = defaults.table
            self.post_message(Start(replace(
                defaults, role="host", bots=0, table_open=False, bind="0.0.0.0",
                port=1883, broker=defaults.broker, record=default_record_path(table))))
        elif ident in ("join", "watch"):
            from tui.screens.connect import ConnectScreen

            app.push_screen(ConnectScreen("join" if ident == "join" else "watch", defaults))

"""The main menu: play against bots, host, join, watch, rules, quit."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from tui.appbase import GameApp
from tui.compositor import use_swift_compositor
from tui.launch import Launch
from tui.messages import Start
from tui.screens.choice import Answer, ChoiceScreen
from tui.widgets.options import SwiftOptionList

if TYPE_CHECKING:
    from netplay.journal import TableJournal
    from netplay.lobby import TableInfo

LOGO = """\
[b]┌─┐┌─┐┌─┐ ┬ ┬┌─┐┌┐┌┌─┐┌─┐  ┌─┐┌┬┐┌─┐┌─┐┬┌─┌─┐[/]
[b]└─┐├┤ │─┼┐│ │├┤ ││││  ├┤   └─┐ │ ├─┤│  ├┴┐└─┐[/]
[b]└─┘└─┘└─┘└└─┘└─┘┘└┘└─┘└─┘  └─┘ ┴ ┴ ┴└─┘┴ ┴└─┘[/]"""

ITEMS = [
    ("play", "p", "Play against bots", "you and three bots, right now"),
    ("host", "h", "Host a table", "friends join from other terminals"),
    ("game", "g", "Game", ""),
    ("join", "j", "Join a table", "a table someone hosts"),
    ("resume", "e", "Resume a table", "bring back an unfinished table you hosted"),
    ("watch", "w", "Watch a table", "follow a game as a spectator"),
    ("replay", "v", "Replay a game", "step through a finished game"),
    ("ratings", "k", "Rankings", "the leaderboard, your games, your card"),
    ("learn", "l", "Learn to play", "a first game that shows every card"),
    ("theme", "t", "Theme", ""),
    ("bell", "b", "Bell", ""),
    ("account", "a", "Account", "your name on this server, your keys"),
    ("moderate", "m", "Moderate", "mute, rename, ban; reports and the audit log"),
    ("rules", "r", "Rules", "how to play"),
    ("quit", "q", "Quit", ""),
]


FOOTER_LEAVES_OUT = ("game", "resume", "learn", "theme", "bell", "account", "moderate",
                     "rules")
"""Items the footer does not repeat (each shows its key in the list): what is left fits
80 columns whole, the command palette's key with it."""


GAMES_OFFERED = (("stacks", "Sequence Stacks"), ("sequence", "Sequence"))
"""The games the menu plays and hosts: ``g`` switches between them."""


def game_prompt(variant: str) -> str:
    """The menu's game line: the game Play and Host deal, and what ``g`` switches to."""
    title = dict(GAMES_OFFERED).get(variant, variant)
    if variant == "sequence":
        title = "Sequence (classic, the board)"
    other = next(t for name, t in GAMES_OFFERED if name != variant)
    return f"[b]g[/]  Game: [b]{title}[/]  [dim]g: {other}[/]"


class MenuScreen(Screen[None]):
    """Pick what to do; each item has a key, arrows and Enter work too. ``g`` chooses the
    game that Play and Host deal (Sequence Stacks or classic Sequence)."""

    CSS_PATH = "menu.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"choose('{ident}')", title.split()[0],
                show=ident not in FOOTER_LEAVES_OUT)
        for ident, key, title, _ in ITEMS
    ]

    def __init__(self) -> None:
        super().__init__()
        use_swift_compositor(self)  # a highlight move renders its two lines, no more
        self.waiting: list[TableInfo] = []
        """Running tables where this profile holds a seat, offered first."""

    def compose(self) -> ComposeResult:
        with Vertical(id="menu-box"):
            yield Label(LOGO, id="menu-logo")
            yield Label("[dim]Goliath's card game, in the terminal[/]", id="menu-tagline")
            served = isinstance(self.app, GameApp) and self.app.link is not None
            yield SwiftOptionList(
                *[Option(self._prompt(ident, key, title, more), id=ident)
                  for ident, key, title, more in ITEMS
                  if (ident != "account" or served)  # accounts are an ssh server's
                  and (ident != "moderate" or self._moderator())],
                id="menu-options", announce=False,  # nothing here follows the highlight
            )
        yield Footer(compact=True)

    def _moderator(self) -> bool:
        app = self.app
        return isinstance(app, GameApp) and app.link is not None and app.moderator

    def on_mount(self) -> None:
        # The look imports the network, which the menu itself does not need: it waits for
        # the menu's first frame (docs/architecture.md, "Start-up").
        if isinstance(self.app, GameApp):
            self.app.after_first_frame(
                lambda: self.run_worker(self._look_for_seats(), group="seats", exclusive=True))

    async def _look_for_seats(self) -> None:
        """A player whose profile holds a seat at a running table is offered it first."""
        from netplay.paths import profiles_dir
        from tui.discovery import profile_key, seats_waiting
        from tui.launch import default_profile

        app = self.app
        if not isinstance(app, GameApp):
            return
        defaults = app.defaults
        base = app.profiles or profiles_dir()
        profile = defaults.profile or default_profile()
        key = profile_key(base, profile)
        if key is None:
            return
        try:
            found = await seats_waiting(base / profile, key, brokers=[
                b for b in (defaults.broker,) if b is not None])
        except Exception:  # a convenience: the menu works without it
            return
        if not found or not self.is_attached:
            return
        self.waiting = found[:3]
        options = self.query_one("#menu-options", OptionList)
        options.clear_options()
        options.add_options(
            [Option(_seat_prompt(t), id=f"seat:{i}") for i, t in enumerate(self.waiting)]
            + [Option(self._prompt(ident, key, title, more), id=ident)
               for ident, key, title, more in ITEMS])
        options.highlighted = 0
        options.focus()

    def _prompt(self, ident: str, key: str, title: str, more: str) -> str:
        if ident == "game":
            return game_prompt(self._variant())
        app = self.app
        if ident == "theme":
            return f"[b]{key}[/]  Theme: [b]{escape(app.theme)}[/]  [dim]t: the next one[/]"
        if ident == "bell" and isinstance(app, GameApp):
            on = app.settings.bell
            return (f"[b]{key}[/]  Bell: [b]{'on' if on else 'off'}[/]  [dim]"
                    + ("rings when a networked table turns to you" if on else "b: on")
                    + "[/]")
        return f"[b]{key}[/]  {title}  [dim]{more}[/]"

    def _variant(self) -> str:
        app = self.app
        return app.defaults.variant if isinstance(app, GameApp) else "stacks"

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.action_choose(event.option.id)

    def action_choose(self, ident: str) -> None:
        app = self.app
        assert isinstance(app, GameApp)
        defaults = app.defaults
        if ident == "game":
            names = [name for name, _ in GAMES_OFFERED]
            variant = names[(names.index(self._variant()) + 1) % len(names)] \
                if self._variant() in names else names[0]
            app.defaults = replace(defaults, variant=variant, rules=_default_rules(variant))
            self.query_one("#menu-options", OptionList).replace_option_prompt(
                "game", game_prompt(variant))
            return
        if ident.startswith("seat:"):
            self._sit(self.waiting[int(ident.removeprefix("seat:"))])
            return
        if ident in ("theme", "bell"):
            if ident == "theme":
                app.action_next_theme()
            else:
                app.save_settings(replace(app.settings, bell=not app.settings.bell))
            options = self.query_one("#menu-options", OptionList)
            item = next(i for i in ITEMS if i[0] == ident)
            options.replace_option_prompt(ident, self._prompt(*item))
            return
        if ident == "learn":
            from tui.screens.learn import LearnScreen

            app.push_screen(LearnScreen())
            return
        if ident == "quit":
            app.exit()
        elif ident == "rules":
            from tui.screens.rules import RulesScreen

            app.push_screen(RulesScreen(self._variant()))
        elif ident == "play":
            from engine.games import game_def

            players = defaults.players if defaults.role == "play" else 4
            if players not in game_def(defaults.variant).player_counts:
                players = 4
            self.post_message(Start(replace(defaults, role="play", players=players,
                                            bots=players - 1, broker=None, table_open=True)))
        elif ident == "host" and app.link is not None:
            # Under `stacks serve`: the server holds the table; we ask it, then sit at it.
            self.post_message(Start(replace(defaults, role="host", bots=0, table_open=False,
                                            held=True)))
        elif ident == "host":
            # The record is named when the table opens, after the game and the table the
            # form settles on (tui.session).
            launch = replace(
                defaults, role="host", bots=0, table_open=False, bind="0.0.0.0",
                port=1883, broker=defaults.broker, record=None, default_record=True)
            self._host_over_unfinished(launch)
        elif ident == "resume":
            self._resume(defaults)
        elif ident == "account":
            if app.link is None:
                app.notify("Accounts belong to an ssh server (stacks serve): here you play "
                           "under your profile's name.", timeout=5)
                return
            from tui.screens.account import AccountScreen

            def renamed(name: str | None) -> None:
                if name:
                    app.defaults = replace(app.defaults, name=name)

            app.push_screen(AccountScreen(), renamed)
        elif ident == "moderate":
            if not self._moderator():
                app.notify("Moderate is for this server's moderators.", timeout=5)
                return
            from tui.screens.moderate import ModerateScreen

            app.push_screen(ModerateScreen())
        elif ident == "ratings":
            from tui.screens.ratings import RatingsScreen

            app.push_screen(RatingsScreen(kind=self._variant()))
        elif ident == "replay":
            from tui.screens.replay import pick_record

            pick_record(app)
        elif ident in ("join", "watch"):
            from tui.screens.connect import ConnectScreen

            app.push_screen(ConnectScreen("join" if ident == "join" else "watch", defaults))

    def _sit(self, table: TableInfo) -> None:
        """Back to our seat at ``table`` (its password asked first, if it has one)."""
        app = self.app
        assert isinstance(app, GameApp)
        defaults = app.defaults
        broker = table.broker
        if defaults.broker is not None and _same_broker(defaults.broker, broker):
            broker = defaults.broker  # with the credentials the menu was given
        launch = replace(defaults, role="join", table=table.table, broker=broker,
                         name=defaults.display_name(), password=None, table_open=True)
        if table.password:
            from tui.screens.connect import ConnectScreen

            app.push_screen(ConnectScreen("join", launch, ask_password=True))
            return
        self.post_message(Start(launch))

    def _host_over_unfinished(self, launch: Launch) -> None:
        """Host ``launch``, unless its table name has an unfinished game: then ask."""
        from netplay.journal import list_tables

        # A lobby left before the deal has nothing to resume: hosting anew abandons it.
        found = [j for j in list_tables(table=launch.table) if not j.running and j.batches]
        if not found:
            self.post_message(Start(launch))
            return
        journal = found[0]

        def answered(choice: str | None) -> None:
            if choice == "resume":
                self.post_message(Start(_resumed(launch, journal)))
            elif choice == "new":
                self.post_message(Start(replace(launch, new_table=True)))

        self.app.push_screen(ChoiceScreen(
            f"Table {launch.table!r} has an unfinished game: {journal.line()}",
            [Answer("Resume it", "resume"),
             Answer("Abandon it and host a new table", "new")],
        ), answered)

    def _resume(self, defaults: Launch) -> None:
        from netplay.journal import list_tables
        from tui.launch import default_profile

        profile = defaults.profile or default_profile()
        found = [j for j in list_tables(profile=profile) if not j.running and j.batches][:9]
        if not found:
            self.app.notify(f"No unfinished table hosted with profile {profile!r}.",
                            timeout=4)
            return

        def answered(journal: TableJournal | None) -> None:
            if journal is not None:
                self.post_message(Start(_resumed(defaults, journal)))

        self.app.push_screen(ChoiceScreen(
            "Resume which table?", [Answer(escape(j.line()), j) for j in found],
        ), answered)


def _seat_prompt(table: TableInfo) -> str:
    """The menu's first line for a seat that waits: "your seat at duo is waiting"."""
    return (f"[b]↵[/]  [b]Your seat at {escape(table.table)} is waiting[/] — Enter to sit "
            f"down  [dim]{escape(table.status)}, with {escape(', '.join(table.seated))}[/]")


def _same_broker(url: str, other: str) -> bool:
    from netplay.transport import BrokerAddress

    try:
        return BrokerAddress.parse(url).url == BrokerAddress.parse(other).url
    except ValueError:
        return False


def _default_rules(variant: str) -> object:
    from engine.games import game_def

    return game_def(variant).config_type()


def _resumed(defaults: Launch, journal: TableJournal) -> Launch:
    """The launch that brings back the table of ``journal`` (its settings follow)."""
    return replace(defaults, role="host", resume=journal.path, table=journal.table,
                   players=journal.players, table_open=True, bots=0, bind="0.0.0.0",
                   port=1883, broker=defaults.broker, record=None, default_record=False)

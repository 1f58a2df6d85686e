"""The Textual app: bindings, screens and styles. Tests build it with :func:`make_app`.

The app itself only routes: messages from screens (what the user wants) and from the
session's worker (what happened at the table) go to :class:`tui.control.Control`, which
is made (and the network and the rules imported) when a table is first opened: the menu
starts without it (docs/architecture.md, "Start-up").
"""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import constants as textual_constants
from textual.binding import Binding, BindingType
from textual.screen import Screen

from tui.appbase import GameApp
from tui.launch import Launch
from tui.messages import (
    Act,
    BrokerNote,
    CloseTable,
    FillWithBots,
    Health,
    LeaveTable,
    NetNotice,
    Rated,
    RecordWritten,
    Rematch,
    Say,
    SessionFailed,
    SessionReady,
    SetBlockWindow,
    ShowHistory,
    ShowReplay,
    ShowResults,
    Start,
    Waiting,
)
from tui.serve_link import ServeLink
from tui.settings import Settings, load_settings, save_settings, settings_path

if TYPE_CHECKING:
    from netplay.memory import AsyncMemoryBroker
    from tui.control import Control


class StacksApp(GameApp):
    """Sequence Stacks in the terminal."""

    TITLE = "Sequence Stacks"
    CSS_PATH = Path(__file__).with_name("app.tcss")
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("f1", "rules", "Rules", show=False),
        Binding("ctrl+t", "next_theme", "Theme", show=False),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self, launch: Launch | None = None, *, defaults: Launch | None = None,
        profiles: Path | None = None, frozen: bool = False, ask: str | None = None,
        memory: AsyncMemoryBroker | None = None, link: ServeLink | None = None,
        only: Screen[None] | None = None, kiosk: bool = False, bell: bool | None = None,
    ) -> None:
        super().__init__()
        self._bell_asked = bell
        self.settings = Settings()
        """The profile's settings (``tui.settings``), read when the app starts."""
        self.kiosk = kiosk
        self.from_table = launch is not None and link is None
        if kiosk:
            self.use_command_palette = False  # its commands reach past the one table
        self.link = link
        """The channel to the ssh server that started us, which holds the tables we open."""
        if link is not None and textual_constants.DRIVER is None and os.name == "posix":
            # One of many sessions on the server's cores: input and output on the loop,
            # no thread hand-overs a key (tui.driver).
            from tui.driver import LoopDriver

            self.driver_class = LoopDriver
        self.only = only
        """A screen to show instead of the menu; the app ends when it closes (a replay)."""
        self.launch = launch
        self.defaults = defaults or Launch(role="play")
        self.ask = ask
        self.profiles = profiles
        self._frozen = frozen
        self._memory = memory
        self._control: Control | None = None

    @property
    def control(self) -> Control:
        """The table at hand, made the first time it is asked for (a table opens)."""
        if self._control is None:
            from tui.control import Control

            self._control = Control(self, profiles=self.profiles, frozen=self._frozen,
                                    memory=self._memory)
        return self._control

    async def on_mount(self) -> None:
        # Everything built so far lives as long as the app: keep the collector off it,
        # so that a full collection can't stall a repaint. (`stacks` starts with the
        # collector off, docs/architecture.md "Start-up": it is back on once we are shown.)
        gc.freeze()
        self.after_first_frame(gc.enable)
        self._load_settings()
        if self.only is not None:
            await self.push_screen(self.only, lambda _: self.exit())
            return
        if self.link is not None:
            from tui.moderation import Notices

            Notices(self).start()
        if self.link is not None and await self._first_login():
            return  # the name screen goes on to `_begin`
        await self._begin()

    async def _first_login(self) -> bool:
        """Under ``stacks serve``: ask the server who we are; a key it does not know yet
        chooses its name first (`NameScreen`). Whether the name screen is up."""
        from tui.serve_link import LinkError

        assert self.link is not None
        try:
            reply = await self.link.request("account")
        except LinkError as exc:
            self.notify(f"The server can't say who you are ({exc}): you play as "
                        f"{self.defaults.display_name()}.", severity="warning", timeout=8)
            return False
        if reply.get("problem"):
            self.notify(f"The server's database is out of reach ({reply['problem']}): "
                        "ratings and accounts are unavailable for now; your seats are not. "
                        f"You play as {self.defaults.display_name()}; they come back by "
                        "themselves.", severity="warning", timeout=30)
            return False
        self.moderator = reply.get("moderator") is True
        if reply.get("account"):
            self._named(str(reply.get("name") or ""))
            return False
        from tui.screens.account import NameScreen

        def chosen(name: str | None) -> None:
            if name is None:
                self.exit()
                return
            self._named(name)
            self.call_later(self._begin)

        await self.push_screen(NameScreen(self.defaults.display_name()), chosen)
        return True

    def _named(self, name: str) -> None:
        """Play as ``name`` from now on (the account's)."""
        if not name:
            return
        self.defaults = replace(self.defaults, name=name)
        if self.launch is not None:
            self.launch = replace(self.launch, name=name)

    async def _begin(self) -> None:
        if self.launch is not None:
            await self.control.start(self.launch)
            return
        # No table yet, so nothing to close: the menu, without the table's control.
        from tui.screens.menu import MenuScreen

        await self.push_screen(MenuScreen())
        if self.ask == "learn":
            from tui.screens.learn import LearnScreen

            await self.push_screen(LearnScreen())
        elif self.ask in ("join", "join-password", "watch"):
            from tui.screens.connect import ConnectScreen

            await self.push_screen(ConnectScreen(
                "watch" if self.ask == "watch" else "join", self.defaults,
                ask_password=self.ask == "join-password"))

    # -- app-wide keys -------------------------------------------------------------------------

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_rules(self) -> None:
        from tui.screens.rules import RulesScreen

        if not isinstance(self.screen, RulesScreen):
            self.push_screen(RulesScreen(self.game_shown()))

    def game_shown(self) -> str:
        """The game the rules are about: the table's (a board on screen: classic
        Sequence), else the one the menu deals."""
        from tui.screens.board import BoardScreen

        if any(isinstance(screen, BoardScreen) for screen in self.screen_stack):
            return "sequence"
        control = self._control
        if control is not None and control.model is not None and control.worker is not None:
            return control.model.game
        return self.defaults.variant

    async def action_quit(self) -> None:
        """Leave the table properly (a host clears its announcement), then quit."""
        if self._control is None:  # no table was ever opened
            self.exit()
            return
        await self._control.quit()

    def action_help_quit(self) -> None:
        """Ctrl-C (Textual's stock answer is a "press ctrl+q" toast): at a table, the
        game's own Leave (a seated player is asked first); elsewhere, quit."""
        from tui.screens.lobby import LobbyScreen
        from tui.screens.seated import SeatedScreen

        screen = self.screen
        if isinstance(screen, SeatedScreen):
            screen.action_leave()
        elif (self._control is not None and self._control.worker is not None) \
                or isinstance(screen, LobbyScreen):
            self.post_message(LeaveTable())  # the lobby (its form too), game over, a modal
        else:
            self.run_worker(self.action_quit(), group="quit")

    def action_next_theme(self) -> None:
        themes = sorted(self.available_themes)
        at = themes.index(self.theme) if self.theme in themes else -1
        self.theme = themes[(at + 1) % len(themes)]
        self.notify(f"Theme: {self.theme}", timeout=2)
        self.save_settings(replace(self.settings, theme=self.theme))

    # -- the profile's settings: the theme, the bell ---------------------------------------------

    def settings_file(self) -> Path:
        """The settings of the menu's profile (``tui.settings``)."""
        from netplay.paths import profiles_dir
        from tui.launch import default_profile

        base = self.profiles or profiles_dir()
        return settings_path(base, self.defaults.profile or default_profile())

    def _load_settings(self) -> None:
        self.settings = load_settings(self.settings_file())
        if self._bell_asked is not None:  # --no-bell: this run only
            self.settings = replace(self.settings, bell=self._bell_asked)
        if self.settings.theme in self.available_themes:
            self.theme = self.settings.theme

    def save_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on and keep them in the profile's folder."""
        self.settings = settings
        problem = save_settings(self.settings_file(), settings)
        if problem is not None:
            self.notify(problem, severity="warning", timeout=5)

    def ring(self, words: str) -> None:
        """The terminal's bell, and a desktop notification where the terminal shows one
        (``tui.bell``); nothing when the bell is off."""
        if not self.settings.bell:
            return
        from tui.bell import notification, notify_protocol

        self.bell()
        protocol = notify_protocol(os.environ)
        if protocol is not None:
            self.write_raw(notification(protocol, self.TITLE, words))

    def write_raw(self, data: str) -> None:
        """Bytes for the terminal itself (an escape sequence that draws nothing), written
        between two frames by the driver, as ``App.bell`` writes its BEL."""
        if not self.is_headless and self._driver is not None:
            self._driver.write(data)

    # -- messages to the control ---------------------------------------------------------------

    async def on_net_notice(self, message: NetNotice) -> None:
        await self.control.notice(message.notice)

    def on_health(self, message: Health) -> None:
        self.control.health(message.problem)

    def on_waiting(self, message: Waiting) -> None:
        self.control.waiting(message.line)

    def on_broker_note(self, message: BrokerNote) -> None:
        self.control.broker_note(message.text)

    def on_session_ready(self, message: SessionReady) -> None:
        self.control.ready(message.where)

    async def on_session_failed(self, message: SessionFailed) -> None:
        await self.control.failed(message.problem)

    def on_record_written(self, message: RecordWritten) -> None:
        self.control.record_written(message.path)

    def on_rated(self, message: Rated) -> None:
        self.control.rated(message.text)

    def on_act(self, message: Act) -> None:
        self.control.act(message.action)

    def on_say(self, message: Say) -> None:
        self.control.say(message.text)

    def on_fill_with_bots(self, message: FillWithBots) -> None:
        self.control.fill_with_bots()

    def on_set_block_window(self, message: SetBlockWindow) -> None:
        self.control.set_block_window(message.seconds)

    async def on_close_table(self, message: CloseTable) -> None:
        await self.control.close_held()

    async def on_leave_table(self, message: LeaveTable) -> None:
        await self.control.leave()

    async def on_start(self, message: Start) -> None:
        await self.control.start(message.launch)

    async def on_rematch(self, message: Rematch) -> None:
        await self.control.rematch()

    async def on_show_results(self, message: ShowResults) -> None:
        await self.control.results()

    async def on_show_history(self, message: ShowHistory) -> None:
        await self.control.show_history()

    async def on_show_replay(self, message: ShowReplay) -> None:
        await self.control.show_replay()


def make_app(
    launch: Launch | None = None, *, defaults: Launch | None = None,
    profiles: Path | None = None, frozen: bool = False, ask: str | None = None,
    memory: AsyncMemoryBroker | None = None, link: ServeLink | None = None,
    kiosk: bool = False, bell: bool | None = None,
) -> StacksApp:
    """The app: straight to a table for ``launch``, else the main menu.

    ``defaults`` fill the menu's choices (name, profile, broker); ``profiles`` is where
    identities live (tests: a temporary folder); ``frozen`` stops timers that would make
    screenshots differ (the Block countdown, the automatic pass); ``ask`` opens the
    join (``join``, ``join-password``: the password field first) or watch form over the
    menu, or the first game that teaches (``learn``); ``memory`` is the in-process broker that
    ``broker="memory"`` means (so a test can put other peers on it); ``link`` is the
    channel to the ssh server that started this program (`tui.serve_link`); ``kiosk``
    watches ``launch``'s table only (``GameApp.kiosk``: what ``stacks web`` serves);
    ``bell`` overrides the profile's bell setting for this run (``--no-bell``).
    """
    if kiosk and (launch is None or launch.role != "watch"):
        raise ValueError("a kiosk only watches a table")
    return StacksApp(launch, defaults=defaults, profiles=profiles, frozen=frozen, ask=ask,
                     memory=memory, link=link, kiosk=kiosk, bell=bell)

"""The application as its screens see it.

Screens sit below the app (``tui.app`` imports them), so they never import it: what a
screen needs of the app it finds on :class:`GameApp`, the app's base, which names the
parts (the menu's defaults, the ssh server's link, the table's control) by what they do,
without importing the modules that fill them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.app import App

if TYPE_CHECKING:
    from pathlib import Path

    from tui.launch import Launch
    from tui.serve_link import ServeLink
    from tui.settings import Settings


class TableControl(Protocol):
    """What a screen may ask of the table's control (``tui.control.Control``)."""

    profiles: Path | None
    """Where the profiles are (``None``: the usual place, ``profiles_dir()``)."""

    async def open_held(self, launch: Launch) -> str | None:
        """Ask the ssh server to open ``launch``'s table: ``None`` once open, else why not."""

    async def open_table(self, launch: Launch) -> None:
        """Open the table the host's form describes."""


class GameApp(App[None]):
    """What every screen may rely on of the running app (``tui.app.StacksApp``)."""

    link: ServeLink | None
    """The channel to the ssh server that started us, which holds the tables we open."""
    defaults: Launch
    """The menu's choices (name, profile, broker, the game it deals)."""
    profiles: Path | None = None
    """Where the profiles are (``None``: the usual place, ``profiles_dir()``)."""

    @property
    def control(self) -> TableControl:
        """The table at hand: its session, model and screens."""
        raise NotImplementedError

    moderator: bool = False
    """The ssh server names this account a moderator: the menu offers Moderate."""
    kiosk: bool = False
    """Watch one table and nothing else (a browser visitor of ``stacks web``): no menu,
    no chat, no other table; leaving the table ends the program."""
    from_table: bool = False
    """The command line opened a table (``stacks play``, ``host``, ``join``, ``watch``):
    leaving it ends the program, back at the shell, rather than opening the menu (whose
    keys the shell commands typed next would press)."""

    settings: Settings
    """The profile's settings (the bell, the theme: ``tui.settings``)."""

    def __init__(self) -> None:
        super().__init__()
        self._first_frame: list[Callable[[], object]] | None = []
        """What waits for the first frame (``None`` once it is shown)."""

    def after_first_frame(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` once the first frame is on the terminal (at once if it is):
        start-up work the first screen does without, so that it shows sooner
        (docs/architecture.md, "Start-up")."""
        if self._first_frame is None:
            callback()
        else:
            self._first_frame.append(callback)

    def on_ready(self) -> None:
        waiting, self._first_frame = self._first_frame or [], None
        for callback in waiting:
            callback()

    def save_settings(self, settings: Settings) -> None:
        """Use ``settings`` from now on and keep them in the profile's folder."""

    def action_next_theme(self) -> None:
        """Show the next theme (and keep it in the settings)."""

    def ring(self, words: str) -> None:
        """Call the player back: the table turned to them (``tui.bell``); the app rings
        if the bell is on."""

    def game_shown(self) -> str:
        """The game whose rules apply to what is on screen: ``stacks`` or ``sequence``."""
        return self.defaults.variant

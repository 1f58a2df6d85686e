"""The Block prompt: an opponent completed a pile and you hold a Block.

One key blocks, one passes; the bar shows how long the host's window stays open (the
host's clock decides, this bar only shows it). The prompt closes itself when the window
closes, whoever ended it.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label

from tui.widgets.countdown import Countdown

Decision = Literal["block", "pass"]


class BlockPrompt(ModalScreen[Decision | None]):
    """Dismissed with ``"block"``, ``"pass"``, or ``None`` when the window closed first."""

    CSS_PATH = "block.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "decide('block')", "Block!", priority=True),
        Binding("p", "decide('pass')", "Pass", priority=True),
        Binding("escape", "decide('pass')", "Pass", show=False),
    ]

    def __init__(self, what: str, seconds: float, *, frozen: bool = False) -> None:
        super().__init__()
        self.what = what
        self.seconds = seconds
        self.frozen = frozen
        self._expired = False
        self._gone = False

    def compose(self) -> ComposeResult:
        with Vertical(id="block-box"):
            yield Label("[b]Block?[/]", id="block-title")
            yield Label(self.what, id="block-what")
            yield Countdown(self.seconds, frozen=self.frozen, id="block-bar")
            with Horizontal(id="block-buttons"):
                yield _button("b  Block", "block-yes", "error")
                yield _button("p  Pass", "block-no", "default")
            yield Label(
                "[dim]The first Block to reach the host wins. Passing is final for this pile.[/]",
                id="block-note",
            )

    def expire(self) -> None:
        """The window closed: go away now, or as soon as this prompt is on top again."""
        self._expired = True
        if self.is_current:
            self._go(None)

    def on_screen_resume(self) -> None:
        # A resume queued before an early expire() arrives after the prompt has gone:
        # dismissing again would take the screen below (the table) with it.
        if self._expired and self.is_current:
            self._go(None)

    def _go(self, decision: Decision | None) -> None:
        if not self._gone:
            self._gone = True
            self.dismiss(decision)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_decide("block" if event.button.id == "block-yes" else "pass")

    def action_decide(self, decision: Decision) -> None:
        self._go(decision)


def _button(label: str, id: str, variant: Literal["default", "error"]) -> Button:
    # Keys decide, not focus: Enter pressed out of habit must not block by accident.
    button = Button(label, id=id, variant=variant)
    button.can_focus = False
    return button

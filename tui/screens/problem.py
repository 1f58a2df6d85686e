"""A problem that stops the session (can't start the broker, refused by the table)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Label

from tui.messages import Problem
from tui.widgets.banner import advice_for


class ProblemScreen(ModalScreen[str | None]):
    """What went wrong, in words, and what to do; any of Enter or Esc closes it, and
    ``w`` watches the table instead where it can be watched (dismissed with "watch")."""

    CSS_PATH = "problem.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Back to the menu"),
        Binding("w", "watch", "Watch it"),
    ]

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem

    def compose(self) -> ComposeResult:
        kiosk = getattr(self.app, "kiosk", False)
        advice = advice_for(self.problem, kiosk=kiosk)
        # A browser visitor (`stacks web`) has no menu: closing this ends the view.
        keys = "Enter or Esc: close this view" if kiosk else "Enter or Esc: back to the menu"
        if self.problem.watch and not kiosk:
            keys = f"w: watch it · {keys}"
        with Vertical(id="problem-box"):
            yield Label(f"[b]{escape(self.problem.title)}[/]", id="problem-title")
            yield Label(escape(self.problem.words), id="problem-words")
            yield Label(f"[i]{escape(advice)}[/]", id="problem-advice")
            yield Label(f"[dim]{keys}[/]", id="problem-keys")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "watch":
            return self.problem.watch and not getattr(self.app, "kiosk", False)
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def action_watch(self) -> None:
        self.dismiss("watch")

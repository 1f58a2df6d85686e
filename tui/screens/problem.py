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


class ProblemScreen(ModalScreen[None]):
    """What went wrong, in words, and what to do; any of Enter or Esc closes it."""

    CSS_PATH = "problem.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Back to the menu"),
    ]

    def __init__(self, problem: Problem) -> None:
        super().__init__()
        self.problem = problem

    def compose(self) -> ComposeResult:
        kiosk = getattr(self.app, "kiosk", False)
        advice = advice_for(self.problem, kiosk=kiosk)
        # A browser visitor (`stacks web`) has no menu: closing this ends the view.
        keys = "Enter or Esc: close this view" if kiosk else "Enter or Esc: back to the menu"
        with Vertical(id="problem-box"):
            yield Label(f"[b]{escape(self.problem.title)}[/]", id="problem-title")
            yield Label(escape(self.problem.words), id="problem-words")
            yield Label(f"[i]{escape(advice)}[/]", id="problem-advice")
            yield Label(f"[dim]{keys}[/]", id="problem-keys")

    def action_close(self) -> None:
        self.dismiss(None)

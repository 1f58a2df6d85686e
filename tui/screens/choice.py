"""A small modal question with a few answers, each on a number key (and arrows + Enter).

Used for the action cards: whom to steal from, hand or discard, which chip colour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

T = TypeVar("T")


@dataclass(frozen=True)
class Answer(Generic[T]):
    label: str
    """Markup."""
    value: T


class ChoiceScreen(ModalScreen[T | None], Generic[T]):
    """Ask ``question``; dismiss with the chosen value, or ``None`` on Escape."""

    CSS_PATH = "choice.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        *[Binding(str(n), f"choose({n - 1})", "Choose", show=False) for n in range(1, 10)],
    ]

    def __init__(self, question: str, answers: list[Answer[T]]) -> None:
        super().__init__()
        self.question = question
        self.answers = answers

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Label(escape(self.question), id="choice-question")
            yield OptionList(
                *[Option(f"[b]{n}[/]  {a.label}", id=str(n - 1))
                  for n, a in enumerate(self.answers, start=1)],
                id="choice-options",
            )
            yield Label("[dim]Number or ↑↓ and Enter · Esc cancels[/]", id="choice-keys")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_choose(event.option_index)

    def action_choose(self, index: int) -> None:
        if 0 <= index < len(self.answers):
            self.dismiss(self.answers[index].value)

    def action_cancel(self) -> None:
        self.dismiss(None)

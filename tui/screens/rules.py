"""The rules, rendered from the rules document shipped inside the package."""

from __future__ import annotations

from importlib import resources
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Markdown

RULES_FILES = {"stacks": "rules.md", "sequence": "sequence.md"}
"""Each game's rules in the package: copies of ``docs/rules.md`` and ``docs/sequence.md``
(a test keeps them equal)."""


def rules_text(game: str = "stacks") -> str:
    """``tui/rules.md`` (Sequence Stacks) or ``tui/sequence.md`` (classic Sequence)."""
    name = RULES_FILES.get(game, RULES_FILES["stacks"])
    return resources.files("tui").joinpath(name).read_text(encoding="utf-8")


class RulesScreen(Screen[None]):
    """Scroll with the arrows, PgUp/PgDn; Esc goes back."""

    CSS_PATH = "rules.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back"),
        Binding("down,j", "scroll(1)", "Scroll", show=False),
        Binding("up,k", "scroll(-1)", "Scroll", show=False),
    ]

    def __init__(self, game: str = "stacks") -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="rules-scroll"):
            yield Markdown(rules_text(self.game), id="rules-text")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#rules-scroll").focus()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#rules-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)

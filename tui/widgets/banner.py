"""A line across the top for connection trouble: what happened and what to do."""

from __future__ import annotations

from textual.markup import escape
from textual.reactive import reactive
from textual.widget import Widget

from tui.messages import Problem

KIOSK_ADVICE = "Reload the page to watch again once the table is open."


def advice_for(problem: Problem, *, kiosk: bool) -> str:
    """What to do, in words. A kiosk (a `stacks web` visitor) has no menu to go back to:
    advice that names the menu is told as what the visitor can do in the browser."""
    if kiosk and "menu" in problem.advice:
        return KIOSK_ADVICE
    return problem.advice


class Banner(Widget):
    """Hidden while all is well; shows the current :class:`Problem` in words."""

    DEFAULT_CSS = """
    Banner {
        height: auto;
        width: 1fr;
        display: none;
        padding: 0 1;
        background: $warning 25%;
        color: $text;
    }
    Banner.-shown {
        display: block;
    }
    Banner.-error {
        background: $error 30%;
    }
    """

    problem: reactive[Problem | None] = reactive(None)

    def watch_problem(self, problem: Problem | None) -> None:
        self.set_class(problem is not None, "-shown")
        self.set_class(problem is not None and problem.severe, "-error")

    def render(self) -> str:
        problem = self.problem
        if problem is None:
            return ""
        advice = escape(advice_for(problem, kiosk=getattr(self.app, "kiosk", False)))
        title, text = escape(problem.title), escape(problem.words)
        return f"[b]{title}[/] {text} [i]{advice}[/]"

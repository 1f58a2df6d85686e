"""A line across the top for connection trouble: what happened and what to do."""

from __future__ import annotations

from textual.markup import escape
from textual.reactive import reactive
from textual.widget import Widget

from tui.messages import Problem


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
        title, text, advice = escape(problem.title), escape(problem.words), escape(problem.advice)
        return f"[b]{title}[/] {text} [i]{advice}[/]"

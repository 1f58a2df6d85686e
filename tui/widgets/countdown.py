"""A countdown bar for the Block window (the host's clock decides; this one only shows)."""

from __future__ import annotations

import time

from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget


class Countdown(Widget):
    """A bar that empties over ``total`` seconds from when it is mounted or restarted.

    With ``frozen`` it stays full and shows no time (deterministic screenshots).
    """

    DEFAULT_CSS = """
    Countdown {
        height: 1;
        width: 1fr;
        color: $warning;
    }
    """

    remaining: reactive[float] = reactive(0.0)

    def __init__(self, total: float, *, frozen: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.total = max(total, 0.1)
        self.frozen = frozen
        self.remaining = self.total
        self._started = time.monotonic()
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        if not self.frozen:
            self._timer = self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        self.remaining = max(0.0, self.total - (time.monotonic() - self._started))
        if self.remaining <= 0 and self._timer is not None:
            self._timer.stop()

    def render(self) -> str:
        width = max(self.size.width - 8, 4)
        filled = round(width * self.remaining / self.total)
        bar = "█" * filled + "░" * (width - filled)
        if self.frozen:
            return f"{bar} [b]{self.total:.0f} s[/]"
        return f"{bar} [b]{self.remaining:.1f} s[/]"

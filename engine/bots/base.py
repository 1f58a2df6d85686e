"""What a bot is: a decision from its own view and its legal actions."""

from __future__ import annotations

from typing import Protocol

from engine.actions import Action
from engine.state import Seat, State


class Bot(Protocol):
    """Decides for one seat. ``view`` is that seat's view; ``legal`` is never empty."""

    name: str

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action: ...

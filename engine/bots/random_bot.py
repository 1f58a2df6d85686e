"""A bot that takes a uniformly random legal action."""

from __future__ import annotations

from engine.actions import Action
from engine.rng import Rng
from engine.state import Seat, State


class RandomBot:
    name = "random"

    def __init__(self, seed: bytes = b"random-bot") -> None:
        self._rng = Rng(seed)

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        return legal[self._rng.below(len(legal))]

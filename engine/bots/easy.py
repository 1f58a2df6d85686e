"""The ``easy`` level: the greedy bot's habits, played carelessly.

A third of its turn decisions are a random legal action (often ending the turn early),
and it blocks only a completion that would win the game at once.
"""

from __future__ import annotations

import os
import random

from engine.actions import Action, Block, PassBlock
from engine.bots.greedy import GreedyBot
from engine.state import Seat, State

_CARELESS = 1 / 3


class EasyBot:
    name = "easy"

    def __init__(self, seed: bytes | None = None) -> None:
        self._rng = random.Random(os.urandom(16) if seed is None else seed)
        self._greedy = GreedyBot(rng=self._rng)

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        if isinstance(legal[-1], PassBlock) or isinstance(legal[0], Block):
            return self._block(view, legal)
        if self._rng.random() < _CARELESS:
            return legal[self._rng.randrange(len(legal))]
        return self._greedy.choose(view, seat, legal)

    @staticmethod
    def _block(view: State, legal: list[Action]) -> Action:
        blocks = [a for a in legal if isinstance(a, Block)]
        passes = [a for a in legal if isinstance(a, PassBlock)]
        window = view.window
        if blocks and window is not None:
            red, blue = view.chips[window.seat]
            red += window.pile.colour == 0
            blue += window.pile.colour == 1
            if view.meets_win(red, blue) or not passes:
                return blocks[0]
        return passes[0] if passes else legal[0]

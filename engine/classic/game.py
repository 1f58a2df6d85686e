"""A classic Sequence table in one process: the host's state, its generator, the log."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.classic.actions import SequenceAction
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.rules import deal, legal_actions, step
from engine.classic.state import SequenceState
from engine.classic.views import view_for
from engine.rng import Rng
from engine.state import Outcome, Seat


@dataclass
class SequenceGame:
    """The authoritative table: ``SequenceGame.new(...)`` deals, ``game.act(action)`` steps.

    The same shape as :class:`engine.game.Game`, so table code can drive either game.
    """

    state: SequenceState
    rng: Rng
    log: list[SequenceEvent] = field(default_factory=list)
    keep_log: bool = True

    @classmethod
    def new(
        cls,
        players: int,
        seed: bytes,
        config: SequenceConfig | None = None,
        *,
        keep_log: bool = True,
        dealer: Seat | None = None,
    ) -> SequenceGame:
        """Deal a new game; ``dealer`` is cut from ``seed`` unless given (a rematch)."""
        state = SequenceState.new(config or SequenceConfig(), players)
        game = cls(state, Rng(seed), keep_log=keep_log)
        events = deal(state, game.rng, dealer)
        if keep_log:
            game.log.extend(events)
        return game

    def act(self, action: SequenceAction) -> list[SequenceEvent]:
        """Step the table; raises ``IllegalActionError`` and changes nothing if illegal."""
        events = step(self.state, action, self.rng)
        if self.keep_log:
            self.log.extend(events)
        return events

    def legal_actions(self, seat: Seat) -> list[SequenceAction]:
        return legal_actions(self.state, seat)

    def view(self, seat: Seat) -> SequenceState:
        return view_for(self.state, seat)

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

"""A table in one process: the host's state, its generator, and the event log."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.actions import Action
from engine.config import RulesConfig
from engine.events import Event
from engine.rng import Rng
from engine.rules import deal, legal_actions, step
from engine.state import Outcome, Seat, State
from engine.views import view_for


def outcome(state: State) -> Outcome | None:
    """How the game ended, or ``None`` while it goes on."""
    return state.outcome


@dataclass
class Game:
    """The authoritative table: ``Game.new(...)`` deals, ``game.act(action)`` steps."""

    state: State
    rng: Rng
    log: list[Event] = field(default_factory=list)
    keep_log: bool = True

    @classmethod
    def new(
        cls,
        players: int,
        seed: bytes,
        config: RulesConfig | None = None,
        *,
        keep_log: bool = True,
        dealer: Seat | None = None,
    ) -> Game:
        """Deal a new game; ``dealer`` is drawn from ``seed`` unless given (a rematch, A26)."""
        state = State.new(config or RulesConfig(), players)
        game = cls(state, Rng(seed), keep_log=keep_log)
        events = deal(state, game.rng, dealer)
        if keep_log:
            game.log.extend(events)
        return game

    def act(self, action: Action) -> list[Event]:
        """Step the table; raises ``IllegalActionError`` and changes nothing if illegal."""
        events = step(self.state, action, self.rng)
        if self.keep_log:
            self.log.extend(events)
        return events

    def legal_actions(self, seat: Seat) -> list[Action]:
        return legal_actions(self.state, seat)

    def view(self, seat: Seat) -> State:
        return view_for(self.state, seat)

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

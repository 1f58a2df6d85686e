"""Seeded classic games for the property tests, checked after every single event.

A :class:`Table` wraps a :class:`SequenceGame` and keeps a shadow host state, one view
per seat and a spectator view; after each step it applies the step's events one at a
time to each (redacted for the view's audience) and runs the given checks, so a failure
points at the event that broke a property. Games are a pure function of
``(seed, players)``: a failure names both.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.cards import DECK_SIZE
from engine.classic.config import PLAYER_COUNTS, NoPlay, SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.game import SequenceGame
from engine.classic.reducer import apply
from engine.classic.rules import legal_actions
from engine.classic.state import SequenceState
from engine.rng import Rng, derive_seed
from engine.state import SPECTATOR, Audience

Check = Callable[["Table"], None]


def random_config(rng: Rng, players: int) -> SequenceConfig:
    """A third of the games play the DEFAULT rules, the rest random house rules."""
    if rng.below(3) == 0:
        return SequenceConfig(max_turns=400)
    teams = None
    if players in (6, 12):
        teams = (None, 2, 3)[rng.below(3)]
    return SequenceConfig(
        teams=teams,
        sequences_to_win=(None, 1, 3)[rng.below(3)],
        dead_cards_per_turn=rng.below(3),
        no_play=NoPlay(rng.below(2)),
        choose_sequences=rng.below(2) == 1,
        dealer=None if rng.below(2) else rng.below(players),
        max_turns=50 + rng.below(350),
    )


class Table:
    def __init__(self, seed: int, players: int, checks: list[Check]) -> None:
        self.seed, self.players = seed, players
        self.chooser = Rng(derive_seed(seed, label=f"chooser{players}"))
        config = random_config(self.chooser, players)
        self.game = SequenceGame.new(players, derive_seed(seed, label="classic"), config)
        self.audiences: list[Audience] = [*range(players), SPECTATOR]
        self.shadow = SequenceState.new(config, players)
        self.views = [SequenceState.new(config, players) for _ in self.audiences]
        for view, audience in zip(self.views, self.audiences, strict=True):
            view.audience = audience
        self.checks = checks
        self.actions: list[SequenceAction] = []
        self.deliver(self.game.log)

    @property
    def state(self) -> SequenceState:
        return self.game.state

    def where(self) -> str:
        return f"seed={self.seed} players={self.players} action {len(self.actions)}"

    def deliver(self, events: list[SequenceEvent]) -> None:
        for event in events:
            apply(self.shadow, event)
            for view, audience in zip(self.views, self.audiences, strict=True):
                apply(view, event.redacted_for(audience))
            for check in self.checks:
                check(self)

    def choose(self) -> SequenceAction:
        """A random legal action, three times in four a placement when there is one."""
        seat = self.state.current
        legal = legal_actions(self.views[seat], seat)
        placements = [a for a in legal if isinstance(a, PlaceChip | RemoveChip)]
        pool = placements if placements and self.chooser.below(4) else legal
        return pool[self.chooser.below(len(pool))]

    def step(self, action: SequenceAction) -> None:
        self.actions.append(action)
        self.deliver(self.game.act(action))

    def play(self) -> None:
        while not self.game.over:
            self.step(self.choose())


def random_action(state: SequenceState, rng: Rng) -> SequenceAction:
    """Any well-formed action for the seat to move, mostly illegal ones."""
    seat = state.current if rng.below(8) else rng.below(state.players + 1)
    card = rng.below(DECK_SIZE)
    if rng.below(2):
        hand = state.hands[state.current]
        card = hand[rng.below(len(hand))]
    cell = rng.below(100)
    kind = rng.below(5)
    if kind == 0:
        return ExchangeDeadCard(seat, card)
    if kind == 1:
        return PlaceChip(seat, card, cell)
    if kind == 2:
        return RemoveChip(seat, card, cell)
    if kind == 3:
        return DiscardUnplayable(seat, card)
    return PassTurn(seat)


PLAYERS = PLAYER_COUNTS

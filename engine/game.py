"""A Sequence Stacks table in one process: the host's state, its generator, the event log."""

from __future__ import annotations

from typing import ClassVar

from engine.actions import Action
from engine.config import RulesConfig
from engine.events import Event
from engine.invariants import check_invariants
from engine.reducer import apply
from engine.rules import deal, legal_actions, step
from engine.state import Outcome, State
from engine.table import Rules, Table
from engine.views import public_hash, view_for


def outcome(state: State) -> Outcome | None:
    """How the game ended, or ``None`` while it goes on."""
    return state.outcome


RULES: Rules[State, Action, Event, RulesConfig] = Rules(
    default_config=RulesConfig,
    new_state=State.new,
    deal=deal,
    step=step,
    legal_actions=legal_actions,
    view_for=view_for,
    apply=apply,
    check_invariants=check_invariants,
    public_hash=public_hash,
)
"""Sequence Stacks' rules as the functions :class:`~engine.table.Table` drives."""


class Game(Table[State, Action, Event, RulesConfig]):
    """The authoritative table: ``Game.new(...)`` deals (the dealer drawn from the seed
    unless given, A26), ``game.act(action)`` steps (:class:`~engine.table.Table`)."""

    RULES: ClassVar[Rules[State, Action, Event, RulesConfig]] = RULES

"""A classic Sequence table in one process: the host's state, its generator, the log."""

from __future__ import annotations

from typing import ClassVar

from engine.classic.actions import SequenceAction
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.invariants import check_invariants
from engine.classic.reducer import apply
from engine.classic.rules import deal, legal_actions, step
from engine.classic.state import SequenceState
from engine.classic.views import public_hash, view_for
from engine.table import Rules, Table

RULES: Rules[SequenceState, SequenceAction, SequenceEvent, SequenceConfig] = Rules(
    default_config=SequenceConfig,
    new_state=SequenceState.new,
    deal=deal,
    step=step,
    legal_actions=legal_actions,
    view_for=view_for,
    apply=apply,
    check_invariants=check_invariants,
    public_hash=public_hash,
)
"""Classic Sequence's rules as the functions :class:`~engine.table.Table` drives."""


class SequenceGame(Table[SequenceState, SequenceAction, SequenceEvent, SequenceConfig]):
    """The authoritative table: ``SequenceGame.new(...)`` deals (the dealer cut from the
    seed unless given, a rematch passes it on), ``game.act(action)`` steps.

    The same :class:`~engine.table.Table` as :class:`engine.game.Game`, so table code
    drives either game alike.
    """

    RULES: ClassVar[Rules[SequenceState, SequenceAction, SequenceEvent, SequenceConfig]] = RULES

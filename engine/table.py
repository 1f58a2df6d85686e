"""What every game of this engine shares: a table in one process, driven the same way.

A game is a bundle of pure functions (:class:`Rules`): its state's constructor, the
deal, ``step``, the reducer, legality, views, the public hash and the invariants. A
:class:`Table` holds the host's state, the seeded generator and the event log, and
drives any game through its rules: :class:`engine.game.Game` (Sequence Stacks) and
:class:`engine.classic.SequenceGame` (classic Sequence) are tables of their game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from engine.rng import Rng
from engine.state import Audience, Outcome, Seat

S = TypeVar("S", bound="TableState")
"""The game's state type (the host's state and its views alike)."""
A = TypeVar("A")
E = TypeVar("E")
C = TypeVar("C")


class TableState(Protocol):
    """What the shared machinery reads of any game's state."""

    @property
    def outcome(self) -> Outcome | None: ...


@dataclass(frozen=True, slots=True)
class Rules(Generic[S, A, E, C]):
    """One game's rules as plain functions (all pure, all standard library)."""

    default_config: Callable[[], C]
    new_state: Callable[[C, int], S]
    """``new_state(config, players)``: the table before the deal."""
    deal: Callable[[S, Rng, Seat | None], list[E]]
    step: Callable[[S, A, Rng], list[E]]
    legal_actions: Callable[[S, Seat], list[A]]
    view_for: Callable[[S, Audience], S]
    apply: Callable[[S, E], None]
    check_invariants: Callable[[S], list[str]]
    public_hash: Callable[[S], str]


@dataclass
class Table(Generic[S, A, E, C]):
    """The authoritative table: ``Table.new(...)`` deals, ``table.act(action)`` steps.

    Each game's table is a subclass that names its :data:`RULES`.
    """

    state: S
    rng: Rng
    log: list[E] = field(default_factory=list)
    keep_log: bool = True

    RULES: ClassVar[Rules[Any, Any, Any, Any]]

    @classmethod
    def new(
        cls,
        players: int,
        seed: bytes,
        config: C | None = None,
        *,
        keep_log: bool = True,
        dealer: Seat | None = None,
    ) -> Self:
        """Deal a new game; ``dealer`` is drawn from ``seed`` unless given (a rematch)."""
        rules = cls.RULES
        state = rules.new_state(config or rules.default_config(), players)
        table = cls(state, Rng(seed), keep_log=keep_log)
        events = rules.deal(state, table.rng, dealer)
        if keep_log:
            table.log.extend(events)
        return table

    def act(self, action: A) -> list[E]:
        """Step the table; raises ``IllegalActionError`` and changes nothing if illegal."""
        events: list[E] = self.RULES.step(self.state, action, self.rng)
        if self.keep_log:
            self.log.extend(events)
        return events

    def legal_actions(self, seat: Seat) -> list[A]:
        actions: list[A] = self.RULES.legal_actions(self.state, seat)
        return actions

    def view(self, seat: Seat) -> S:
        view: S = self.RULES.view_for(self.state, seat)
        return view

    @property
    def outcome(self) -> Outcome | None:
        return self.state.outcome

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

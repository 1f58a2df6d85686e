"""What ``step`` shares in both games: validate, resolve through the one reducer, deal, draw.

Each game's :mod:`rules` module has one validator and one resolver per action type. The
machinery around them is the same in both (:class:`Stepper`): an action is checked
against the full state before anything changes (:class:`IllegalActionError` with the
reason, the state untouched), then resolved by an :class:`Emitter` that applies every
event to the state as it is made, so later events are computed from the state the
earlier ones left. Randomness comes only from the :class:`~engine.rng.Rng` passed in:
the shuffle of the deal, then each reshuffle (docs/rng.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from engine.cards import CardId
from engine.errors import IllegalActionError
from engine.rng import Rng
from engine.state import Seat


class StepState(Protocol):
    """What :class:`Stepper` reads of a game's state."""

    players: int
    current: Seat
    deck: tuple[CardId, ...]
    draw_pile: list[CardId]

    @property
    def phase(self) -> int: ...


S = TypeVar("S", bound=StepState)
E = TypeVar("E")


class Emitter(Generic[S, E]):
    """Applies each event to the state as it is produced and keeps the list."""

    __slots__ = ("apply", "events", "rng", "state")

    def __init__(self, state: S, rng: Rng, apply: Callable[[S, E], None]) -> None:
        self.state = state
        self.rng = rng
        self.apply = apply
        self.events: list[E] = []

    def __call__(self, event: E) -> None:
        self.apply(self.state, event)
        self.events.append(event)


class Stepper(Generic[S, E]):
    """One game's ``step``, ``validate``, the start of its deal and its draw.

    ``validators`` and ``resolvers`` map each action type to its function; ``setup`` and
    ``game_over`` are the game's phases before the deal and after the end. Every action
    names a seat of the table but those of the types in ``unseated``; with ``own_turn``
    every action must be the current player's. A draw from an empty pile first turns
    ``pool(state)`` into the new draw pile (``reshuffled(cards)``), if it holds any card.
    """

    __slots__ = (
        "apply", "drawn", "game_over", "own_turn", "pool", "reshuffled", "resolvers",
        "setup", "unseated", "validators",
    )

    def __init__(
        self,
        *,
        apply: Callable[[S, E], None],
        validators: Mapping[type[Any], Callable[[S, Any], None]],
        resolvers: Mapping[type[Any], Callable[[Emitter[S, E], Any], None]],
        setup: int,
        game_over: int,
        pool: Callable[[S], list[CardId]],
        reshuffled: Callable[[tuple[CardId, ...]], E],
        drawn: Callable[[Seat, tuple[CardId, ...]], E],
        unseated: tuple[type[Any], ...] = (),
        own_turn: bool = False,
    ) -> None:
        self.apply = apply
        self.validators = dict(validators)
        self.resolvers = dict(resolvers)
        self.setup = setup
        self.game_over = game_over
        self.pool = pool
        self.reshuffled = reshuffled
        self.drawn = drawn
        self.unseated = unseated
        self.own_turn = own_turn

    def emitter(self, state: S, rng: Rng) -> Emitter[S, E]:
        return Emitter(state, rng, self.apply)

    def step(self, state: S, action: Any, rng: Rng) -> list[E]:
        """Validate ``action`` against the full state, apply its consequences, return
        the events. Raises :class:`IllegalActionError` (state untouched) if not legal."""
        self.validate(state, action)
        emit = Emitter(state, rng, self.apply)
        self.resolvers[type(action)](emit, action)
        return emit.events

    def step_trusted(self, state: S, action: Any, rng: Rng) -> None:
        """:meth:`step` without the legality check and without the event list."""
        self.resolvers[type(action)](Emitter(state, rng, self.apply), action)

    def validate(self, state: S, action: Any) -> None:
        """Raise :class:`IllegalActionError` with the reason when ``action`` is not legal now."""
        if state.phase == self.game_over:
            raise IllegalActionError("the game is over")
        if state.phase == self.setup:
            raise IllegalActionError("the cards have not been dealt yet")
        check = self.validators.get(type(action))
        if check is None:
            raise IllegalActionError(f"unknown action {type(action).__name__}")
        if type(action) not in self.unseated:
            seat = action.seat
            if not 0 <= seat < state.players:
                raise IllegalActionError(f"there is no seat {seat} at this table")
            if self.own_turn and seat != state.current:
                raise IllegalActionError(f"it is seat {state.current}'s turn, not seat {seat}'s")
        check(state, action)

    def is_legal(self, state: S, action: Any) -> bool:
        try:
            self.validate(state, action)
        except IllegalActionError:
            return False
        return True

    def begin_deal(
        self, state: S, rng: Rng, dealer: Seat | None
    ) -> tuple[Emitter[S, E], list[CardId]]:
        """Check that the deal may happen; the emitter and the shuffled deck (bottom to top)."""
        if state.phase != self.setup:
            raise IllegalActionError("the cards have already been dealt")
        if dealer is not None and not 0 <= dealer < state.players:
            raise IllegalActionError(f"there is no seat {dealer} to deal")
        order = list(state.deck)
        rng.shuffle(order)
        return Emitter(state, rng, self.apply), order

    def draw(self, emit: Emitter[S, E], seat: Seat, count: int) -> None:
        """``seat`` draws ``count`` cards, the pool reshuffled whenever the pile runs out;
        with nothing left to reshuffle the draw stops short and play goes on."""
        state = emit.state
        while count > 0:
            if not state.draw_pile:
                pool = self.pool(state)
                if not pool:
                    return
                emit.rng.shuffle(pool)
                emit(self.reshuffled(tuple(pool)))
            take = min(count, len(state.draw_pile))
            emit(self.drawn(seat, tuple(state.draw_pile[-1 : -take - 1 : -1])))
            count -= take

"""Headless games between bots, the same loop for both games (``stacks simulate``, the
benchmarks, the tournaments): each game's ``runner`` module names its table and bots.

The host steps its table with each bot's choice. With ``bot_views`` every bot reads its
own view, kept in step by the game's reducer with the events redacted for its seat, as on
the network. With ``check`` every event is replayed on a shadow host state from before
the deal, the invariants are checked after each one, and every view's public hash must
equal the host's after each action; each failure counts as a violation.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.errors import IllegalActionError
from engine.rng import derive_seed
from engine.state import Seat
from engine.table import Table


class Player(Protocol):
    """A bot: a choice from a seat's view and its legal actions."""

    @property
    def name(self) -> str: ...

    def choose(self, view: Any, seat: Seat, legal: list[Any]) -> Any: ...


Chooser = Callable[[Any, "list[Any] | None"], "tuple[Seat, Any] | None"]
"""``chooser(host_state, views)``: the seat to act next and its bot's action, or ``None``
for the usual: the current player's bot chooses from its view."""


def game_seed(seed: int, index: int) -> bytes:
    """The seed of game ``index`` of a simulation run with ``seed``."""
    return derive_seed(seed, label=f"game{index}")


@dataclass(frozen=True, slots=True)
class Played:
    """A finished headless game: the host's table and what it took."""

    table: Table[Any, Any, Any, Any]
    actions: int
    events: int
    invariant_violations: int

    def totals(self) -> dict[str, Any]:
        """What every game's result says: the winner (a seat or a team), how the game
        ended, its turns, the actions and events it took, the invariant violations."""
        outcome = self.table.state.outcome
        assert outcome is not None
        return {
            "winner": outcome.winner,
            "termination": outcome.termination.name.lower(),
            "turns": self.table.state.turn,
            "actions": self.actions,
            "events": self.events,
            "invariant_violations": self.invariant_violations,
        }


def play_out(
    table_type: type[Table[Any, Any, Any, Any]],
    players: int,
    bots: Sequence[Player],
    seed: bytes,
    config: object | None = None,
    *,
    check: bool = False,
    bot_views: bool = True,
    check_invariants: Callable[[Any], list[str]] | None = None,
    chooser: Chooser | None = None,
) -> Played:
    """Play one game of ``table_type`` to the end; ``bots[i]`` plays seat ``i``.

    ``check_invariants`` defaults to the game's own; ``chooser`` decides who acts when
    it is not simply the current player (a Block window). Raises ``RuntimeError`` when
    a bot chooses an illegal action (a bot bug must not hang the run).
    """
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(bots)}")
    rules = table_type.RULES
    invariants = check_invariants or rules.check_invariants
    apply = rules.apply
    game = table_type.new(players, seed, config, keep_log=check)
    state = game.state
    views: list[Any] | None = None
    if bot_views:
        views = [rules.view_for(state, seat) for seat in range(players)]
    shadow: Any = None
    violations = 0
    if check:
        shadow = rules.new_state(state.config, players)
        for event in game.log:
            apply(shadow, event)
            violations += len(invariants(shadow))
        game.keep_log = False
    actions = events = 0
    legal_actions = rules.legal_actions

    while state.outcome is None:
        choice = chooser(state, views) if chooser is not None else None
        if choice is None:
            seat = state.current
            view = views[seat] if views is not None else state
            action = bots[seat].choose(view, seat, legal_actions(view, seat))
        else:
            seat, action = choice
        try:
            new = game.act(action)
        except IllegalActionError as exc:
            raise RuntimeError(f"{bots[seat].name} chose an illegal action: {exc}") from exc
        actions += 1
        events += len(new)
        if views is not None:
            for audience, view in enumerate(views):
                for event in new:
                    apply(view, event.redacted_for(audience))
        if shadow is not None:
            for event in new:
                apply(shadow, event)
                violations += len(invariants(shadow))
            if views is not None:
                expected = rules.public_hash(shadow)
                violations += sum(1 for view in views if rules.public_hash(view) != expected)
    return Played(game, actions, events, violations)


class Result(Protocol):
    """What :class:`Totals` sums of one game's result."""

    @property
    def winner(self) -> int | None: ...
    @property
    def termination(self) -> str: ...
    @property
    def turns(self) -> int: ...
    @property
    def actions(self) -> int: ...
    @property
    def invariant_violations(self) -> int: ...


@dataclass(slots=True, kw_only=True)
class Totals:
    """Running totals over many games of either game (what ``stacks simulate`` sums);
    ``wins`` counts by seat (Stacks) or by team (classic)."""

    games: int = 0
    draws: int = 0
    turns: int = 0
    actions: int = 0
    invariant_violations: int = 0
    wins: list[int] = field(default_factory=list)
    terminations: dict[str, int] = field(default_factory=dict)

    def count(self, result: Result, sides: int) -> None:
        """Add one game's result; ``sides``: how many seats (or teams) may win."""
        if not self.wins:
            self.wins = [0] * sides
        self.games += 1
        self.turns += result.turns
        self.actions += result.actions
        self.invariant_violations += result.invariant_violations
        self.terminations[result.termination] = self.terminations.get(result.termination, 0) + 1
        if result.winner is None:
            self.draws += 1
        else:
            self.wins[result.winner] += 1

    def totals(self, sides: int, wins_by_bot: dict[str, int]) -> dict[str, object]:
        """The summary's totals, in the order ``stacks simulate --json`` prints them."""
        games = max(self.games, 1)
        return {
            "wins": list(self.wins or [0] * sides),
            "wins_by_bot": wins_by_bot,
            "draws": self.draws,
            "terminations": dict(sorted(self.terminations.items())),
            "mean_turns": round(self.turns / games, 2),
            "mean_actions": round(self.actions / games, 2),
            "invariant_violations": self.invariant_violations,
        }

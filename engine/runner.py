"""Headless games between bots: the loop behind ``stacks simulate`` and the benchmarks.

In a local game there is no network race: when a pile completes, the eligible
opponents are asked in seat order after the completer, and the first to Block wins
(RULES.md §1.6.2, "the first Block submitted to the engine wins").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action, PassBlock
from engine.bots.base import Bot
from engine.config import RulesConfig
from engine.errors import IllegalActionError
from engine.events import Event
from engine.game import Game
from engine.invariants import check_invariants
from engine.reducer import apply
from engine.rng import derive_seed
from engine.rules import legal_actions, step
from engine.state import Phase, Seat, State
from engine.views import public_hash, view_for


@dataclass(frozen=True, slots=True)
class GameResult:
    players: int
    winner: Seat | None
    termination: str
    turns: int
    actions: int
    events: int
    invariant_violations: int
    chips: tuple[tuple[int, int], ...]


class InvariantViolation(AssertionError):
    """Raised by :func:`play_game` in strict mode."""


def game_seed(seed: int, index: int) -> bytes:
    """The seed of game ``index`` of a simulation run with ``seed``."""
    return derive_seed(seed, label=f"game{index}")


def play_game(
    players: int,
    bots: Sequence[Bot],
    seed: bytes,
    config: RulesConfig | None = None,
    *,
    check: bool = False,
    bot_views: bool = True,
) -> GameResult:
    """Play one game to the end. ``bots[i]`` plays seat ``i``.

    ``check`` runs :func:`check_invariants` after every event (counting violations).
    ``bot_views`` gives each bot its own view (kept in step by the same reducer via
    redacted events), as on the network; switch it off only to benchmark the engine
    without that cost, since bots then read the host state.
    """
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(bots)}")
    game = Game.new(players, seed, config, keep_log=False)
    state = game.state
    violations = 0
    views: list[State] | None = None
    if bot_views:
        views = [view_for(state, seat) for seat in range(players)]
    actions = 0
    events = 0

    shadow = state.copy() if check else None

    def deliver(new_events: list[Event]) -> None:
        nonlocal violations, events
        events += len(new_events)
        if views is not None:
            for seat, view in enumerate(views):
                for event in new_events:
                    apply(view, event.redacted_for(seat))
        if shadow is not None:
            # Replay on a shadow copy so that the state after *every* event is checked.
            for event in new_events:
                apply(shadow, event)
                violations += len(check_invariants(shadow))
            if views is not None:
                expected = public_hash(shadow)
                violations += sum(1 for view in views if public_hash(view) != expected)

    while state.outcome is None:
        if state.phase == Phase.BLOCK_WINDOW:
            action = _block_round(state, bots, views)
        else:
            seat = state.current
            view = views[seat] if views is not None else state
            legal = legal_actions(view, seat)
            action = bots[seat].choose(view, seat, legal)
        try:
            new_events = step(state, action, game.rng)
        except IllegalActionError as exc:  # a bot bug must not hang the run
            raise RuntimeError(f"{bots[action.seat].name} chose an illegal action: {exc}") from exc
        actions += 1
        deliver(new_events)
    outcome = state.outcome
    return GameResult(
        players=players,
        winner=outcome.winner,
        termination=outcome.termination.name.lower(),
        turns=state.turn,
        actions=actions,
        events=events,
        invariant_violations=violations,
        chips=tuple((c[0], c[1]) for c in state.chips),
    )


def _block_round(state: State, bots: Sequence[Bot], views: list[State] | None) -> Action:
    """Ask each eligible opponent in turn order; the first Block wins, else the last pass."""
    window = state.window
    assert window is not None
    n = state.players
    for offset in range(1, n):
        seat = (window.seat + offset) % n
        view = views[seat] if views is not None else state
        legal = legal_actions(view, seat)
        if not legal:
            continue
        choice = bots[seat].choose(view, seat, legal)
        if not isinstance(choice, PassBlock):
            return choice
        if seat not in window.passed:
            # Record the pass; the window closes by itself after the last one.
            return choice
    raise AssertionError("a Block window with nobody left to ask")


@dataclass(slots=True)
class Tally:
    """Running totals over many games (the numbers ``stacks simulate`` reports)."""

    players: int
    bots: tuple[str, ...]
    games: int = 0
    draws: int = 0
    turns: int = 0
    actions: int = 0
    invariant_violations: int = 0
    wins: list[int] | None = None
    terminations: dict[str, int] | None = None

    def add(self, result: GameResult) -> None:
        if self.wins is None:
            self.wins = [0] * self.players
        if self.terminations is None:
            self.terminations = {}
        self.games += 1
        self.turns += result.turns
        self.actions += result.actions
        self.invariant_violations += result.invariant_violations
        self.terminations[result.termination] = self.terminations.get(result.termination, 0) + 1
        if result.winner is None:
            self.draws += 1
        else:
            self.wins[result.winner] += 1

    def wins_by_bot(self) -> dict[str, int]:
        totals = dict.fromkeys(self.bots, 0)
        for seat, count in enumerate(self.wins or [0] * self.players):
            totals[self.bots[seat]] += count
        return totals

    def summary(self) -> dict[str, object]:
        games = max(self.games, 1)
        return {
            "games": self.games,
            "players": self.players,
            "bots": list(self.bots),
            "wins": list(self.wins or [0] * self.players),
            "wins_by_bot": self.wins_by_bot(),
            "draws": self.draws,
            "terminations": dict(sorted((self.terminations or {}).items())),
            "mean_turns": round(self.turns / games, 2),
            "mean_actions": round(self.actions / games, 2),
            "invariant_violations": self.invariant_violations,
        }

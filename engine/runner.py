"""Headless Sequence Stacks games between bots: ``stacks simulate`` and the benchmarks
(the loop both games share: :mod:`engine.headless`).

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
from engine.game import Game
from engine.headless import Totals, game_seed, play_out
from engine.invariants import check_invariants
from engine.rules import legal_actions
from engine.state import Phase, Seat, State

__all__ = ["GameResult", "InvariantViolation", "Tally", "game_seed", "play_game"]


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

    def window_round(state: State, views: list[State] | None) -> tuple[Seat, Action] | None:
        if state.phase != Phase.BLOCK_WINDOW:
            return None
        action = block_round(state, bots, views)
        return action.seat, action

    played = play_out(
        Game, players, bots, seed, config, check=check, bot_views=bot_views,
        check_invariants=check_invariants, chooser=window_round,
    )
    chips = played.table.state.chips
    return GameResult(
        players=players, chips=tuple((c[0], c[1]) for c in chips), **played.totals()
    )


def block_round(
    state: State, bots: Sequence[Bot], views: list[State] | None = None
) -> Action:
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
class Tally(Totals):
    """Running totals over many games (the numbers ``stacks simulate`` reports)."""

    players: int
    bots: tuple[str, ...]

    def add(self, result: GameResult) -> None:
        self.count(result, self.players)

    def wins_by_bot(self) -> dict[str, int]:
        totals = dict.fromkeys(self.bots, 0)
        for seat, count in enumerate(self.wins or [0] * self.players):
            totals[self.bots[seat]] += count
        return totals

    def summary(self) -> dict[str, object]:
        return {
            "games": self.games,
            "players": self.players,
            "bots": list(self.bots),
            **self.totals(self.players, self.wins_by_bot()),
        }

"""Headless classic games between bots: the loop behind ``stacks simulate --game sequence``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.classic.bots import SequenceBot
from engine.classic.config import SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.game import SequenceGame
from engine.classic.invariants import check_invariants
from engine.classic.reducer import apply
from engine.classic.rules import legal_actions
from engine.classic.state import SequenceState, Team
from engine.classic.views import public_hash, view_for
from engine.errors import IllegalActionError


@dataclass(frozen=True, slots=True)
class SequenceResult:
    players: int
    teams: int
    winner: Team | None
    """The winning team (``None`` for a draw)."""
    termination: str
    turns: int
    actions: int
    events: int
    invariant_violations: int
    sequences: tuple[int, ...]
    """Sequences made by each team."""


def play_sequence_game(
    players: int,
    bots: Sequence[SequenceBot],
    seed: bytes,
    config: SequenceConfig | None = None,
    *,
    check: bool = False,
    bot_views: bool = True,
) -> SequenceResult:
    """Play one game to the end; ``bots[i]`` plays seat ``i``.

    ``check`` replays every event on a shadow host state and checks the invariants
    after each, and that every view's public hash equals the host's. ``bot_views``
    keeps one view per seat with the redacted events, as on the network.
    """
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(bots)}")
    game = SequenceGame.new(players, seed, config, keep_log=check)
    state = game.state
    views: list[SequenceState] | None = None
    if bot_views:
        views = [view_for(state, seat) for seat in range(players)]
    shadow: SequenceState | None = None
    violations = 0
    if check:
        shadow = SequenceState.new(state.config, players)
        for event in game.log:
            apply(shadow, event)
            violations += len(check_invariants(shadow))
        game.keep_log = False
    actions = events = 0

    def deliver(new: list[SequenceEvent]) -> None:
        nonlocal violations, events
        events += len(new)
        if views is not None:
            for seat, view in enumerate(views):
                for event in new:
                    apply(view, event.redacted_for(seat))
        if shadow is not None:
            for event in new:
                apply(shadow, event)
                violations += len(check_invariants(shadow))
            if views is not None:
                expected = public_hash(shadow)
                violations += sum(1 for view in views if public_hash(view) != expected)

    while state.outcome is None:
        seat = state.current
        view = views[seat] if views is not None else state
        action = bots[seat].choose(view, seat, legal_actions(view, seat))
        try:
            new = game.act(action)
        except IllegalActionError as exc:  # a bot bug must not hang the run
            raise RuntimeError(f"{bots[seat].name} chose an illegal action: {exc}") from exc
        actions += 1
        deliver(new)
    outcome = state.outcome
    return SequenceResult(
        players=players,
        teams=state.teams,
        winner=outcome.winner,
        termination=outcome.termination.name.lower(),
        turns=state.turn,
        actions=actions,
        events=events,
        invariant_violations=violations,
        sequences=tuple(state.sequence_count(t) for t in range(state.teams)),
    )


@dataclass(slots=True)
class SequenceTally:
    """Running totals over many classic games."""

    players: int
    teams: int
    bots: tuple[str, ...]
    """Bot name per seat."""
    games: int = 0
    draws: int = 0
    turns: int = 0
    actions: int = 0
    invariant_violations: int = 0
    wins: list[int] = field(default_factory=list)
    """Wins per team."""
    terminations: dict[str, int] = field(default_factory=dict)

    def add(self, result: SequenceResult) -> None:
        if not self.wins:
            self.wins = [0] * self.teams
        self.games += 1
        self.turns += result.turns
        self.actions += result.actions
        self.invariant_violations += result.invariant_violations
        self.terminations[result.termination] = self.terminations.get(result.termination, 0) + 1
        if result.winner is None:
            self.draws += 1
        else:
            self.wins[result.winner] += 1

    def team_bots(self, team: Team) -> tuple[str, ...]:
        """The bots seated in ``team`` (seats ``team``, ``team + teams``, ...), distinct."""
        return tuple(dict.fromkeys(self.bots[team :: self.teams]))

    def wins_by_bot(self) -> dict[str, int]:
        """A team's win counts once for each distinct bot in that team."""
        totals = dict.fromkeys(self.bots, 0)
        for team, count in enumerate(self.wins or [0] * self.teams):
            for name in self.team_bots(team):
                totals[name] += count
        return totals

    def summary(self) -> dict[str, object]:
        games = max(self.games, 1)
        return {
            "game": "sequence",
            "games": self.games,
            "players": self.players,
            "teams": self.teams,
            "bots": list(self.bots),
            "team_bots": [list(self.team_bots(t)) for t in range(self.teams)],
            "wins": list(self.wins or [0] * self.teams),
            "wins_by_bot": self.wins_by_bot(),
            "draws": self.draws,
            "terminations": dict(sorted(self.terminations.items())),
            "mean_turns": round(self.turns / games, 2),
            "mean_actions": round(self.actions / games, 2),
            "invariant_violations": self.invariant_violations,
        }

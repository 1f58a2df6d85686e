"""Headless classic games between bots: ``stacks simulate --game sequence`` (the loop
both games share: :mod:`engine.headless`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.classic.config import SequenceConfig
from engine.classic.game import SequenceGame
from engine.classic.invariants import check_invariants
from engine.classic.policy import SequenceBot
from engine.classic.state import SequenceState, Team
from engine.headless import Totals, play_out


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
    played = play_out(
        SequenceGame, players, bots, seed, config, check=check, bot_views=bot_views,
        check_invariants=check_invariants,
    )
    state: SequenceState = played.table.state
    return SequenceResult(
        players=players,
        teams=state.teams,
        sequences=tuple(state.sequence_count(t) for t in range(state.teams)),
        **played.totals(),
    )


@dataclass(slots=True)
class SequenceTally(Totals):
    """Running totals over many classic games; ``wins`` counts by team."""

    players: int
    teams: int
    bots: tuple[str, ...]
    """Bot name per seat."""

    def add(self, result: SequenceResult) -> None:
        self.count(result, self.teams)

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
        return {
            "game": "sequence",
            "games": self.games,
            "players": self.players,
            "teams": self.teams,
            "bots": list(self.bots),
            "team_bots": [list(self.team_bots(t)) for t in range(self.teams)],
            **self.totals(self.teams, self.wins_by_bot()),
        }

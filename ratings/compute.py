"""Rating a game with OpenSkill's Plackett-Luce model (made for 2+ sides and teams).

Each side (a seat in Sequence Stacks, a team in classic Sequence) is a team of its
players; the winning side ranks first and every other side shares second place (a draw:
all first). A bot level is one identity: where several seats of one game are the same
level, each seat is rated from the level's rating and the level takes the mean of its
seats' new ratings (its games and wins count the game once).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ratings.results import GameResult

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        """What the leaderboard shows and sorts by: a conservative estimate (mu - 3 sigma),
        0 for a newcomer."""
        return self.mu - 3 * self.sigma


NEW = Skill(MU, SIGMA)


@dataclass(frozen=True)
class Rated:
    before: dict[int, Skill]
    """Each seat's skill before the game."""
    after: dict[int, Skill]
    """Each seat's skill after it."""
    identities: dict[str, Skill]
    """Each identity's skill after the game."""


def rate(game: GameResult, current: Mapping[str, Skill]) -> Rated:
    """The game's effect on the ratings ``current`` (an identity not in it is new)."""
    sides = sorted({seat.team for seat in game.seats})
    before = {s.seat: current.get(s.fingerprint, NEW) for s in game.seats}
    teams = [
        [MODEL.rating(mu=before[s.seat].mu, sigma=before[s.seat].sigma)
         for s in game.seats if s.team == side]
        for side in sides
    ]
    ranks: list[float] = [1 if game.winner is None or side == game.winner else 2 for side in sides]
    new_teams = MODEL.rate(teams, ranks=ranks)
    after: dict[int, Skill] = {}
    for side, new in zip(sides, new_teams, strict=True):
        members = [s for s in game.seats if s.team == side]
        for seat, rating in zip(members, new, strict=True):
            after[seat.seat] = Skill(float(rating.mu), float(rating.sigma))
    grouped: dict[str, list[Skill]] = {}
    for s in game.seats:
        grouped.setdefault(s.fingerprint, []).append(after[s.seat])
    identities = {
        who: Skill(sum(k.mu for k in skills) / len(skills),
                   sum(k.sigma for k in skills) / len(skills))
        for who, skills in grouped.items()
    }
    return Rated(before, after, identities)

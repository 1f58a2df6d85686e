"""Ratings as people read them: points on the familiar chess-like scale, a newcomer at 1500,
with a ``?`` while the rating is provisional.

The store keeps OpenSkill's ``mu`` and ``sigma`` (a newcomer 25 ± 8.33) and ranks by the
conservative ``mu - 3 sigma``; nobody knows what "-0.47 ± 8.18" means. Shown, a skill is
``1500 + 48 (mu - 25)`` points: OpenSkill's ``beta`` (25/6, the spread of one game's
performance) is 200 points, as a class is on the Elo scale. Until ``sigma`` falls to
:data:`PROVISIONAL_SIGMA` (about ten games against settled players) the number is marked
provisional, as lichess marks a rating whose deviation is still wide.
"""

from __future__ import annotations

from ratings.compute import MU

START = 1500
"""A newcomer's points."""
POINTS_PER_MU = 48.0
"""One unit of ``mu`` in points: ``beta`` (25/6) is 200 points."""
PROVISIONAL_SIGMA = 4.0
"""A rating stays provisional while its ``sigma`` is above this (± 192 points)."""


def points(mu: float) -> int:
    """``mu`` on the points scale (a newcomer's 25 is 1500)."""
    return round(START + POINTS_PER_MU * (mu - MU))


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def rating_text(mu: float, sigma: float) -> str:
    """``1523``, or ``1523?`` while provisional."""
    return f"{points(mu)}{'?' if provisional(sigma) else ''}"


def change_text(before_mu: float, after_mu: float) -> str:
    """A game's change in points: ``+24``, ``-9``, ``±0``."""
    change = points(after_mu) - points(before_mu)
    return f"{change:+d}" if change else "±0"


def counted(count: int, word: str) -> str:
    """``1 game``, ``2 games``, ``1 win``, ``0 wins``."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def record_text(games: int, wins: int) -> str:
    """``2 games, 1 win``."""
    return f"{counted(games, 'game')}, {counted(wins, 'win')}"

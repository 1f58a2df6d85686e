"""Medium's scores of classic moves, and the worth of a position.

Medium plays the best-scored legal action; the search (:mod:`engine.classic.search`)
prunes, sets its prior and plays its playouts by the same scores (`ranked`), and scores
the end of a playout by each side's worth (`sequence_rewards`).
"""

from __future__ import annotations

import math
import operator
from typing import Final

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import CORNERS, THROUGH, WINDOWS
from engine.classic.cards import JACKS, CardId, JackKind
from engine.classic.lines import ATTACK, CORNERS_IN, DEFEND, LINE_WORTH, Board, Lines, window_counts
from engine.classic.state import EMPTY, SequenceState
from engine.rng import Rng
from engine.state import Seat

_TWO_EYED_COST: Final = 60.0
_ONE_EYED_COST: Final = 45.0
SEQUENCE_WORTH: Final = 60.0
SPREAD: Final = 20.0
"""A worth lead of ``SPREAD`` is a reward of about 0.73 (logistic)."""
BY_SCORE: Final = operator.itemgetter(0)
"""Sorted by it in reverse, equal scores keep their order (Python's sort is stable)."""


class Scorer:
    __slots__ = ("cache", "lines", "view")

    def __init__(self, view: SequenceState, seat: Seat) -> None:
        self.view = view
        self.lines = Lines(view, view.team_of(seat))
        self.cache: dict[int, float] = {}

    def place(self, cell: int) -> float:
        """Worth of our chip on an empty ``cell``: attack plus block."""
        known = self.cache.get(cell)
        if known is not None:
            return known
        gain = self.lines.gain()
        score = 0.0
        for w in THROUGH[cell]:
            score += gain[w]
        self.cache[cell] = score
        return score

    def remove(self, cell: int) -> float:
        """Worth of taking the opponent chip off ``cell``: their lines through it shrink,
        and our lines through it open."""
        lines = self.lines
        score = 0.0
        for w in THROUGH[cell]:
            threat = lines.threat(w)
            if threat:
                score += DEFEND[threat]
            if lines.rivals[w] == 1:
                score += 0.5 * ATTACK[lines.mine[w]]
        return score

    def keep(self, card: CardId) -> float:
        """How much the hand wants ``card`` (the discard with no legal play drops the least)."""
        return keep_worth(card)


def keep_worth(card: CardId) -> float:
    jack = JACKS[card]
    if jack is JackKind.TWO_EYED:
        return 100.0
    if jack is JackKind.ONE_EYED:
        return 80.0
    return 0.0


def medium_score(scorer: Scorer, action: SequenceAction) -> float:
    """Medium's score of one legal action: the higher, the better."""
    if isinstance(action, ExchangeDeadCard):
        return 10_000.0  # a free better card, before the play
    if isinstance(action, PlaceChip):
        if action.claim:
            return -1.0  # the engine's own choice of sequences is as good
        value = scorer.place(action.cell)
        if JACKS[action.card] is JackKind.TWO_EYED:
            value -= _TWO_EYED_COST
        return value
    if isinstance(action, RemoveChip):
        return scorer.remove(action.cell) - _ONE_EYED_COST
    if isinstance(action, DiscardUnplayable):
        return -scorer.keep(action.card)
    return 0.0


def best_of(rng: Rng, scored: list[tuple[float, SequenceAction]]) -> SequenceAction:
    top = max(score for score, _ in scored)
    best = [action for score, action in scored if score >= top - 1e-9]
    return best[rng.below(len(best))] if len(best) > 1 else best[0]


def sequence_worth(state: SequenceState, team: int) -> float:
    """A side's position: its sequences, and its open lines weighted by how full they are."""
    chips = state.chips
    worth = SEQUENCE_WORTH * state.sequence_count(team)
    for cells in WINDOWS:
        mine = 0
        for cell in cells:
            holder = chips[cell]
            if holder == team or cell in CORNERS:
                mine += 1
            elif holder != EMPTY:
                break
        else:
            worth += LINE_WORTH[mine]
    return worth


def team_worths(state: SequenceState) -> list[float]:
    """:func:`sequence_worth` of every side at once (each window counted once)."""
    teams = state.teams
    counts, total = window_counts(state)
    worths = LINE_WORTH
    out = []
    for team in range(teams):
        worth = SEQUENCE_WORTH * state.sequence_count(team)
        for own, every, corners in zip(counts[team], total, CORNERS_IN, strict=True):
            if own == every:
                worth += worths[own + corners]
        out.append(worth)
    return out


def sequence_rewards(state: SequenceState, worth: list[float] | None = None,
                     spread: float = SPREAD) -> list[float]:
    """Each seat's reward: 1 for its side's win, else the logistic of its side's worth
    lead over the best other side (``worth``: :func:`team_worths`, when known)."""
    outcome = state.outcome
    teams = [state.team_of(seat) for seat in range(state.players)]
    if outcome is not None:
        if outcome.winner is None:
            return [1.0 / state.teams] * state.players
        return [1.0 if team == outcome.winner else 0.0 for team in teams]
    if worth is None:
        worth = team_worths(state)
    out = []
    for team in teams:
        rival = max(w for t, w in enumerate(worth) if t != team)
        out.append(1.0 / (1.0 + math.exp((rival - worth[team]) / spread)))
    return out


def ranked(view: SequenceState, seat: Seat, legal: list[SequenceAction],
           board: Board | None = None) -> list[tuple[float, SequenceAction]]:
    """Medium's score of every legal action, best first (a stable sort: equal scores keep
    the order of ``legal``). ``board``: the lines of ``view``'s board, kept up to date
    (the same scores, without counting the board)."""
    if board is None:
        return _ranked_afresh(view, seat, legal)
    scored = list(zip(board_scores(view.team_of(seat), legal, board), legal, strict=True))
    scored.sort(key=BY_SCORE, reverse=True)
    return scored


def board_scores(team: int, legal: list[SequenceAction], board: Board) -> list[float]:
    """Medium's score of each legal action of ``team``, from the kept lines."""
    places, takes = board.places[team], board.takes[team]
    scores: list[float] = []
    for action in legal:
        if type(action) is PlaceChip:
            if action.claim:
                value = -1.0
            else:
                value = places[action.cell]
                if JACKS[action.card] is JackKind.TWO_EYED:
                    value -= _TWO_EYED_COST
        elif type(action) is RemoveChip:
            value = takes[action.cell] - _ONE_EYED_COST
        elif type(action) is ExchangeDeadCard:
            value = 10_000.0
        elif type(action) is DiscardUnplayable:
            value = -keep_worth(action.card)
        else:
            value = 0.0
        scores.append(value)
    return scores


def unspend(team: int, legal: list[SequenceAction], scores: list[float], board: Board,
             spent: frozenset[int]) -> None:
    """Medium's ``scores`` of ``legal`` less what the ``spent`` windows add to them."""
    gains, breaks = board.gains[team], board.breaks[team]
    for i, action in enumerate(legal):
        if type(action) is PlaceChip and not action.claim:
            worth = gains
        elif type(action) is RemoveChip:
            worth = breaks
        else:
            continue
        for w in THROUGH[action.cell]:
            if w in spent:
                scores[i] -= worth[w]


def _ranked_afresh(view: SequenceState, seat: Seat, legal: list[SequenceAction]
                   ) -> list[tuple[float, SequenceAction]]:
    scorer = Scorer(view, seat)
    score = medium_score
    gain = scorer.lines.gain()
    cells = scorer.cache
    scored: list[tuple[float, SequenceAction]] = []
    for action in legal:
        # Medium's _score inlined for the common case, a placement without a claim.
        if type(action) is PlaceChip and not action.claim:
            cell = action.cell
            value = cells.get(cell)
            if value is None:
                value = 0.0
                for w in THROUGH[cell]:
                    value += gain[w]
                cells[cell] = value
            if JACKS[action.card] is JackKind.TWO_EYED:
                value -= _TWO_EYED_COST
            scored.append((value, action))
        else:
            scored.append((score(scorer, action), action))
    scored.sort(key=BY_SCORE, reverse=True)
    return scored

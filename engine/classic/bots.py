"""Bots for classic Sequence, deciding from their own view only.

- ``random``: any legal action, uniformly.
- ``easy``: makes a sequence when one card does it and turns in dead cards; otherwise
  a random space for a card that names one, and jacks only when nothing else is left.
- ``medium``: weighs every space by the lines of five through it — its own chances
  (more for lines nearer five, the win above all) and the opponents' (blocks a line of
  four, then of three); keeps jacks for what only a jack can do (a sequence, a block,
  breaking a line of four), turns in dead cards at once, discards the least useful card.
- ``hard``: the search of Sequence Stacks' ``hard`` (:mod:`engine.bots.ismcts`) on this
  game: it samples the hands and draw pile it can't see from the cards it has not seen,
  searches with medium's choice as the prior and medium playing the playouts, and scores
  a position by the sequences made and the open lines of five each side holds. At every
  decision, its own and the sampled opponents', it considers only the few moves medium
  scores best (``width``): a two-eyed jack's eighty spaces are mostly pointless, and the
  iterations go to the moves that matter. Medium's scores of a decision are worked out
  once and serve the pruning, the prior and the playout's move.

Ties are broken with the bot's own generator, so equal seats don't always play alike.
"""

from __future__ import annotations

import math
import operator
import os
import random
import time
from collections.abc import Callable, Hashable
from typing import Final, Protocol

from engine.bots.determinize import ViewError, count_hidden, deal_hidden, unseen_cards
from engine.bots.ismcts import C_PUCT, Search, SearchStats, favourite_priors, uniform_priors
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import CORNERS, THROUGH, WINDOWS
from engine.classic.cards import CODES, HIDDEN, JACKS, CardId, JackKind
from engine.classic.fastplay import play
from engine.classic.rules import legal_actions
from engine.classic.state import EMPTY, Phase, SequenceState
from engine.rng import Rng
from engine.state import HOST, SPECTATOR, Seat


class SequenceBot(Protocol):
    """Decides for one seat. ``view`` is that seat's view; ``legal`` is never empty."""

    name: str

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction: ...


class RandomSequenceBot:
    name = "random"

    def __init__(self, seed: bytes = b"random-sequence-bot") -> None:
        self._rng = Rng(seed)

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        return legal[self._rng.below(len(legal))]


_CORNERS_IN: Final[tuple[int, ...]] = tuple(sum(c in CORNERS for c in w) for w in WINDOWS)
_WINDOW_COUNT: Final = len(WINDOWS)


class _Lines:
    """Per window of the board: the moving team's count, and who else holds chips."""

    __slots__ = ("_gain", "mine", "opponent", "rivals", "team")

    def __init__(self, view: SequenceState, team: int) -> None:
        self.team = team
        chips = view.chips
        mine = list(_CORNERS_IN)
        rivals = [0] * _WINDOW_COUNT
        opponent = [EMPTY] * _WINDOW_COUNT
        mixed: list[int] = []
        # Only the occupied cells: each adds itself to the windows through it.
        for cell, holder in enumerate(chips):
            if holder == EMPTY:
                continue
            if holder == team:
                for w in THROUGH[cell]:
                    mine[w] += 1
                continue
            for w in THROUGH[cell]:
                rivals[w] += 1
                owner = opponent[w]
                if owner == EMPTY:
                    opponent[w] = holder
                elif owner != holder:
                    mixed.append(w)
        for w in mixed:
            opponent[w] = EMPTY
        self.mine = mine
        self.rivals = rivals
        """Chips of other teams in the window (any of them)."""
        self.opponent = opponent
        """The one other team holding all the window's other-team chips, or EMPTY."""
        self._gain: list[float] | None = None

    def gain(self) -> list[float]:
        """Per window, the worth of one more chip of ours in it (:data:`_ATTACK` while it
        is open to us, :data:`_DEFEND` while it is a threat)."""
        if self._gain is None:
            mine, rivals, opponent = self.mine, self.rivals, self.opponent
            gain = [0.0] * _WINDOW_COUNT
            for w in range(_WINDOW_COUNT):
                if rivals[w] == 0:
                    gain[w] = _ATTACK[mine[w]]
                elif opponent[w] != EMPTY and mine[w] == _CORNERS_IN[w]:
                    gain[w] = _DEFEND[rivals[w] + _CORNERS_IN[w]]
            self._gain = gain
        return self._gain

    def threat(self, window: int) -> int:
        """How many chips (corners included) an opponent has in a window free of ours."""
        if self.opponent[window] == EMPTY or self.mine[window] - _corner_count(window):
            return 0
        return self.rivals[window] + _corner_count(window)




def _corner_count(window: int) -> int:
    return _CORNERS_IN[window]


_ATTACK: Final = (1.0, 3.0, 9.0, 30.0, 1000.0, 0.0)
"""Worth of adding a chip to an open window already holding ``n`` of ours."""
_DEFEND: Final = (0.0, 0.5, 2.0, 12.0, 400.0, 0.0)
"""Worth of putting a chip into an opponent's open window holding ``n`` of theirs."""
_TWO_EYED_COST: Final = 60.0
_ONE_EYED_COST: Final = 45.0


class _Scorer:
    __slots__ = ("cache", "lines", "view")

    def __init__(self, view: SequenceState, seat: Seat) -> None:
        self.view = view
        self.lines = _Lines(view, view.team_of(seat))
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
                score += _DEFEND[threat]
            if lines.rivals[w] == 1:
                score += 0.5 * _ATTACK[lines.mine[w]]
        return score

    def keep(self, card: CardId) -> float:
        """How much the hand wants ``card`` (the discard with no legal play drops the least)."""
        return _keep(card)


def _keep(card: CardId) -> float:
    jack = JACKS[card]
    if jack is JackKind.TWO_EYED:
        return 100.0
    if jack is JackKind.ONE_EYED:
        return 80.0
    return 0.0


class _Board:
    """The board's lines kept up to date move by move, for the search's samples.

    Per side: its chips in every window, the worth (:data:`_ATTACK` / :data:`_DEFEND`,
    as :class:`_Lines` has it) of one more of its chips in every window, the sum of those
    over the windows through every cell (medium's score of a placement there), the same
    for taking another side's chip off a cell (:meth:`_Scorer.remove`), and its open
    lines' worth (:func:`team_worths` less the sequences). A chip placed or removed
    changes the twenty-odd windows through its cell only, so a decision in a playout
    costs a lookup per legal action instead of a count of the whole board. Every worth is
    a multiple of 0.5, so the sums are exact, whatever their order: the scores are
    medium's own.
    """

    __slots__ = ("breaks", "counts", "gains", "lines", "places", "takes", "teams", "total")

    teams: int
    counts: list[list[int]]
    """``counts[team][w]``: the side's chips in window ``w`` (corners not counted)."""
    total: list[int]
    gains: list[list[float]]
    places: list[list[float]]
    breaks: list[list[float]]
    """``breaks[team][w]``: the worth to ``team`` of taking a chip out of window ``w``."""
    takes: list[list[float]]
    lines: list[float]

    @classmethod
    def of(cls, state: SequenceState) -> _Board:
        board = cls()
        teams = board.teams = state.teams
        board.counts, board.total = _window_counts(state)
        board.gains = [[board._gain(team, w) for w in range(_WINDOW_COUNT)]
                       for team in range(teams)]
        board.breaks = [[board._break(team, w) for w in range(_WINDOW_COUNT)]
                        for team in range(teams)]
        board.places = [_per_cell(gain) for gain in board.gains]
        board.takes = [_per_cell(worth) for worth in board.breaks]
        board.lines = [sum(board._line(team, w) for w in range(_WINDOW_COUNT))
                       for team in range(teams)]
        return board

    def copy(self) -> _Board:
        board = _Board()
        board.teams = self.teams
        board.counts = [list(c) for c in self.counts]
        board.total = list(self.total)
        board.gains = [list(g) for g in self.gains]
        board.places = [list(p) for p in self.places]
        board.breaks = [list(b) for b in self.breaks]
        board.takes = [list(t) for t in self.takes]
        board.lines = list(self.lines)
        return board

    def _gain(self, team: int, w: int) -> float:
        """:meth:`_Lines.gain` of one window for ``team``."""
        own = self.counts[team][w]
        rivals = self.total[w] - own
        if rivals == 0:
            return _ATTACK[own + _CORNERS_IN[w]]
        if own == 0 and self._one_rival(team, w, rivals):
            return _DEFEND[rivals + _CORNERS_IN[w]]
        return 0.0

    def _break(self, team: int, w: int) -> float:
        """What :meth:`_Scorer.remove` counts for window ``w``: a threat shrinks, and a
        window whose only other-side chip it is opens to us."""
        threat = self.threat(team, w)
        worth = _DEFEND[threat] if threat else 0.0
        own = self.counts[team][w]
        if self.total[w] - own == 1:
            worth += 0.5 * _ATTACK[own + _CORNERS_IN[w]]
        return worth

    def _one_rival(self, team: int, w: int, rivals: int) -> bool:
        """Whether one other side holds all the ``rivals`` other-side chips of ``w``."""
        if self.teams == 2:
            return True
        return any(t != team and self.counts[t][w] == rivals for t in range(self.teams))

    def _line(self, team: int, w: int) -> float:
        own = self.counts[team][w]
        return _LINE_WORTH[own + _CORNERS_IN[w]] if own == self.total[w] else 0.0

    def change(self, cell: int, team: int, by: int) -> None:
        """``by`` = 1: ``team``'s chip placed on ``cell``; -1: removed from it."""
        counts, total, lines = self.counts, self.total, self.lines
        mine = counts[team]
        teams = range(self.teams)
        two = self.teams == 2
        worth = _LINE_WORTH
        for w in THROUGH[cell]:
            corners = _CORNERS_IN[w]
            own = mine[w]
            was = total[w]
            # The open lines: ours grows or shrinks if it was open; another side's closes
            # (a chip of ours arrives) or opens (ours, its only rival, leaves).
            if own == was:
                lines[team] += worth[own + by + corners] - worth[own + corners]
            mine[w] = own + by
            now = total[w] = was + by
            for t in teams:
                if t == team:
                    continue
                other = counts[t][w]
                if by > 0:
                    if other == was:
                        lines[t] -= worth[other + corners]
                elif other == now:
                    lines[t] += worth[other + corners]
            for t in teams:
                held = counts[t][w]
                rivals = now - held
                if rivals == 0:
                    new = _ATTACK[held + corners]
                elif held == 0 and (two or self._one_rival(t, w, rivals)):
                    new = _DEFEND[rivals + corners]
                else:
                    new = 0.0
                gain = self.gains[t]
                delta = new - gain[w]
                if delta:
                    gain[w] = new
                    place = self.places[t]
                    for c in WINDOWS[w]:
                        place[c] += delta
                # _break, inlined.
                if held == 0 and rivals and (two or self._one_rival(t, w, rivals)):
                    new = _DEFEND[rivals + corners]
                else:
                    new = 0.0
                if rivals == 1:
                    new += 0.5 * _ATTACK[held + corners]
                broken = self.breaks[t]
                delta = new - broken[w]
                if delta:
                    broken[w] = new
                    take = self.takes[t]
                    for c in WINDOWS[w]:
                        take[c] += delta

    def threat(self, team: int, w: int) -> int:
        """:meth:`_Lines.threat` for ``team``."""
        own = self.counts[team][w]
        rivals = self.total[w] - own
        if own or not rivals or not self._one_rival(team, w, rivals):
            return 0
        return rivals + _CORNERS_IN[w]

def _per_cell(worth: list[float]) -> list[float]:
    """Per cell, the sum of a per-window worth over the windows through it."""
    out = []
    for cell in range(100):
        score = 0.0
        for w in THROUGH[cell]:
            score += worth[w]
        out.append(score)
    return out


def _best(rng: Rng, scored: list[tuple[float, SequenceAction]]) -> SequenceAction:
    top = max(score for score, _ in scored)
    best = [action for score, action in scored if score >= top - 1e-9]
    return best[rng.below(len(best))] if len(best) > 1 else best[0]


class MediumSequenceBot:
    name = "medium"

    def __init__(self, seed: bytes = b"medium-sequence-bot") -> None:
        self._rng = Rng(seed)

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        if len(legal) == 1:
            return legal[0]
        scorer = _Scorer(view, seat)
        scored: list[tuple[float, SequenceAction]] = []
        for action in legal:
            scored.append((self._score(scorer, action), action))
        return _best(self._rng, scored)

    @staticmethod
    def _score(scorer: _Scorer, action: SequenceAction) -> float:
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


class EasySequenceBot:
    name = "easy"

    def __init__(self, seed: bytes = b"easy-sequence-bot") -> None:
        self._rng = Rng(seed)

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        rng = self._rng
        if len(legal) == 1:
            return legal[0]
        lines = _Lines(view, view.team_of(seat))
        finishing = [
            a for a in legal if isinstance(a, PlaceChip) and not a.claim and any(
                lines.rivals[w] == 0 and lines.mine[w] == 4 for w in THROUGH[a.cell]
            )
        ]
        if finishing:
            return finishing[rng.below(len(finishing))]
        for tier in (
            [a for a in legal if isinstance(a, ExchangeDeadCard)],
            [a for a in legal if isinstance(a, PlaceChip) and not a.claim
             and JACKS[a.card] is JackKind.NONE],
            [a for a in legal if not (isinstance(a, PlaceChip) and a.claim)],
        ):
            if tier:
                return tier[rng.below(len(tier))]
        return legal[rng.below(len(legal))]


DEFAULT_BUDGET: Final = 0.5
"""Seconds per decision of ``hard`` (as in Sequence Stacks)."""
DEFAULT_HORIZON: Final = 4
"""Turns a playout runs before the position is scored."""
DEFAULT_WIDTH: Final[int | None] = 6
"""Moves the search considers at a decision (the best by medium's scores)."""
DEFAULT_SPENT: Final = "none"
"""Whose scores leave out the windows a sequence has spent (:func:`spent_windows`):
``"none"``, medium's scores everywhere; ``"mine"``, the bot's own and the evaluation's
(the opponents are modelled as medium, which counts them); ``"all"``, every seat's.
Measured no better than ``"none"`` in the search (docs/bots.md, 2026-12-06)."""
DEFAULT_TEMPERATURE: Final[float | None] = None
"""``None``: medium's favourite gets half the prior (a softmax measured no better)."""
_SAFETY: Final = 0.85
_MEDIUM_PRIOR: Final = 0.5
_LINE_WORTH: Final = (0.0, 0.5, 2.0, 6.0, 20.0, 0.0)
"""Worth to a side of an open window (no other side's chip) holding ``n`` of its chips
(corners count); a completed window is worth its sequence."""
_SEQUENCE_WORTH: Final = 60.0
_SPREAD: Final = 20.0
"""A worth lead of ``_SPREAD`` is a reward of about 0.73 (logistic)."""


class SequenceSampler:
    """Samples full states for one classic view: the cards it has not seen are dealt at
    random into the hidden hands and the draw pile (discard piles and the board are
    public)."""

    __slots__ = ("_unknown", "view")

    def __init__(self, view: SequenceState) -> None:
        if view.audience == SPECTATOR:
            raise ViewError("a spectator's view has no seat to sample for")
        self.view = view
        known = [c for hand in view.hands for c in hand if c != HIDDEN]
        for pile in view.discards:
            known.extend(pile)
        known.extend(c for c in view.draw_pile if c != HIDDEN)
        self._unknown = unseen_cards(view.deck, known)
        slots = count_hidden(view.hands, view.draw_pile)
        if len(self._unknown) != slots:
            raise ViewError(f"{slots} hidden slots but {len(self._unknown)} unseen cards")

    def sample(self, rng: random.Random) -> SequenceState:
        state = self.view.copy()
        state.audience = HOST
        state.draw_pile = deal_hidden(state.hands, state.draw_pile, self._unknown, rng)
        return state


def sequence_key(action: SequenceAction) -> Hashable:
    """What a classic action means: copies of a card are one choice (two-eyed jacks
    too, and every one-eyed jack)."""
    if isinstance(action, PlaceChip):
        jack = JACKS[action.card]
        return (0, "J2" if jack is JackKind.TWO_EYED else CODES[action.card], action.cell,
                action.claim)
    if isinstance(action, RemoveChip):
        return (1, action.cell)
    if isinstance(action, ExchangeDeadCard):
        return (2, CODES[action.card])
    if isinstance(action, DiscardUnplayable):
        return (3, CODES[action.card])
    return (4,)


def sequence_worth(state: SequenceState, team: int) -> float:
    """A side's position: its sequences, and its open lines weighted by how full they are."""
    chips = state.chips
    worth = _SEQUENCE_WORTH * state.sequence_count(team)
    for cells in WINDOWS:
        mine = 0
        for cell in cells:
            holder = chips[cell]
            if holder == team or cell in CORNERS:
                mine += 1
            elif holder != EMPTY:
                break
        else:
            worth += _LINE_WORTH[mine]
    return worth


def _window_counts(state: SequenceState) -> tuple[list[list[int]], list[int]]:
    """Each side's chips in every window of five, and all sides' together."""
    counts = [[0] * _WINDOW_COUNT for _ in range(state.teams)]
    total = [0] * _WINDOW_COUNT
    for cell, holder in enumerate(state.chips):
        if holder == EMPTY:
            continue
        mine = counts[holder]
        for w in THROUGH[cell]:
            mine[w] += 1
            total[w] += 1
    return counts, total


def team_worths(state: SequenceState) -> list[float]:
    """:func:`sequence_worth` of every side at once (each window counted once)."""
    teams = state.teams
    counts, total = _window_counts(state)
    worths = _LINE_WORTH
    out = []
    for team in range(teams):
        worth = _SEQUENCE_WORTH * state.sequence_count(team)
        for own, every, corners in zip(counts[team], total, _CORNERS_IN, strict=True):
            if own == every:
                worth += worths[own + corners]
        out.append(worth)
    return out


def sequence_rewards(state: SequenceState, worth: list[float] | None = None,
                     spread: float = _SPREAD) -> list[float]:
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
           board: _Board | None = None) -> list[tuple[float, SequenceAction]]:
    """Medium's score of every legal action, best first (a stable sort: equal scores keep
    the order of ``legal``). ``board``: the lines of ``view``'s board, kept up to date
    (the same scores, without counting the board)."""
    if board is None:
        return _ranked_afresh(view, seat, legal)
    scored = list(zip(_scores(view.team_of(seat), legal, board), legal, strict=True))
    scored.sort(key=_SCORE, reverse=True)
    return scored


def _scores(team: int, legal: list[SequenceAction], board: _Board) -> list[float]:
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
            value = -_keep(action.card)
        else:
            value = 0.0
        scores.append(value)
    return scores


_SCORE: Final = operator.itemgetter(0)
"""Sorted by it in reverse, equal scores keep their order (Python's sort is stable)."""


def spent_windows(state: SequenceState) -> frozenset[int]:
    """The windows that can no longer make a sequence for anyone: those sharing two or
    more spaces with a sequence already made (one shared space is all the rules allow,
    and the other sides can never fill a window holding another side's sequence chips).
    Medium counts them as open lines: beside a sequence of five it sees a line of four."""
    if not state.sequences:
        return frozenset()
    spent: set[int] = set()
    for sequence in state.sequences:
        shared: dict[int, int] = {}
        for cell in sequence.cells:
            for w in THROUGH[cell]:
                shared[w] = shared.get(w, 0) + 1
        spent.update(w for w, n in shared.items() if n >= 2)
    return frozenset(spent)


def _unspend(team: int, legal: list[SequenceAction], scores: list[float], board: _Board,
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
    scorer = _Scorer(view, seat)
    score = MediumSequenceBot._score
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
    scored.sort(key=_SCORE, reverse=True)
    return scored


class _TrackedSampler:
    """Samples for :class:`SequenceGameForSearch`, each with the lines of its board (the
    view's: the board is public)."""

    __slots__ = ("_board", "_game", "_sampler")

    def __init__(self, game: SequenceGameForSearch, sampler: SequenceSampler,
                 board: _Board) -> None:
        self._game, self._sampler, self._board = game, sampler, board

    def sample(self, rng: random.Random) -> SequenceState:
        state = self._sampler.sample(rng)
        self._game.track(state, self._board.copy())
        return state


class SequenceGameForSearch:
    """Classic Sequence for the search (:class:`engine.bots.ismcts.Game`).

    ``width``: the search considers, at every decision, only the ``width`` actions medium
    scores best (distinct in meaning); a two-eyed jack's eighty spaces are mostly
    pointless, and the iterations go to the moves that matter. ``None``: all of them.
    Medium's scores of a decision are worked out once and serve the pruning, the prior and
    the playout's move.
    """

    __slots__ = ("_board", "_legal", "_ranked", "_spent", "_state", "me", "policy", "rng",
                 "spent", "spread", "temperature", "width")

    def __init__(self, policy: MediumSequenceBot, rng: Rng, *, width: int | None = None,
                 temperature: float | None = None, spread: float = _SPREAD,
                 spent: str = "none") -> None:
        if spent not in ("none", "mine", "all"):
            raise ValueError(f"unknown spent-window mode {spent!r}")
        self.policy = policy
        self.spent = spent
        self.me: Seat | None = None
        self._spent: tuple[tuple[tuple[int, ...], ...], frozenset[int]] = ((), frozenset())
        """The last sequences seen and their spent windows (they change only when a
        sequence is made)."""
        self.spread = spread
        self.rng = rng
        self.width = width
        self.temperature = temperature
        self._legal: list[SequenceAction] | None = None
        self._ranked: list[tuple[float, SequenceAction]] = []
        self._state: SequenceState | None = None
        """The sample being searched, whose lines :attr:`_board` keeps (the reference
        also keeps its id from being reused)."""
        self._board: _Board | None = None

    def sampler(self, view: SequenceState) -> _TrackedSampler:
        return _TrackedSampler(self, SequenceSampler(view), _Board.of(view))

    def track(self, state: SequenceState, board: _Board) -> None:
        """From now on ``state`` is the sample searched, and ``board`` its lines."""
        self._state, self._board = state, board

    def prune(self, state: SequenceState, seat: Seat, legal: list[SequenceAction]
              ) -> list[SequenceAction]:
        """The actions the search considers (the list :meth:`priors` and :meth:`playout`
        then recognise)."""
        if len(legal) == 1:
            self._legal = None
            return legal
        scored = self._ranked_for(state, seat, legal)
        kept: list[SequenceAction] = []
        if self.width is None:
            kept = legal
        else:
            seen: set[Hashable] = set()
            top: list[tuple[float, SequenceAction]] = []
            for pair in scored:
                key = sequence_key(pair[1])
                if key in seen:
                    continue
                seen.add(key)
                top.append(pair)
                if len(top) == self.width:
                    break
            scored = top
            kept = [action for _, action in top]
        self._legal, self._ranked = kept, scored
        return kept

    def _spent_for(self, state: SequenceState, seat: Seat | None) -> frozenset[int]:
        """The spent windows to leave out of ``seat``'s scores (``None``: the evaluation)."""
        if not state.sequences or self.spent == "none" or (
                self.spent == "mine" and seat is not None and seat != self.me):
            return frozenset()
        made = tuple(sequence.cells for sequence in state.sequences)
        if self._spent[0] != made:
            self._spent = (made, spent_windows(state))
        return self._spent[1]

    def _ranked_for(self, state: SequenceState, seat: Seat, legal: list[SequenceAction]
                    ) -> list[tuple[float, SequenceAction]]:
        board = self._board if state is self._state else None
        spent = self._spent_for(state, seat)
        if not spent:
            return ranked(state, seat, legal, board)
        if board is None:
            board = _Board.of(state)
        team = state.team_of(seat)
        scores = _scores(team, legal, board)
        _unspend(team, legal, scores, board, spent)
        scored = list(zip(scores, legal, strict=True))
        scored.sort(key=_SCORE, reverse=True)
        return scored

    def decider(self, state: SequenceState) -> tuple[Seat, list[SequenceAction]]:
        seat = state.current
        return seat, self.prune(state, seat, legal_actions(state, seat))

    def key(self, state: SequenceState, action: SequenceAction) -> Hashable:
        return sequence_key(action)

    def priors(
        self, state: SequenceState, actor: Seat, legal: list[SequenceAction],
        options: dict[Hashable, SequenceAction],
    ) -> dict[Hashable, float]:
        if len(options) == 1:
            return uniform_priors(options)
        if legal is not self._legal:
            self.prune(state, actor, legal)
        scored = self._ranked
        if self.temperature is None:
            favourite = sequence_key(self._pick(scored))
            return favourite_priors(options, favourite, _MEDIUM_PRIOR)
        top = scored[0][0]
        weights: dict[Hashable, float] = {}
        for score, action in scored:
            key = sequence_key(action)
            if key in options and key not in weights:
                weights[key] = math.exp(max(-30.0, (score - top) / self.temperature))
        for key in options:
            weights.setdefault(key, 1e-6)
        total = sum(weights.values())
        return {k: w / total for k, w in weights.items()}

    def _pick(self, scored: list[tuple[float, SequenceAction]]) -> SequenceAction:
        top = scored[0][0]
        best = [a for score, a in scored if score >= top - 1e-9]
        return best[self.rng.below(len(best))] if len(best) > 1 else best[0]

    def step(self, state: SequenceState, action: SequenceAction, rng: Rng) -> None:
        board = self._board
        if state is self._state and board is not None:
            if type(action) is PlaceChip:
                board.change(action.cell, state.team_of(action.seat), 1)
            elif type(action) is RemoveChip:
                board.change(action.cell, state.chips[action.cell], -1)
        play(state, action, rng)

    def over(self, state: SequenceState) -> bool:
        return state.outcome is not None

    def turn(self, state: SequenceState) -> int:
        return state.turn

    def playout(
        self, state: SequenceState, actor: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        if len(legal) == 1:
            return legal[0]
        if legal is not self._legal:
            self.prune(state, actor, legal)
        return self._pick(self._ranked)

    def playout_action(self, state: SequenceState) -> SequenceAction:
        """:meth:`decider` and :meth:`playout` at once, for a playout's step: the same
        move (medium's best among the ``width`` best distinct in meaning, ties drawn from
        the same generator), without sorting or pruning the legal actions."""
        seat = state.current
        legal = legal_actions(state, seat)
        board = self._board
        if len(legal) == 1:
            return legal[0]
        if state is not self._state or board is None:
            return self.playout(state, seat, self.prune(state, seat, legal))
        team = state.team_of(seat)
        scores = _scores(team, legal, board)
        if state.sequences and self.spent != "none":
            spent = self._spent_for(state, seat)
            if spent:
                _unspend(team, legal, scores, board, spent)
        top = max(scores)
        # The sorted list's best entries are the first top-scoring ones in legal's order
        # (a stable sort); the pruned list keeps the first ``width`` distinct in meaning.
        best = [a for score, a in zip(scores, legal, strict=True) if score == top]
        if len(best) > 1 and self.width is not None:
            seen: set[Hashable] = set()
            distinct = []
            for action in best:
                key = sequence_key(action)
                if key not in seen:
                    seen.add(key)
                    distinct.append(action)
                    if len(distinct) == self.width:
                        break
            best = distinct
        return best[self.rng.below(len(best))] if len(best) > 1 else best[0]

    def rewards(self, state: SequenceState) -> list[float]:
        board = self._board
        if state is self._state and board is not None:
            worth = [_SEQUENCE_WORTH * state.sequence_count(team) + board.lines[team]
                     for team in range(state.teams)]
            if state.sequences and self.spent != "none" and state.outcome is None:
                for w in self._spent_for(state, None):
                    for team in range(state.teams):
                        worth[team] -= board._line(team, w)
            return sequence_rewards(state, worth, self.spread)
        return sequence_rewards(state, spread=self.spread)

    def position(self, state: SequenceState, seat: Seat) -> Hashable | None:
        if state.phase != Phase.PLAY:
            return None
        return (seat, state.turn, state.exchanges)

    def next_position(self, state: SequenceState, seat: Seat) -> Hashable | None:
        if state.phase != Phase.PLAY:
            return None
        return (seat, state.turn, state.exchanges + 1)


class HardSequenceBot:
    """Level ``hard``: the search. ``iterations`` replaces the time ``budget`` by a fixed
    count (the same seed then gives the same decisions); ``horizon``: playout turns;
    ``width``: the moves considered at a decision (``None``: all); ``temperature``: a
    softmax of medium's scores as the prior instead of half of it on medium's favourite.
    Measured no better (docs/bots.md), kept for experiments: ``c_puct``, the search's
    exploration constant; ``opponents="policy"``, the other seats play medium's move inside
    the tree too (the tree holds this seat's decisions only); ``spread``, the worth lead
    whose reward is about 0.73. ``spent``: whose scores leave out the windows a sequence
    has spent (:data:`DEFAULT_SPENT`)."""

    SEARCHES = True
    """It thinks for its budget: peers decide with it off their event loop."""

    name = "hard"

    def __init__(
        self, seed: bytes = b"hard-sequence-bot", *, budget: float = DEFAULT_BUDGET,
        iterations: int | None = None, horizon: int | None = DEFAULT_HORIZON,
        width: int | None = DEFAULT_WIDTH, temperature: float | None = DEFAULT_TEMPERATURE,
        clock: Callable[[], float] = time.perf_counter, c_puct: float = C_PUCT,
        opponents: str = "tree", spread: float = _SPREAD, spent: str = DEFAULT_SPENT,
    ) -> None:
        if budget <= 0:
            raise ValueError("the search budget must be more than 0 seconds")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.budget = budget
        self.iterations = iterations
        self._clock = clock
        rng = random.Random(seed)
        policy = MediumSequenceBot(rng.randbytes(16))
        self._game = SequenceGameForSearch(policy, Rng(rng.randbytes(16)), width=width,
                                           temperature=temperature, spread=spread,
                                           spent=spent)
        self._search = Search(self._game, rng, horizon=horizon, clock=clock, c_puct=c_puct,
                              opponents=opponents)

    @property
    def stats(self) -> SearchStats:
        return self._search.stats

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        started = self._clock()
        search = self._search
        self._game.me = seat
        legal = self._game.prune(view, seat, legal)
        options = search.options(view, legal)
        search.stats = SearchStats(choices=len(options))
        if len(options) == 1:
            search.forget()
            return legal[0]
        deadline = math.inf if self.iterations is not None else (
            started + self.budget * _SAFETY)
        return search.choose(view, seat, legal, options, started=started, deadline=deadline,
                             iterations=self.iterations)


SEQUENCE_BOT_NAMES: Final[tuple[str, ...]] = ("random", "easy", "medium", "hard")

_FACTORIES: Final[dict[str, Callable[[bytes], SequenceBot]]] = {
    "random": RandomSequenceBot,
    "easy": EasySequenceBot,
    "medium": MediumSequenceBot,
}


def make_sequence_bot(
    name: str, seed: bytes | None = None, *, budget: float | None = None,
    iterations: int | None = None,
) -> SequenceBot:
    """A new classic bot by name; ``seed`` feeds its generator (``None``: from the OS, so
    nobody can predict its choices); ``budget`` (seconds) or ``iterations`` bound a
    ``hard`` decision."""
    seed = os.urandom(16) if seed is None else seed
    if name == "hard":
        return HardSequenceBot(seed, budget=DEFAULT_BUDGET if budget is None else budget,
                               iterations=iterations)
    try:
        factory = _FACTORIES[name]
    except KeyError:
        names = ", ".join(SEQUENCE_BOT_NAMES)
        raise ValueError(f"unknown Sequence bot {name!r}; choose from {names}") from None
    return factory(seed)

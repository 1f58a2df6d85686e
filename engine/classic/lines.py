"""The board's lines of five as the classic bots count them.

Per window of five spaces: how many chips each side holds (corners count for everyone),
and what one more chip of a side is worth there (:data:`ATTACK` while the window is open
to it, :data:`DEFEND` while another side's line threatens). `Lines` counts them afresh
for one view (medium and easy); `Board` keeps them up to date move by move for the
search's samples. Pure counting: the scores of moves are in :mod:`engine.classic.scores`.
"""

from __future__ import annotations

from typing import Final

from engine.classic.board import CORNERS, THROUGH, WINDOWS
from engine.classic.state import EMPTY, SequenceState

CORNERS_IN: Final[tuple[int, ...]] = tuple(sum(c in CORNERS for c in w) for w in WINDOWS)
WINDOW_COUNT: Final = len(WINDOWS)


ATTACK: Final = (1.0, 3.0, 9.0, 30.0, 1000.0, 0.0)
"""Worth of adding a chip to an open window already holding ``n`` of ours."""
DEFEND: Final = (0.0, 0.5, 2.0, 12.0, 400.0, 0.0)
"""Worth of putting a chip into an opponent's open window holding ``n`` of theirs."""
LINE_WORTH: Final = (0.0, 0.5, 2.0, 6.0, 20.0, 0.0)
"""Worth to a side of an open window (no other side's chip) holding ``n`` of its chips
(corners count); a completed window is worth its sequence."""


class Lines:
    """Per window of the board: the moving team's count, and who else holds chips."""

    __slots__ = ("_gain", "mine", "opponent", "rivals", "team")

    def __init__(self, view: SequenceState, team: int) -> None:
        self.team = team
        chips = view.chips
        mine = list(CORNERS_IN)
        rivals = [0] * WINDOW_COUNT
        opponent = [EMPTY] * WINDOW_COUNT
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
        """Per window, the worth of one more chip of ours in it (:data:`ATTACK` while it
        is open to us, :data:`DEFEND` while it is a threat)."""
        if self._gain is None:
            mine, rivals, opponent = self.mine, self.rivals, self.opponent
            gain = [0.0] * WINDOW_COUNT
            for w in range(WINDOW_COUNT):
                if rivals[w] == 0:
                    gain[w] = ATTACK[mine[w]]
                elif opponent[w] != EMPTY and mine[w] == CORNERS_IN[w]:
                    gain[w] = DEFEND[rivals[w] + CORNERS_IN[w]]
            self._gain = gain
        return self._gain

    def threat(self, window: int) -> int:
        """How many chips (corners included) an opponent has in a window free of ours."""
        if self.opponent[window] == EMPTY or self.mine[window] - _corner_count(window):
            return 0
        return self.rivals[window] + _corner_count(window)


def _corner_count(window: int) -> int:
    return CORNERS_IN[window]


def window_counts(state: SequenceState) -> tuple[list[list[int]], list[int]]:
    """Each side's chips in every window of five, and all sides' together."""
    counts = [[0] * WINDOW_COUNT for _ in range(state.teams)]
    total = [0] * WINDOW_COUNT
    for cell, holder in enumerate(state.chips):
        if holder == EMPTY:
            continue
        mine = counts[holder]
        for w in THROUGH[cell]:
            mine[w] += 1
            total[w] += 1
    return counts, total


class Board:
    """The board's lines kept up to date move by move, for the search's samples.

    Per side: its chips in every window, the worth (:data:`ATTACK` / :data:`DEFEND`,
    as :class:`Lines` has it) of one more of its chips in every window, the sum of those
    over the windows through every cell (medium's score of a placement there), the same
    for taking another side's chip off a cell (:meth:`Scorer.remove`), and its open
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
    def of(cls, state: SequenceState) -> Board:
        board = cls()
        teams = board.teams = state.teams
        board.counts, board.total = window_counts(state)
        board.gains = [[board._gain(team, w) for w in range(WINDOW_COUNT)]
                       for team in range(teams)]
        board.breaks = [[board._break(team, w) for w in range(WINDOW_COUNT)]
                        for team in range(teams)]
        board.places = [_per_cell(gain) for gain in board.gains]
        board.takes = [_per_cell(worth) for worth in board.breaks]
        board.lines = [sum(board.line_worth(team, w) for w in range(WINDOW_COUNT))
                       for team in range(teams)]
        return board

    def copy(self) -> Board:
        board = Board()
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
        """:meth:`Lines.gain` of one window for ``team``."""
        own = self.counts[team][w]
        rivals = self.total[w] - own
        if rivals == 0:
            return ATTACK[own + CORNERS_IN[w]]
        if own == 0 and self._one_rival(team, w, rivals):
            return DEFEND[rivals + CORNERS_IN[w]]
        return 0.0

    def _break(self, team: int, w: int) -> float:
        """What :meth:`Scorer.remove` counts for window ``w``: a threat shrinks, and a
        window whose only other-side chip it is opens to us."""
        threat = self.threat(team, w)
        worth = DEFEND[threat] if threat else 0.0
        own = self.counts[team][w]
        if self.total[w] - own == 1:
            worth += 0.5 * ATTACK[own + CORNERS_IN[w]]
        return worth

    def _one_rival(self, team: int, w: int, rivals: int) -> bool:
        """Whether one other side holds all the ``rivals`` other-side chips of ``w``."""
        if self.teams == 2:
            return True
        return any(t != team and self.counts[t][w] == rivals for t in range(self.teams))

    def line_worth(self, team: int, w: int) -> float:
        own = self.counts[team][w]
        return LINE_WORTH[own + CORNERS_IN[w]] if own == self.total[w] else 0.0

    def change(self, cell: int, team: int, by: int) -> None:
        """``by`` = 1: ``team``'s chip placed on ``cell``; -1: removed from it."""
        counts, total, lines = self.counts, self.total, self.lines
        mine = counts[team]
        teams = range(self.teams)
        two = self.teams == 2
        worth = LINE_WORTH
        for w in THROUGH[cell]:
            corners = CORNERS_IN[w]
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
                    new = ATTACK[held + corners]
                elif held == 0 and (two or self._one_rival(t, w, rivals)):
                    new = DEFEND[rivals + corners]
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
                    new = DEFEND[rivals + corners]
                else:
                    new = 0.0
                if rivals == 1:
                    new += 0.5 * ATTACK[held + corners]
                broken = self.breaks[t]
                delta = new - broken[w]
                if delta:
                    broken[w] = new
                    take = self.takes[t]
                    for c in WINDOWS[w]:
                        take[c] += delta

    def threat(self, team: int, w: int) -> int:
        """:meth:`Lines.threat` for ``team``."""
        own = self.counts[team][w]
        rivals = self.total[w] - own
        if own or not rivals or not self._one_rival(team, w, rivals):
            return 0
        return rivals + CORNERS_IN[w]


def _per_cell(worth: list[float]) -> list[float]:
    """Per cell, the sum of a per-window worth over the windows through it."""
    out = []
    for cell in range(100):
        score = 0.0
        for w in THROUGH[cell]:
            score += worth[w]
        out.append(score)
    return out


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

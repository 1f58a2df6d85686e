"""Bots for classic Sequence, deciding from their own view only.

- ``random``: any legal action, uniformly.
- ``easy``: makes a sequence when one card does it and turns in dead cards; otherwise
  a random space for a card that names one, and jacks only when nothing else is left.
- ``medium``: weighs every space by the lines of five through it — its own chances
  (more for lines nearer five, the win above all) and the opponents' (blocks a line of
  four, then of three); keeps jacks for what only a jack can do (a sequence, a block,
  breaking a line of four), turns in dead cards at once, discards the least useful card.

Ties are broken with the bot's own generator, so equal seats don't always play alike.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final, Protocol

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import CORNERS, THROUGH, WINDOWS
from engine.classic.cards import JACKS, CardId, JackKind
from engine.classic.state import EMPTY, SequenceState
from engine.rng import Rng
from engine.state import Seat


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


class _Lines:
    """Per window of the board: the moving team's count, and who else holds chips."""

    __slots__ = ("mine", "opponent", "rivals", "team")

    def __init__(self, view: SequenceState, team: int) -> None:
        self.team = team
        chips = view.chips
        self.mine: list[int] = []
        self.rivals: list[int] = []
        """Chips of other teams in the window (any of them)."""
        self.opponent: list[int] = []
        """The one other team holding all the window's other-team chips, or EMPTY."""
        for cells in WINDOWS:
            mine = rivals = 0
            owner = EMPTY
            mixed = False
            for cell in cells:
                holder = chips[cell]
                if cell in CORNERS or holder == team:
                    mine += 1
                elif holder != EMPTY:
                    rivals += 1
                    if owner == EMPTY:
                        owner = holder
                    elif owner != holder:
                        mixed = True
            self.mine.append(mine)
            self.rivals.append(rivals)
            self.opponent.append(EMPTY if mixed else owner)

    def threat(self, window: int) -> int:
        """How many chips (corners included) an opponent has in a window free of ours."""
        if self.opponent[window] == EMPTY or self.mine[window] - _corner_count(window):
            return 0
        return self.rivals[window] + _corner_count(window)


_CORNERS_IN: Final[tuple[int, ...]] = tuple(sum(c in CORNERS for c in w) for w in WINDOWS)


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
        lines = self.lines
        score = 0.0
        for w in THROUGH[cell]:
            if lines.rivals[w] == 0:
                score += _ATTACK[lines.mine[w]]
            threat = lines.threat(w)
            if threat:
                score += _DEFEND[threat]
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
        jack = JACKS[card]
        if jack is JackKind.TWO_EYED:
            return 100.0
        if jack is JackKind.ONE_EYED:
            return 80.0
        return 0.0


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


SEQUENCE_BOT_NAMES: Final[tuple[str, ...]] = ("random", "easy", "medium")

_FACTORIES: Final[dict[str, Callable[[bytes], SequenceBot]]] = {
    "random": RandomSequenceBot,
    "easy": EasySequenceBot,
    "medium": MediumSequenceBot,
}


def make_sequence_bot(name: str, seed: bytes | None = None) -> SequenceBot:
    """A new classic bot by name; ``seed`` feeds its tie-breaking generator (``None``:
    from the OS, so nobody can predict its choices)."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        names = ", ".join(SEQUENCE_BOT_NAMES)
        raise ValueError(f"unknown Sequence bot {name!r}; choose from {names}") from None
    return factory(os.urandom(16) if seed is None else seed)

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
import os
import random
import time
from collections.abc import Callable
from typing import Final

from engine.bots.ismcts import C_PUCT, Search, SearchStats
from engine.classic.actions import ExchangeDeadCard, PlaceChip, SequenceAction
from engine.classic.board import THROUGH
from engine.classic.cards import JACKS, JackKind
from engine.classic.lines import Lines
from engine.classic.policy import SequenceBot
from engine.classic.scores import SPREAD, Scorer, best_of, medium_score
from engine.classic.search import SequenceGameForSearch
from engine.classic.state import SequenceState
from engine.rng import Rng
from engine.state import Seat


class RandomSequenceBot:
    name = "random"

    def __init__(self, seed: bytes = b"random-sequence-bot") -> None:
        self._rng = Rng(seed)

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        return legal[self._rng.below(len(legal))]


class MediumSequenceBot:
    name = "medium"

    def __init__(self, seed: bytes = b"medium-sequence-bot") -> None:
        self._rng = Rng(seed)

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction:
        if len(legal) == 1:
            return legal[0]
        scorer = Scorer(view, seat)
        scored: list[tuple[float, SequenceAction]] = []
        for action in legal:
            scored.append((medium_score(scorer, action), action))
        return best_of(self._rng, scored)


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
        lines = Lines(view, view.team_of(seat))
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
        opponents: str = "tree", spread: float = SPREAD, spent: str = DEFAULT_SPENT,
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

"""Classic Sequence for the search of level ``hard`` (:mod:`engine.bots.ismcts`).

How the search sees the game: the states it samples for a view (`SequenceSampler`),
what a move means (`sequence_key`), and the game the search drives
(`SequenceGameForSearch`): medium's scores prune every decision to the few best moves,
set the prior and play the playouts, and the board's lines are kept up to date move by
move in each sample.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from typing import Final

from engine.bots.determinize import ViewError, count_hidden, deal_hidden, unseen_cards
from engine.bots.ismcts import favourite_priors, uniform_priors
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.cards import CODES, HIDDEN, JACKS, JackKind
from engine.classic.fastplay import play
from engine.classic.lines import Board, spent_windows
from engine.classic.policy import SequenceBot
from engine.classic.rules import legal_actions
from engine.classic.scores import (
    BY_SCORE,
    SEQUENCE_WORTH,
    SPREAD,
    board_scores,
    ranked,
    sequence_rewards,
    unspend,
)
from engine.classic.state import Phase, SequenceState
from engine.rng import Rng
from engine.state import HOST, SPECTATOR, Seat

_MEDIUM_PRIOR: Final = 0.5


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


class _TrackedSampler:
    """Samples for :class:`SequenceGameForSearch`, each with the lines of its board (the
    view's: the board is public)."""

    __slots__ = ("_board", "_game", "_sampler")

    def __init__(self, game: SequenceGameForSearch, sampler: SequenceSampler,
                 board: Board) -> None:
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

    def __init__(self, policy: SequenceBot, rng: Rng, *, width: int | None = None,
                 temperature: float | None = None, spread: float = SPREAD,
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
        self._board: Board | None = None

    def sampler(self, view: SequenceState) -> _TrackedSampler:
        return _TrackedSampler(self, SequenceSampler(view), Board.of(view))

    def track(self, state: SequenceState, board: Board) -> None:
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
            board = Board.of(state)
        team = state.team_of(seat)
        scores = board_scores(team, legal, board)
        unspend(team, legal, scores, board, spent)
        scored = list(zip(scores, legal, strict=True))
        scored.sort(key=BY_SCORE, reverse=True)
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
        scores = board_scores(team, legal, board)
        if state.sequences and self.spent != "none":
            spent = self._spent_for(state, seat)
            if spent:
                unspend(team, legal, scores, board, spent)
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
            worth = [SEQUENCE_WORTH * state.sequence_count(team) + board.lines[team]
                     for team in range(state.teams)]
            if state.sequences and self.spent != "none" and state.outcome is None:
                for w in self._spent_for(state, None):
                    for team in range(state.teams):
                        worth[team] -= board.line_worth(team, w)
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

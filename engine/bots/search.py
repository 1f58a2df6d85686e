"""The search bot (level ``hard``) of Sequence Stacks: the ISMCTS of
:mod:`engine.bots.ismcts` on its own view, with this game's pieces:

- samples: the hidden cards dealt at random among the hidden slots
  (:mod:`engine.bots.determinize`);
- decisions: a turn's play or discard, a Block or a pass in a Block window (the
  opponents asked in seat order after the completer, as in a local game); children keyed
  by what is printed on the card rather than by the card's id, and where it comes from;
- its own policy is greedy that holds (:func:`hold_below`: it ends its turn rather than
  play a wild that would not finish a pile, and at 2 players a fourth card it could not
  follow with a fifth); the opponents are modelled as medium (greedy, every play made);
  at 2 players their choices are searched in the tree, with 3 or more they play
  medium's move inside the tree too (:func:`opponent_model`), so the tree branches on
  the bot's own choices only;
- priors: the move that policy (its own, or medium's for an opponent) would make gets
  half the prior mass;
- playouts: its own seat plays its policy, the others medium (ties broken at random),
  for ``horizon`` turns, after which the chip race is scored (how many chips each seat
  still needs; with ``potential``, less a share of the chips each can complete with the
  cards it holds).

It searches for ``budget`` seconds (checked between iterations and every few playout
steps), or for exactly ``iterations`` iterations, which with the same seed gives the
same decisions.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Hashable

from engine.actions import (
    Action,
    Block,
    CloseBlockWindow,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.bots.determinize import Determinizer
from engine.bots.greedy import GreedyBot
from engine.bots.ismcts import C_PUCT, Search, SearchStats, favourite_priors, uniform_priors
from engine.cards import COLOUR, FACES, KIND, RANK, CardId, Kind
from engine.fastplay import play
from engine.rng import Rng
from engine.rules import legal_actions
from engine.state import Phase, Seat, State, Zone

DEFAULT_BUDGET = 0.5
"""Seconds per decision of the ``hard`` level."""
DEFAULT_HORIZON = 6
"""Turns a playout runs before the chip race is scored. Measured against medium at 2
players, 60 iterations a decision, 60 games each: 3 turns won 55%, 6 turns 67%, playouts
to the end 60% (at twice the time per iteration)."""

_SAFETY = 0.85
"""Share of the budget spent searching: the rest covers the last iteration's overrun."""
_CANDIDATES = 4
"""Moves the paired search compares: greedy's best three plays and its best discard."""
_GREEDY_PRIOR = 0.5
_REACH_NEXT = 0.6
"""Share of the chips within its reach counted for the seat to move (``potential``)."""
_REACH_OTHER = 0.4
"""The same for the other seats (they may be beaten to the piles, or blocked)."""

_FACE: tuple[int, ...] = tuple(FACES.index(f) for f in FACES)
"""The first card id with the same face as each card: equal cards share it."""

Key = tuple[int, ...]


def action_key(state: State, action: Action) -> Key:
    """What an action means, whatever the ids of equal cards: its kind, the card's face,
    where the card comes from, and its pile, target, zone or colour."""
    kind = type(action)
    if kind is PlayCard:
        assert isinstance(action, PlayCard)
        return (0, _FACE[action.card], _from(state, action.seat, action.card), action.pile)
    if kind is Discard:
        assert isinstance(action, Discard)
        return (1, _FACE[action.card])
    if kind is StealCard:
        assert isinstance(action, StealCard)
        return (2, _from(state, action.seat, action.card), action.target, int(action.zone))
    if kind is StealChip:
        assert isinstance(action, StealChip)
        return (3, _from(state, action.seat, action.card), action.target, int(action.colour))
    if kind is PlaySkip or kind is PlayReverse:
        assert isinstance(action, PlaySkip | PlayReverse)
        return (4 if kind is PlaySkip else 5, _from(state, action.seat, action.card))
    if kind is Block:
        assert isinstance(action, Block)
        return (6, _from(state, action.seat, action.card))
    if kind is PassBlock:
        return (7,)
    if kind is EndTurn:
        return (8,)
    return (9,)


def _from(state: State, seat: Seat, card: CardId) -> int:
    return int(Zone.DISCARD) if state.discard_top(seat) == card else int(Zone.HAND)


def decider(state: State) -> tuple[Seat, list[Action]]:
    """Whose decision the game waits for, and its legal actions.

    In a Block window the opponents are asked in seat order after the completer, as in a
    local game (``engine.runner``): the first with something to decide.
    """
    if state.phase == Phase.BLOCK_WINDOW:
        window = state.window
        assert window is not None
        n = state.players
        for offset in range(1, n):
            seat = (window.seat + offset) % n
            legal = legal_actions(state, seat)
            if legal:
                return seat, legal
        return -1, [CloseBlockWindow()]
    return state.current, legal_actions(state, state.current)


def chips_needed(state: State, seat: Seat) -> int:
    """How many more chips ``seat`` needs to win (the colour minimum included)."""
    cfg = state.config
    red, blue = state.chips[seat]
    need = cfg.win_min_each_colour
    per_colour = max(0, need - red) + max(0, need - blue)
    return max(per_colour, cfg.win_chips - red - blue, 0)


def _completions(state: State, seat: Seat) -> tuple[int, int]:
    """How many red and blue piles ``seat`` could complete with the cards it holds now
    (its hand and its discard top), each card used once: the chips within its reach."""
    cards = list(state.hands[seat])
    top = state.discard_top(seat)
    if top is not None:
        cards.append(top)
    out = [0, 0]
    for colour in (0, 1):
        counts = [0] * 7
        wilds = 0
        for card in cards:
            if COLOUR[card] == colour:
                if KIND[card] is Kind.WILD:
                    wilds += 1
                else:
                    counts[RANK[card]] += 1
        if not wilds and not counts[5]:
            continue
        heights = sorted((len(p.cards) for p in state.piles if p.colour == colour), reverse=True)
        for height in heights:
            used: list[int] = []
            spent = 0
            for rank in range(height + 1, 6):
                if counts[rank]:
                    counts[rank] -= 1
                    used.append(rank)
                elif wilds > spent:
                    spent += 1
                else:
                    break
            else:
                wilds -= spent
                out[colour] += 1
                continue
            for rank in used:
                counts[rank] += 1
    return out[0], out[1]


def rewards(state: State, *, potential: bool = False) -> list[float]:
    """Each seat's reward in 0..1: 1 for the winner; else by the chip race."""
    n = state.players
    outcome = state.outcome
    if outcome is not None:
        if outcome.winner is None:
            return [1.0 / n] * n
        return [1.0 if seat == outcome.winner else 0.0 for seat in range(n)]
    needed: list[float] = [chips_needed(state, seat) for seat in range(n)]
    if potential:
        needed = [_potential_need(state, seat, needed[seat]) for seat in range(n)]
    out = []
    for seat in range(n):
        rival = min(needed[s] for s in range(n) if s != seat)
        out.append(min(0.95, max(0.05, 0.5 + 0.15 * (rival - needed[seat]))))
    return out


def _potential_need(state: State, seat: Seat, need: float) -> float:
    """The chips ``seat`` needs, less a share of those within its reach."""
    red_more, blue_more = _completions(state, seat)
    if not red_more and not blue_more:
        return need
    red, blue = state.chips[seat]
    cfg = state.config
    m = cfg.win_min_each_colour
    red += red_more
    blue += blue_more
    after = max(max(0, m - red) + max(0, m - blue), cfg.win_chips - red - blue, 0)
    share = _REACH_NEXT if seat == state.current else _REACH_OTHER
    return need - share * (need - after)


HOLD_BELOW: dict[int, float] = {2: 0.0}
"""The search's own policy (its prior, its seat in the playouts) is greedy that ends
its turn once the best play scores below this (:class:`GreedyBot` ``hold_below``): at 2
players below 0, keeping a wild it would not finish a pile with and a fourth card it
could not follow with a fifth; with more, below -10, keeping only the wild (measured,
greedy alone against medium: docs/benchmarks.md)."""
_HOLD_BELOW_MORE = -10.0


def hold_below(players: int) -> float | None:
    """The holding threshold of the search's own policy at ``players``."""
    return HOLD_BELOW.get(players, _HOLD_BELOW_MORE)


def opponent_model(players: int) -> str:
    """How the search treats the other seats' moves by default: at 2 players it searches
    them in its tree (``tree``: their choices are nodes, backed up with their own
    rewards); with 3 or more, they play medium's policy inside the tree as in the
    playouts (``policy``), so that the tree branches on the bot's own choices only
    (measured at 4 players: docs/benchmarks.md)."""
    return "tree" if players <= 2 else "policy"


class StacksGame:
    """Sequence Stacks for the search (:class:`engine.bots.ismcts.Game`): greedy priors
    and playouts (``policy`` shares the bot's generator), the chip race as evaluation."""

    __slots__ = ("me", "own", "policy", "potential")

    def __init__(
        self, policy: GreedyBot, *, potential: bool, own: GreedyBot | None = None,
        me: Seat = -1,
    ) -> None:
        self.policy = policy
        """The opponents' moves (medium)."""
        self.own = own or policy
        """The moves of seat ``me`` (the searching bot; ``-1``: ``policy`` for all)."""
        self.potential = potential
        self.me = me

    def sampler(self, view: State) -> Determinizer:
        return Determinizer(view)

    def decider(self, state: State) -> tuple[Seat, list[Action]]:
        return decider(state)

    def key(self, state: State, action: Action) -> Key:
        return action_key(state, action)

    def priors(
        self, state: State, actor: Seat, legal: list[Action], options: dict[Hashable, Action]
    ) -> dict[Hashable, float]:
        if len(options) == 1 or actor < 0:
            return uniform_priors(options)
        policy = self.own if actor == self.me else self.policy
        favourite = action_key(state, policy.choose(state, actor, legal))
        return favourite_priors(options, favourite, _GREEDY_PRIOR)

    def step(self, state: State, action: Action, rng: Rng) -> None:
        play(state, action, rng)

    def over(self, state: State) -> bool:
        return state.outcome is not None

    def turn(self, state: State) -> int:
        return state.turn

    def playout(self, state: State, actor: Seat, legal: list[Action]) -> Action:
        policy = self.own if actor == self.me else self.policy
        return policy.choose(state, actor, legal)

    def rewards(self, state: State) -> list[float]:
        return rewards(state, potential=self.potential)

    def position(self, state: State, seat: Seat) -> Hashable | None:
        if state.phase != Phase.PLAY:
            return None
        return (seat, state.turn, state.plays_this_turn)

    def next_position(self, state: State, seat: Seat) -> Hashable | None:
        if state.phase != Phase.PLAY:
            return None
        return (seat, state.turn, state.plays_this_turn + 1)


class SearchBot:
    """Level ``hard``. ``seed`` feeds its generator (``None``: from the OS, so nobody can
    predict it); ``iterations`` replaces the time ``budget`` by a fixed count; ``hold``
    (the default) makes its own policy greedy that holds (:func:`hold_below`), else it
    is medium's as for the opponents."""

    SEARCHES = True
    """It thinks for its budget: peers decide with it off their event loop."""

    name = "hard"

    def __init__(
        self,
        seed: bytes | None = None,
        *,
        budget: float = DEFAULT_BUDGET,
        iterations: int | None = None,
        horizon: int | None = DEFAULT_HORIZON,
        method: str = "ismcts",
        potential: bool = False,
        hold: bool = True,
        c_puct: float | None = None,
        opponents: str | None = None,
        backup: str = "maxn",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget <= 0:
            raise ValueError("the search budget must be more than 0 seconds")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if method not in ("ismcts", "paired"):
            raise ValueError(f"unknown search method {method!r}")
        self.budget = budget
        self.iterations = iterations
        self.horizon = horizon
        self.method = method
        self._rng = random.Random(os.urandom(16) if seed is None else seed)
        self._policy = GreedyBot(rng=self._rng)
        self._ties = random.Random(0)
        """The playouts' tie-breaker in the paired search, re-seeded for each candidate."""
        self._paired_game = StacksGame(GreedyBot(rng=self._ties), potential=potential)
        self._clock = clock
        self.hold = hold
        self._own = GreedyBot(rng=self._rng)
        """Its own moves' policy in the tree's prior and its seat in the playouts (greedy
        that holds, if ``hold``: :func:`hold_below`); the opponents' is medium's."""
        self._game = StacksGame(self._policy, potential=potential, own=self._own)
        self._search = Search(
            self._game, self._rng, horizon=horizon, clock=clock,
            c_puct=C_PUCT if c_puct is None else c_puct, opponents=opponents or "tree",
            backup=backup,
        )
        self.opponents = opponents
        """How the other seats' moves are searched (``None``: :func:`opponent_model`)."""

    @property
    def stats(self) -> SearchStats:
        return self._search.stats

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        started = self._clock()
        search = self._search
        options = search.options(view, legal)
        search.stats = SearchStats(choices=len(options))
        self._game.me = seat
        self._own.hold_below = hold_below(view.players) if self.hold else None
        search.opponents = self.opponents or opponent_model(view.players)
        if len(options) == 1:
            return legal[0]
        deadline = started + self.budget * _SAFETY
        if self.iterations is not None:
            deadline = math.inf
        if self.method == "paired":
            return self._paired(view, seat, legal, options, started, deadline)
        return search.choose(view, seat, legal, options, started=started, deadline=deadline,
                             iterations=self.iterations)

    def _paired(
        self, view: State, seat: Seat, legal: list[Action], options: dict[Hashable, Action],
        started: float, deadline: float,
    ) -> Action:
        """Paired sampling: every candidate is played out on the same samples (the same
        hidden cards, engine draws and tie-breaks), so that the comparison between two
        candidates sees only the difference the move makes."""
        sampler = Determinizer(view)
        candidates = self._candidates(view, seat, legal, options)
        totals = dict.fromkeys(candidates, 0.0)
        search = self._search
        done = 0
        while True:
            if self.iterations is not None:
                if done >= self.iterations:
                    break
            elif self._clock() >= deadline:
                break
            base = sampler.sample(self._rng)
            seed = self._rng.randbytes(16)
            ties = self._rng.getrandbits(64)
            results = []
            for key in candidates:
                state = base.copy()
                rng = Rng(seed)
                self._ties.seed(ties)
                play(state, options[key], rng)
                results.append(search.playout(state, rng, deadline, self._paired_game)[seat])
            if done and self.iterations is None and self._clock() >= deadline:
                break  # time ran out inside this sample: its playouts were cut short unevenly
            for key, result in zip(candidates, results, strict=True):
                totals[key] += result
            done += 1
        search.stats.iterations = done
        search.stats.seconds = self._clock() - started
        best = max(candidates, key=lambda k: totals[k])  # the first (greedy's) on a tie
        return options[best]

    def _candidates(
        self, view: State, seat: Seat, legal: list[Action], options: dict[Hashable, Action]
    ) -> list[Hashable]:
        """The moves worth comparing: greedy's favourite first, its next best plays, and its
        best way to end the turn (every option in a Block window)."""
        keys = list(options)
        if view.phase == Phase.BLOCK_WINDOW or len(keys) <= _CANDIDATES:
            favourite = action_key(view, self._policy.choose(view, seat, legal))
            return sorted(keys, key=lambda k: k != favourite)
        actions = [options[k] for k in keys]
        scores = self._policy.scores(view, seat, actions)
        ranked = sorted(range(len(keys)), key=lambda i: -scores[i])
        ends = [i for i in ranked if type(actions[i]) in (Discard, EndTurn)]
        plays = [i for i in ranked if type(actions[i]) not in (Discard, EndTurn)]
        chosen = plays[: _CANDIDATES - 1]
        chosen += ends[: max(1, _CANDIDATES - len(chosen))]
        return [keys[i] for i in chosen]

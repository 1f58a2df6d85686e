"""The search bot (level ``hard``): information-set Monte-Carlo tree search on its own view.

Each iteration samples a full state consistent with the bot's view (the hidden cards
dealt at random among the hidden slots: :mod:`engine.bots.determinize`), then walks one
tree shared by all samples (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012):

- a node is a decision of one seat (a turn's play or discard, a Block or a pass in a
  Block window); its children are that seat's actions, keyed by what is printed on the
  card rather than by the card's id, so equal cards are one choice and an opponent's
  move means the same thing in every sample where it is possible;
- selection is PUCT over the children available in the current sample, with the greedy
  bot's preference as the prior: the move greedy would make gets half the prior mass;
- a new leaf is evaluated by a playout in which every seat plays greedy (with ties
  broken at random), to the end of the game or for ``horizon`` turns, after which the
  chip race is scored (how many chips each seat still needs);
- the reward of each seat is backed up to the nodes where that seat chose.

The bot plays the most visited root action. It searches for ``budget`` seconds (checked
between iterations and every few playout steps), or for exactly ``iterations``
iterations, which with the same seed gives the same decisions.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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
from engine.cards import FACES, CardId
from engine.rng import Rng
from engine.rules import legal_actions, step_trusted
from engine.state import Phase, Seat, State, Zone

DEFAULT_BUDGET = 0.5
"""Seconds per decision of the ``hard`` level."""
DEFAULT_HORIZON = 6
"""Turns a playout runs before the chip race is scored. Measured against medium at 2
players, 60 iterations a decision, 60 games each: 3 turns won 55%, 6 turns 67%, playouts
to the end 60% (at twice the time per iteration)."""

_SAFETY = 0.85
"""Share of the budget spent searching: the rest covers the last iteration's overrun."""
_CHECK_EVERY = 8
"""Playout steps between clock checks (one step is ~20-40 microseconds)."""
_C_PUCT = 1.4
_CANDIDATES = 4
"""Moves the paired search compares: greedy's best three plays and its best discard."""
_GREEDY_PRIOR = 0.5

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


def rewards(state: State) -> list[float]:
    """Each seat's reward in 0..1: 1 for the winner; else by the chip race."""
    n = state.players
    outcome = state.outcome
    if outcome is not None:
        if outcome.winner is None:
            return [1.0 / n] * n
        return [1.0 if seat == outcome.winner else 0.0 for seat in range(n)]
    needed = [chips_needed(state, seat) for seat in range(n)]
    out = []
    for seat in range(n):
        rival = min(needed[s] for s in range(n) if s != seat)
        out.append(min(0.95, max(0.05, 0.5 + 0.15 * (rival - needed[seat]))))
    return out


@dataclass(slots=True)
class Node:
    seat: Seat = -1
    """Who chose the move that led here (whose reward this node accumulates)."""
    visits: int = 0
    total: float = 0.0
    to_move: Seat = -2
    """Who decides at this node, once an iteration has passed through it."""
    children: dict[Key, Node] = field(default_factory=dict)


@dataclass(slots=True)
class SearchStats:
    """What the last decision cost."""

    iterations: int = 0
    seconds: float = 0.0
    choices: int = 0
    steps: int = 0
    """Playout steps played (the clock is read at least every ``_CHECK_EVERY``)."""


class SearchBot:
    """Level ``hard``. ``seed`` feeds its generator (``None``: from the OS, so nobody can
    predict it); ``iterations`` replaces the time ``budget`` by a fixed count."""

    name = "hard"

    def __init__(
        self,
        seed: bytes | None = None,
        *,
        budget: float = DEFAULT_BUDGET,
        iterations: int | None = None,
        horizon: int | None = DEFAULT_HORIZON,
        method: str = "ismcts",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget <= 0:
            raise ValueError("the search budget must be more than 0 seconds")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        self.budget = budget
        self.iterations = iterations
        self.horizon = horizon
        self._rng = random.Random(os.urandom(16) if seed is None else seed)
        self._policy = GreedyBot(rng=self._rng)
        self._ties = random.Random(0)
        """The playouts' tie-breaker in the paired search, re-seeded for each candidate."""
        self._paired_policy = GreedyBot(rng=self._ties)
        if method not in ("ismcts", "paired"):
            raise ValueError(f"unknown search method {method!r}")
        self.method = method
        self._clock = clock
        self.stats = SearchStats()
        self._carry: tuple[Node, Seat, int, int] | None = None
        """The subtree of the last move made, for the next decision of the same turn."""

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        started = self._clock()
        options: dict[Key, Action] = {}
        for action in legal:
            options.setdefault(action_key(view, action), action)
        self.stats = SearchStats(choices=len(options))
        if len(options) == 1:
            return legal[0]
        deadline = started + self.budget * _SAFETY
        if self.iterations is not None:
            deadline = math.inf
        sampler = Determinizer(view)
        if self.method == "paired":
            return self._paired(view, seat, legal, options, sampler, started, deadline)
        root = self._reused(view, seat)
        root_prior = self._priors(view, seat, legal, options)
        done = 0
        while True:
            if self.iterations is not None:
                if done >= self.iterations:
                    break
            elif self._clock() >= deadline:
                break
            self._iterate(root, sampler.sample(self._rng), seat, options, root_prior, deadline)
            done += 1
        self.stats.iterations = done
        self.stats.seconds = self._clock() - started
        best = max(
            options,
            key=lambda k: (
                root.children[k].visits if k in root.children else 0,
                _mean(root.children.get(k)),
            ),
        )
        chosen = root.children.get(best)
        self._carry = None
        if chosen is not None and view.phase == Phase.PLAY and chosen.to_move == seat:
            self._carry = (chosen, seat, view.turn, view.plays_this_turn + 1)
        return options[best]

    def _paired(
        self, view: State, seat: Seat, legal: list[Action], options: dict[Key, Action],
        sampler: Determinizer, started: float, deadline: float,
    ) -> Action:
        """Paired sampling: every candidate is played out on the same samples (the same
        hidden cards, engine draws and tie-breaks), so that the comparison between two
        candidates sees only the difference the move makes."""
        candidates = self._candidates(view, seat, legal, options)
        totals = dict.fromkeys(candidates, 0.0)
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
                step_trusted(state, options[key], rng)
                results.append(self._playout(state, rng, deadline, self._paired_policy)[seat])
            if done and self.iterations is None and self._clock() >= deadline:
                break  # time ran out inside this sample: its playouts were cut short unevenly
            for key, result in zip(candidates, results, strict=True):
                totals[key] += result
            done += 1
        self.stats.iterations = done
        self.stats.seconds = self._clock() - started
        best = max(candidates, key=lambda k: totals[k])  # the first (greedy's) on a tie
        return options[best]

    def _candidates(
        self, view: State, seat: Seat, legal: list[Action], options: dict[Key, Action]
    ) -> list[Key]:
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

    def _reused(self, view: State, seat: Seat) -> Node:
        """The subtree of the previous move when this decision follows it in the same turn
        (its statistics were gathered from samples of the same information), else a new
        root."""
        carry, self._carry = self._carry, None
        if carry is not None and view.phase == Phase.PLAY:
            node, who, turn, plays = carry
            if (who, turn, plays) == (seat, view.turn, view.plays_this_turn):
                node.seat = -1
                return node
        return Node()

    # -- one iteration ---------------------------------------------------------------------

    def _iterate(
        self,
        root: Node,
        state: State,
        seat: Seat,
        root_options: dict[Key, Action],
        root_prior: dict[Key, float],
        deadline: float,
    ) -> None:
        rng = Rng(self._rng.randbytes(16))
        path = [root]
        node = root
        actor, options, prior = seat, root_options, root_prior
        while True:
            key = self._select(node, options, prior)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = Node(actor)
            step_trusted(state, options[key], rng)
            path.append(child)
            node = child
            if child.visits == 0 or state.outcome is not None:
                break
            actor, legal = decider(state)
            node.to_move = actor
            options = {}
            for action in legal:
                options.setdefault(action_key(state, action), action)
            prior = self._priors(state, actor, legal, options)
        result = self._playout(state, rng, deadline)
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                visited.total += result[visited.seat]

    def _priors(
        self, state: State, actor: Seat, legal: list[Action], options: dict[Key, Action]
    ) -> dict[Key, float]:
        if len(options) == 1 or actor < 0:
            return dict.fromkeys(options, 1.0)
        favourite = action_key(state, self._policy.choose(state, actor, legal))
        rest = (1.0 - _GREEDY_PRIOR) / (len(options) - 1)
        return {k: _GREEDY_PRIOR if k == favourite else rest for k in options}

    def _select(self, node: Node, options: dict[Key, Action], prior: dict[Key, float]) -> Key:
        if len(options) == 1:
            return next(iter(options))
        scale = _C_PUCT * math.sqrt(node.visits + 1)
        # First-play urgency: an untried move is taken to be as good as the tried ones.
        tried = [c for c in node.children.values() if c.visits]
        first_play = sum(_mean(c) for c in tried) / len(tried) if tried else 0.5
        best_key, best_value = None, -math.inf
        for key in options:
            child = node.children.get(key)
            if child is None or child.visits == 0:
                value = first_play + scale * prior[key]
            else:
                value = child.total / child.visits + scale * prior[key] / (1 + child.visits)
            if value > best_value:
                best_key, best_value = key, value
        assert best_key is not None
        return best_key

    def _playout(
        self, state: State, rng: Rng, deadline: float, policy: GreedyBot | None = None
    ) -> list[float]:
        policy = policy or self._policy
        limit = None if self.horizon is None else state.turn + self.horizon
        steps = 0
        clock = self._clock
        while state.outcome is None:
            if limit is not None and state.turn >= limit:
                break
            actor, legal = decider(state)
            action = legal[0] if actor < 0 else policy.choose(state, actor, legal)
            step_trusted(state, action, rng)
            steps += 1
            if steps % _CHECK_EVERY == 0 and clock() >= deadline:
                break
        self.stats.steps += steps
        return rewards(state)


def _mean(node: Node | None) -> float:
    if node is None or node.visits == 0:
        return 0.0
    return node.total / node.visits

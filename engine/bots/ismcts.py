"""Information-set Monte-Carlo tree search, whatever the game: the core of every ``hard`` bot.

Each iteration samples a full state consistent with the bot's view (the game's
determinizer deals the cards it has not seen into the hidden slots), then walks one tree
shared by all samples (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012):

- a node is a decision of one seat; its children are that seat's actions, keyed by what
  they mean (:meth:`Game.key`: equal cards are one choice), so an opponent's move means
  the same thing in every sample where it is possible;
- selection is PUCT over the children available in the current sample, with the game's
  prior (its greedy bot's favourite gets most of it);
- a new leaf is evaluated by a short playout of the game's playout policy, for
  ``horizon`` turns, after which the game scores the position (:meth:`Game.rewards`);
- the reward of each seat is backed up to the nodes where that seat chose (max-n; with
  ``backup="paranoid"`` the other seats' nodes take one less the bot's reward instead).

With ``opponents="policy"`` the other seats are not searched: inside the tree as in the
playouts they play the game's playout policy, so the tree holds the bot's own choices
only (one node per own decision, whatever the others did in between) and its iterations
go to them.

The bot plays the most visited root action. It searches until a deadline (checked between
iterations and every few playout steps), or for exactly ``iterations`` iterations, which
with the same seed gives the same decisions. A decision that follows the bot's own
previous move in the same turn starts from that move's subtree (its statistics came from
samples of the same information) and, with a fixed count, only tops it up.

What a game brings is :class:`Game`: the determinizer, whose decision it is, action keys,
priors, a step, the playout policy and the evaluation. Sequence Stacks' is in
:mod:`engine.bots.search`, classic Sequence's in :mod:`engine.classic.search`.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from engine.rng import Rng
from engine.state import Seat

S = TypeVar("S")
A = TypeVar("A")
S_co = TypeVar("S_co", covariant=True)

CHECK_EVERY = 8
"""Playout steps between clock checks (one step is ~20-40 microseconds)."""
C_PUCT = 1.4


class Sampler(Protocol[S_co]):
    def sample(self, rng: random.Random) -> S_co: ...


class Game(Protocol[S, A]):
    """What the search needs to know of a game (S: its state, A: its actions)."""

    def sampler(self, view: S) -> Sampler[S]:
        """Samples full states consistent with ``view`` (raises if it can't)."""
        ...

    def decider(self, state: S) -> tuple[Seat, list[A]]:
        """Whose decision the game waits for, and its legal actions; seat ``-1`` for a
        step that is nobody's choice (its first action is taken)."""
        ...

    def key(self, state: S, action: A) -> Hashable:
        """What an action means, whatever the ids of equal cards."""
        ...

    def priors(
        self, state: S, actor: Seat, legal: list[A], options: dict[Hashable, A]
    ) -> dict[Hashable, float]:
        """A prior over the options (summing to about 1)."""
        ...

    def step(self, state: S, action: A, rng: Rng) -> None:
        """Apply a legal action to a full state."""
        ...

    def over(self, state: S) -> bool: ...

    def turn(self, state: S) -> int:
        """A counter that grows by one a turn (for the playout's horizon)."""
        ...

    def playout(self, state: S, actor: Seat, legal: list[A]) -> A:
        """The playout policy's move."""
        ...

    def rewards(self, state: S) -> Sequence[float]:
        """Each seat's reward in 0..1: 1 for a win, else an estimate."""
        ...

    def position(self, state: S, seat: Seat) -> Hashable | None:
        """Where in its turn ``seat`` decides now (``None``: not a decision whose tree can
        carry on); the next decision of the same turn has :meth:`next_position`."""
        ...

    def next_position(self, state: S, seat: Seat) -> Hashable | None: ...


@dataclass(slots=True)
class Node:
    seat: Seat = -1
    """Who chose the move that led here (whose reward this node accumulates)."""
    visits: int = 0
    total: float = 0.0
    to_move: Seat = -2
    """Who decides at this node, once an iteration has passed through it."""
    children: dict[Hashable, Node] = field(default_factory=dict)


@dataclass(slots=True)
class SearchStats:
    """What the last decision cost."""

    iterations: int = 0
    seconds: float = 0.0
    choices: int = 0
    steps: int = 0
    """Playout steps played (the clock is read at least every ``CHECK_EVERY``)."""


class Search(Generic[S, A]):
    """The search of one bot. ``rng`` is the bot's generator (samples, engine draws);
    ``horizon``: playout turns (``None``: to the end of the game)."""

    def __init__(
        self, game: Game[S, A], rng: random.Random, *, horizon: int | None,
        clock: Callable[[], float], c_puct: float = C_PUCT, opponents: str = "tree",
        backup: str = "maxn",
    ) -> None:
        if opponents not in ("tree", "policy"):
            raise ValueError(f"unknown opponent model {opponents!r}")
        if backup not in ("maxn", "paranoid"):
            raise ValueError(f"unknown backup {backup!r}")
        self.game = game
        self.rng = rng
        self.horizon = horizon
        self.clock = clock
        self.c_puct = c_puct
        self.opponents = opponents
        self.backup = backup
        self.stats = SearchStats()
        self.root: Node | None = None
        """The tree of the last decision searched."""
        self._carry: tuple[Node, Hashable] | None = None

    def options(self, state: S, legal: list[A]) -> dict[Hashable, A]:
        out: dict[Hashable, A] = {}
        key = self.game.key
        for action in legal:
            out.setdefault(key(state, action), action)
        return out

    def choose(
        self, view: S, seat: Seat, legal: list[A], options: dict[Hashable, A], *,
        started: float, deadline: float, iterations: int | None,
    ) -> A:
        """The most visited root action after the search (``options`` has 2 or more)."""
        game = self.game
        sampler = game.sampler(view)
        root = self.root = self._reused(view, seat)
        root_prior = game.priors(view, seat, legal, options)
        done = 0
        # A reused subtree already holds iterations of this very decision: with a fixed
        # count, only the rest is searched.
        todo = None if iterations is None else max(1, iterations - root.visits)
        clock = self.clock
        # In a worker thread (a host's bot: netplay.host_peer), give the interpreter's lock
        # away after each iteration: the thread running the event loop then waits about
        # one iteration for it, not the interpreter's 5 ms switch interval, each time.
        yield_lock = threading.current_thread() is not threading.main_thread()
        while True:
            if todo is not None:
                if done >= todo:
                    break
            elif clock() >= deadline:
                break
            self._iterate(root, sampler.sample(self.rng), seat, options, root_prior, deadline)
            done += 1
            if yield_lock:
                time.sleep(0)
        self.stats.iterations = done
        self.stats.seconds = clock() - started
        best = max(
            options,
            key=lambda k: (
                root.children[k].visits if k in root.children else 0,
                _mean(root.children.get(k)),
            ),
        )
        chosen = root.children.get(best)
        self._carry = None
        follow = game.next_position(view, seat)
        if chosen is not None and follow is not None and chosen.to_move == seat:
            self._carry = (chosen, follow)
        return options[best]

    def forget(self) -> None:
        """Drop the carried subtree (a decision was made without the search)."""
        self._carry = None

    def _reused(self, view: S, seat: Seat) -> Node:
        carry, self._carry = self._carry, None
        if carry is not None:
            node, position = carry
            if position == self.game.position(view, seat):
                node.seat = -1
                return node
        return Node()

    def _iterate(
        self, root: Node, state: S, seat: Seat, root_options: dict[Hashable, A],
        root_prior: dict[Hashable, float], deadline: float,
    ) -> None:
        game = self.game
        rng = Rng(self.rng.randbytes(16))
        path = [root]
        node = root
        actor, options, prior = seat, root_options, root_prior
        modelled = self.opponents == "policy"
        c_puct = self.c_puct
        while True:
            key = _select(node, options, prior, c_puct)
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = Node(actor)
            game.step(state, options[key], rng)
            path.append(child)
            node = child
            if child.visits == 0 or game.over(state):
                break
            actor, legal = game.decider(state)
            if modelled:
                # The other seats play the policy inside the tree too: the tree branches
                # on this seat's choices only, whatever the others did in between.
                while actor != seat:
                    action = legal[0] if actor < 0 else game.playout(state, actor, legal)
                    game.step(state, action, rng)
                    if game.over(state):
                        break
                    actor, legal = game.decider(state)
                if game.over(state):
                    break
            node.to_move = actor
            options = self.options(state, legal)
            prior = game.priors(state, actor, legal, options)
        result = self.playout(state, rng, deadline)
        paranoid = self.backup == "paranoid"
        for visited in path:
            visited.visits += 1
            if visited.seat >= 0:
                if paranoid:
                    mine = result[seat]
                    visited.total += mine if visited.seat == seat else 1.0 - mine
                else:
                    visited.total += result[visited.seat]

    def playout(self, state: S, rng: Rng, deadline: float, game: Game[S, A] | None = None
                ) -> Sequence[float]:
        """Play the playout policy for ``horizon`` turns (or until the deadline), then
        score the position."""
        game = game or self.game
        limit = None if self.horizon is None else game.turn(state) + self.horizon
        steps = 0
        clock = self.clock
        # A game may offer its decider and playout policy in one (classic Sequence's
        # skips the pruning a tree node needs).
        both: Callable[[S], A] | None = getattr(game, "playout_action", None)
        while not game.over(state):
            if limit is not None and game.turn(state) >= limit:
                break
            if both is not None:
                action = both(state)
            else:
                actor, legal = game.decider(state)
                action = legal[0] if actor < 0 else game.playout(state, actor, legal)
            game.step(state, action, rng)
            steps += 1
            if steps % CHECK_EVERY == 0 and clock() >= deadline:
                break
        self.stats.steps += steps
        return game.rewards(state)


def uniform_priors(options: dict[Hashable, Any]) -> dict[Hashable, float]:
    return dict.fromkeys(options, 1.0)


def favourite_priors(
    options: dict[Hashable, Any], favourite: Hashable, weight: float
) -> dict[Hashable, float]:
    """``weight`` of the prior on ``favourite``, the rest shared by the other options."""
    if len(options) == 1:
        return uniform_priors(options)
    rest = (1.0 - weight) / (len(options) - 1)
    return {k: weight if k == favourite else rest for k in options}


def _select(
    node: Node, options: dict[Hashable, Any], prior: dict[Hashable, float],
    c_puct: float = C_PUCT,
) -> Hashable:
    if len(options) == 1:
        only: Hashable = next(iter(options))
        return only
    scale = c_puct * math.sqrt(node.visits + 1)
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


def _mean(node: Node | None) -> float:
    if node is None or node.visits == 0:
        return 0.0
    return node.total / node.visits

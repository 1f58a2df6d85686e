"""Bots: decide from their own view only. ``make_bot(name, seed)`` builds one by name.

Levels: ``easy`` (careless greedy), ``medium`` (greedy), ``hard`` (search). The older
names stay accepted: ``greedy`` is ``medium``, ``search`` is ``hard``; ``random`` (a
uniformly random legal action) is kept for tests and benchmarks.
"""

from __future__ import annotations

import os

from engine.bots.base import Bot
from engine.bots.easy import EasyBot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot
from engine.bots.search import DEFAULT_BUDGET, SearchBot

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
"""The difficulty levels offered everywhere a bot can be chosen."""

ALIASES: dict[str, str] = {"greedy": "medium", "search": "hard"}

BOT_NAMES: tuple[str, ...] = (*LEVELS, "random", *ALIASES)
"""Every name :func:`make_bot` accepts."""


def canonical(name: str) -> str:
    """The level (or ``random``) a bot name stands for; raises ``ValueError`` if unknown."""
    name = name.strip().lower()
    name = ALIASES.get(name, name)
    if name not in LEVELS and name != "random":
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(LEVELS)}")
    return name


def make_bot(
    name: str,
    seed: bytes | None = None,
    *,
    budget: float | None = None,
    iterations: int | None = None,
) -> Bot:
    """A new bot of the named level. ``seed`` feeds its generator (``None``: from the OS,
    unpredictable); ``budget`` (seconds) or ``iterations`` bound a ``hard`` decision."""
    level = canonical(name)
    if level == "random":
        return RandomBot(seed if seed is not None else os.urandom(16))
    if level == "easy":
        return EasyBot(seed)
    if level == "medium":
        return GreedyBot(seed)
    return SearchBot(seed, budget=DEFAULT_BUDGET if budget is None else budget,
                     iterations=iterations)


__all__ = [
    "ALIASES",
    "BOT_NAMES",
    "DEFAULT_BUDGET",
    "LEVELS",
    "Bot",
    "EasyBot",
    "GreedyBot",
    "RandomBot",
    "SearchBot",
    "canonical",
    "make_bot",
]

"""Bots: decide from their own view only. ``make_bot(name, seed)`` builds one by name."""

from __future__ import annotations

from collections.abc import Callable

from engine.bots.base import Bot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot

BOT_NAMES: tuple[str, ...] = ("random", "greedy")

_FACTORIES: dict[str, Callable[[bytes], Bot]] = {
    "random": RandomBot,
    "greedy": lambda seed: GreedyBot(),
}


def make_bot(name: str, seed: bytes = b"") -> Bot:
    """A new bot of the named strategy; ``seed`` feeds bots that use randomness."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}") from None
    return factory(seed)


__all__ = ["BOT_NAMES", "Bot", "GreedyBot", "RandomBot", "make_bot"]

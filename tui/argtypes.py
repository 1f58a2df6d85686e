"""Argument types, small measures and words shared by the command modules (no heavy
imports)."""

from __future__ import annotations

import argparse


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in its number: "1 bot", "3 bots", "0 bots"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def percentile(sorted_samples: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of already sorted samples, nearest rank."""
    index = min(len(sorted_samples) - 1, max(0, round(q * (len(sorted_samples) - 1))))
    return sorted_samples[index]

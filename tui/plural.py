"""Counts in words ("1 bot", "3 bots"), apart from ``tui.words``: the headless commands
and the ssh server use them too, and must not import Textual for them."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in its number: "1 bot", "3 bots", "0 bots"."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"

"""What a visitor's URL may ask for (a game kind, a page of a list, a player's name, a
game's id), checked before anything is looked up: a bad value is :class:`BadInput` with
the words that say why, answered 400 by the pages and the API alike."""

from __future__ import annotations

import re
from collections.abc import Mapping

GAMES = ("stacks", "sequence")
"""The game kinds the database rates (``ratings.results.GAME_KINDS``)."""
GAME_TITLES = {"stacks": "Sequence Stacks", "sequence": "classic Sequence"}
DEFAULT_LIMIT = 50
MAX_LIMIT = 200
MAX_OFFSET = 1_000_000
MAX_NAME = 64
"""The longest name a player has in the database."""
GAME_ID = re.compile(r"[0-9a-f]{64}")
"""A game's id: its commitment, 64 lowercase hex digits."""


class BadInput(ValueError):
    """A parameter that can't be what it names; the message says why, in words."""


def game_kind(query: Mapping[str, str], *, default: str | None = "stacks") -> str | None:
    value = query.get("game")
    if value is None:
        return default
    if value not in GAMES:
        raise BadInput(f"game must be one of {', '.join(GAMES)} (not {shown(value)})")
    return value


def number(query: Mapping[str, str], key: str, default: int, least: int, most: int) -> int:
    value = query.get(key)
    if value is None:
        return default
    if not re.fullmatch(r"[0-9]{1,9}", value):
        raise BadInput(f"{key} must be a whole number from {least} to {most:,} "
                       f"(not {shown(value)})")
    found = int(value)
    if not least <= found <= most:
        raise BadInput(f"{key} must be from {least} to {most:,} (not {found:,})")
    return found


def paging(query: Mapping[str, str]) -> tuple[int, int]:
    """``offset`` (0 to `MAX_OFFSET`) and ``limit`` (1 to `MAX_LIMIT`)."""
    return (number(query, "offset", 0, 0, MAX_OFFSET),
            number(query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT))


def player_name(value: str) -> str | None:
    """A name (or fingerprint) to look up, or ``None`` when no player can have it (too
    long, a control character): that is nobody, not a bad request."""
    if not value or len(value) > MAX_NAME or any(not ch.isprintable() for ch in value):
        return None
    return value


def game_id(value: str) -> str:
    if not GAME_ID.fullmatch(value):
        raise BadInput(f"{shown(value)} is not a game id (a game's id is 64 hex digits, "
                       "as the lists of games show it)")
    return value


def shown(value: str) -> str:
    """A visitor's value as the words quote it: short, printable."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in value[:40])
    return repr(clean + ("…" if len(value) > 40 else ""))

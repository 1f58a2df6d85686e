"""``stacks serve``'s moderation options (argparse only, like `sshserver.options`): the
moderators, the chat's word filter, the limit on games left before their end."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sshserver.moderation import ModerationSettings

DEFAULT_MIN_GAMES = 5


def _names(text: str) -> frozenset[str]:
    names = frozenset(n.strip().casefold() for n in text.split(",") if n.strip())
    if not names:
        raise argparse.ArgumentTypeError("name at least one account: NAME,NAME,...")
    return names


def _rate(text: str) -> float:
    """A share: ``0.3`` or ``30%``."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate (0.3, or 30%)") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError("a rate is 0 to 1 (or 0% to 100%)")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError("can't be negative")
    return value


def add_moderation_arguments(serve: argparse.ArgumentParser) -> None:
    group = serve.add_argument_group("moderation (docs/moderation.md)")
    group.add_argument("--moderators", type=_names, metavar="NAME,...",
                       help="accounts that moderate from the ssh menu (Moderate): mute, "
                       "rename, ban, close tables, read reports; `stacks moderate "
                       "moderator add NAME` names more in the database")
    group.add_argument("--word-filter", metavar="FILE",
                       help="mask these words in the chat (a word or phrase a line, "
                       "matched whole and case-blind, masked with *)")
    group.add_argument("--max-abandon-rate", type=_rate, metavar="RATE",
                       help="refuse a seat at the server's rated tables to a player who "
                       "left more than this share of their games before the end, for the "
                       "stand-in to finish (0.3 or 30%%; default: never)")
    group.add_argument("--abandon-min-games", type=_count, default=DEFAULT_MIN_GAMES,
                       metavar="N",
                       help="games a player has played before --max-abandon-rate counts "
                       f"({DEFAULT_MIN_GAMES})")


def moderation_settings(args: argparse.Namespace) -> ModerationSettings:
    from sshserver.moderation import ModerationSettings

    word_filter = getattr(args, "word_filter", None)
    return ModerationSettings(
        moderators=getattr(args, "moderators", None) or frozenset(),
        word_filter=Path(word_filter).expanduser() if word_filter else None,
        max_abandon_rate=getattr(args, "max_abandon_rate", None),
        min_games=getattr(args, "abandon_min_games", DEFAULT_MIN_GAMES),
    )

"""Argument types and small measures shared by the command modules (no heavy imports:
the menu's options are parsed with them; what a type needs of the engine it imports when
it checks a value)."""

from __future__ import annotations

import argparse


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


def stacks_players(text: str) -> int:
    value = positive_int(text)
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"Sequence Stacks is for 2-6 players, not {value}")
    return value


def bot_list(text: str) -> list[str]:
    from engine.bots import BOT_NAMES, LEVELS

    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one bot")
    unknown = [name for name in names if name not in BOT_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot {unknown[0]!r}; choose from {', '.join(LEVELS)} "
            f"(also accepted: {', '.join(n for n in BOT_NAMES if n not in LEVELS)})"
        )
    return names


def bot_level(text: str) -> str:
    names = bot_list(text)
    if len(names) != 1:
        raise argparse.ArgumentTypeError("name one level")
    return names[0]


def host_bots(text: str) -> int | list[str]:
    """``--bots`` of ``stacks host``: a count (of --bot-strategy bots) or their levels."""
    if text.strip().isdigit():
        return int(text)
    return bot_list(text)


def budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("a budget is more than 0 and at most 60 seconds")
    return value


def host_bot_levels(args: argparse.Namespace) -> tuple[str, ...]:
    """Settle ``stacks host --bots``: a count of --bot-strategy bots, or their levels.
    Leaves ``args.bots`` the count and ``args.bot_levels`` the levels."""
    if not hasattr(args, "bot_levels"):
        if isinstance(args.bots, list):
            args.bot_levels = tuple(args.bots)
            args.bots = len(args.bots)
        else:
            args.bot_levels = (args.bot_strategy,) * args.bots
    return tuple(args.bot_levels)


def sim_players(text: str) -> int:
    """2..12 here; ``stacks simulate`` checks the count against the chosen game."""
    value = positive_int(text)
    if not 2 <= value <= 12:
        raise argparse.ArgumentTypeError(f"players must be 2-12, not {value}")
    return value


def name_list(text: str) -> list[str]:
    """Bot names, comma separated; ``stacks simulate`` checks them against the game."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one bot")
    return names


def window_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 60 seconds")
    return value


def table_name(text: str) -> str:
    from netplay.topics import check_table_name

    try:
        return check_table_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def pinned_table(text: str) -> str:
    """``TABLE`` or ``TABLE@FINGERPRINT`` (follow only the host with that fingerprint)."""
    from netplay.hosts import split_pin

    try:
        split_pin(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def broker_url(text: str) -> str:
    from netplay.transport import BrokerAddress

    try:
        BrokerAddress.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0 seconds")
    return value


def clock_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError("must be 0 to 3600 seconds")
    return value

"""The ``stacks`` command line: parses arguments and hands over to one command module.

Command modules are imported only when chosen, so ``stacks simulate`` never pays for
Textual and ``stacks`` stays quick to start.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from engine.bots import BOT_NAMES


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _players(text: str) -> int:
    value = _positive(text)
    if not 2 <= value <= 6:
        raise argparse.ArgumentTypeError(f"Sequence Stacks is for 2-6 players, not {value}")
    return value


def _bot_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("name at least one bot")
    unknown = [name for name in names if name not in BOT_NAMES]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown bot {unknown[0]!r}; choose from {', '.join(BOT_NAMES)}"
        )
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stacks",
        description="Sequence Stacks in the terminal.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = commands.add_parser(
        "simulate",
        help="play headless games between bots and summarise them",
        description="Play N headless games between bots, checking the rules' invariants "
        "after every event, and print a summary.",
    )
    sim.add_argument("--games", type=_positive, default=100, help="games to play (100)")
    sim.add_argument("--players", type=_players, default=4, help="players per game, 2-6 (4)")
    sim.add_argument(
        "--bots",
        type=_bot_list,
        default=["greedy"],
        help=f"bot per seat, comma separated and cycled over the seats ({', '.join(BOT_NAMES)})",
    )
    sim.add_argument("--seed", type=int, default=0, help="seed; the same seed gives the same games")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    sim.add_argument(
        "--no-checks",
        action="store_true",
        help="skip the per-event invariant checks (faster; invariant_violations is then 0)",
    )

    bench = commands.add_parser("bench", help="measure speed", description="Benchmarks.")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    engine_bench = targets.add_parser(
        "engine",
        help="engine steps/s and games/s",
        description="Steps/s and games/s of random and greedy self-play at 2, 4 and 6 "
        "players, on one core, invariant checks off.",
    )
    engine_bench.add_argument("--json", action="store_true", help="print one JSON object")
    engine_bench.add_argument(
        "--seconds", type=float, default=2.0, help="time per measurement (2.0)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        from tui.commands.simulate import run

        return run(args)
    if args.command == "bench":
        from tui.commands.bench import run as run_bench

        return run_bench(args)
    parser.print_help()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

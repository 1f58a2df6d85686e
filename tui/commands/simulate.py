"""``stacks simulate``: many headless bot games, a progress bar, a summary."""

from __future__ import annotations

import argparse
import json
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from engine.bots import make_bot
from engine.runner import Tally, game_seed, play_game


def seat_bots(names: list[str], players: int) -> tuple[str, ...]:
    """One bot name per seat, cycling through ``names``."""
    return tuple(names[seat % len(names)] for seat in range(players))


def simulate(
    games: int, players: int, bot_names: list[str], seed: int, *, checks: bool = True,
    progress: Progress | None = None,
) -> tuple[Tally, float]:
    """Play the games; returns the tally and the seconds it took."""
    bots = seat_bots(bot_names, players)
    tally = Tally(players, bots)
    task = progress.add_task("playing", total=games) if progress else None
    started = time.perf_counter()
    for index in range(games):
        seats = [
            make_bot(name, game_seed(seed, index) + bytes([seat]))
            for seat, name in enumerate(bots)
        ]
        tally.add(play_game(players, seats, game_seed(seed, index), check=checks))
        if progress is not None and task is not None:
            progress.advance(task)
    return tally, time.perf_counter() - started


def run(args: argparse.Namespace) -> int:
    show_progress = not args.json and sys.stderr.isatty()
    progress = (
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        if show_progress
        else None
    )
    if progress is not None:
        with progress:
            tally, seconds = simulate(
                args.games, args.players, args.bots, args.seed,
                checks=not args.no_checks, progress=progress,
            )
    else:
        tally, seconds = simulate(
            args.games, args.players, args.bots, args.seed, checks=not args.no_checks
        )
    summary = tally.summary()
    summary["seed"] = args.seed
    summary["seconds"] = round(seconds, 3)
    summary["games_per_second"] = round(tally.games / seconds, 2) if seconds > 0 else None
    if args.json:
        print(json.dumps(summary))
    else:
        _print_summary(summary)
    return 1 if tally.invariant_violations else 0


def _print_summary(summary: dict[str, object]) -> None:
    console = Console()
    wins = summary["wins"]
    bots = summary["bots"]
    assert isinstance(wins, list) and isinstance(bots, list)
    table = Table(title=f"{summary['games']} games, {summary['players']} players")
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("wins", justify="right")
    for seat, (bot, count) in enumerate(zip(bots, wins, strict=True)):
        table.add_row(str(seat), str(bot), str(count))
    console.print(table)
    by_bot = summary["wins_by_bot"]
    assert isinstance(by_bot, dict)
    console.print("wins by bot: " + ", ".join(f"{k} {v}" for k, v in by_bot.items()))
    console.print(
        f"draws {summary['draws']}  ·  mean turns {summary['mean_turns']}  ·  "
        f"mean actions {summary['mean_actions']}  ·  "
        f"{summary['games_per_second']} games/s  ·  "
        f"invariant violations {summary['invariant_violations']}"
    )

"""``stacks simulate``: many headless bot games, a progress bar, a summary."""

from __future__ import annotations

import argparse
import json
import sys
import time

from rich.console import Console
from rich.table import Table

from engine.bots import BOT_NAMES, make_bot
from engine.classic.bots import SEQUENCE_BOT_NAMES, make_sequence_bot
from engine.classic.config import SequenceConfig
from engine.classic.runner import SequenceTally, play_sequence_game
from engine.classic.state import TEAM_COLOURS, SequenceState
from engine.errors import ConfigError
from engine.games import game_def
from engine.runner import Tally, game_seed, play_game
from stacks.progress import Bar


def seat_bots(names: list[str], players: int) -> tuple[str, ...]:
    """One bot name per seat, cycling through ``names``."""
    return tuple(names[seat % len(names)] for seat in range(players))


def simulate(
    games: int, players: int, bot_names: list[str], seed: int, *, checks: bool = True,
    progress: Bar | None = None,
) -> tuple[Tally, float]:
    """Play the games; returns the tally and the seconds it took."""
    bots = seat_bots(bot_names, players)
    tally = Tally(players, bots)
    started = time.perf_counter()
    for index in range(games):
        seats = [
            make_bot(name, game_seed(seed, index) + bytes([seat]))
            for seat, name in enumerate(bots)
        ]
        tally.add(play_game(players, seats, game_seed(seed, index), check=checks))
        if progress is not None:
            progress.advance()
    return tally, time.perf_counter() - started


def simulate_sequence(
    games: int, players: int, bot_names: list[str], seed: int, *, checks: bool = True,
    config: SequenceConfig | None = None, progress: Bar | None = None,
) -> tuple[SequenceTally, float]:
    """Classic Sequence games (``--game sequence``); the seeds are those of Stacks games."""
    config = config or SequenceConfig()
    teams = SequenceState.new(config, players).teams
    bots = seat_bots(bot_names, players)
    tally = SequenceTally(players, teams, bots)
    started = time.perf_counter()
    for index in range(games):
        seats = [
            make_sequence_bot(name, game_seed(seed, index) + bytes([seat]))
            for seat, name in enumerate(bots)
        ]
        tally.add(
            play_sequence_game(players, seats, game_seed(seed, index), config, check=checks)
        )
        if progress is not None:
            progress.advance()
    return tally, time.perf_counter() - started


def _check_args(args: argparse.Namespace) -> str | None:
    """Why the arguments don't fit the chosen game, or ``None`` (and fills defaults)."""
    sequence = args.game == "sequence"
    known = SEQUENCE_BOT_NAMES if sequence else BOT_NAMES
    if args.bots is None:
        args.bots = ["medium"]
    unknown = [name for name in args.bots if name not in known]
    if unknown:
        return f"unknown bot {unknown[0]!r} for {args.game}; choose from {', '.join(known)}"
    try:
        game_def(args.game).check_players(args.players)
        if sequence:
            SequenceState.new(SequenceConfig(teams=args.teams), args.players)
    except ConfigError as exc:
        return str(exc)
    if args.teams is not None and not sequence:
        return "--teams is for --game sequence"
    return None


def run(args: argparse.Namespace) -> int:
    problem = _check_args(args)
    if problem:
        print(f"stacks simulate: {problem}", file=sys.stderr)
        return 2
    # On stderr, when it is a terminal and the run lasts (stacks.progress): never in
    # the table or the --json object on stdout.
    progress = Bar("playing", args.games)
    def play() -> tuple[Tally | SequenceTally, float]:
        if args.game == "sequence":
            return simulate_sequence(
                args.games, args.players, args.bots, args.seed, checks=not args.no_checks,
                config=SequenceConfig(teams=args.teams), progress=progress,
            )
        return simulate(
            args.games, args.players, args.bots, args.seed,
            checks=not args.no_checks, progress=progress,
        )

    with progress:
        tally, seconds = play()
    summary = tally.summary()
    summary["seed"] = args.seed
    summary["checks"] = not args.no_checks
    summary["seconds"] = round(seconds, 3)
    summary["games_per_second"] = round(tally.games / seconds, 2) if seconds > 0 else None
    if args.json:
        print(json.dumps(summary))
    elif args.game == "sequence":
        _print_sequence_summary(summary)
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


def _print_sequence_summary(summary: dict[str, object]) -> None:
    console = Console()
    wins = summary["wins"]
    team_bots = summary["team_bots"]
    teams = summary["teams"]
    players = summary["players"]
    assert isinstance(wins, list) and isinstance(team_bots, list)
    assert isinstance(teams, int) and isinstance(players, int)
    table = Table(title=f"Sequence: {summary['games']} games, {players} players")
    table.add_column("team")
    table.add_column("seats")
    table.add_column("bots")
    table.add_column("wins", justify="right")
    for team, (count, bots) in enumerate(zip(wins, team_bots, strict=True)):
        seats = ", ".join(str(s) for s in range(team, players, teams))
        colour = TEAM_COLOURS[team]
        table.add_row(f"{colour} ({colour[0]})", seats, ", ".join(bots), str(count))
    console.print(table)
    by_bot = summary["wins_by_bot"]
    assert isinstance(by_bot, dict)
    console.print("wins by bot: " + ", ".join(f"{k} {v}" for k, v in by_bot.items()))
    console.print(
        f"draws {summary['draws']}  ·  mean turns {summary['mean_turns']}  ·  "
        f"{summary['games_per_second']} games/s  ·  "
        f"invariant violations {summary['invariant_violations']}"
    )

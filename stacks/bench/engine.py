"""``stacks bench``: measured speed of the parts, reported as numbers."""

from __future__ import annotations

import argparse
import json
import platform
import time

from rich.console import Console
from rich.table import Table

from engine.bots import make_bot
from engine.runner import game_seed, play_game


def measure_engine(bot: str, players: int, seconds: float, *, bot_views: bool) -> dict[str, float]:
    """Self-play ``bot`` at ``players`` for about ``seconds``; steps/s and games/s.

    A step is one action: legal-action generation, the bot's choice, ``step`` (which
    validates and applies every event through the reducer). Invariant checks are off.
    With ``bot_views`` each bot also keeps its own view up to date from redacted events,
    as a networked peer does.
    """
    games = actions = 0
    started = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds or games < 3:
        seed = game_seed(players, games)
        bots = [make_bot(bot, seed + bytes([s])) for s in range(players)]
        result = play_game(players, bots, seed, bot_views=bot_views)
        games += 1
        actions += result.actions
        elapsed = time.perf_counter() - started
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "steps_per_second": round(actions / elapsed),
        "games_per_second": round(games / elapsed, 1),
        "mean_actions": round(actions / games, 1),
    }


def run(args: argparse.Namespace) -> int:
    if args.target == "net":
        from stacks.bench.net import run_net

        status: int = run_net(args)
        return status
    if args.target != "engine":
        raise SystemExit(f"unknown benchmark {args.target!r}")
    rows: list[dict[str, object]] = []
    for bot in ("random", "greedy"):
        for players in (2, 4, 6):
            for views in (False, True):
                measured = measure_engine(bot, players, args.seconds, bot_views=views)
                rows.append({"bot": bot, "players": players, "bot_views": views, **measured})
    report = {"benchmark": "engine", "python": platform.python_version(), "results": rows}
    if args.json:
        print(json.dumps(report))
        return 0
    table = Table(title=f"engine self-play, one core, Python {report['python']}")
    for column in ("bot", "players", "bot views", "steps/s", "games/s", "actions/game"):
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(
            str(row["bot"]), str(row["players"]), "yes" if row["bot_views"] else "no",
            f"{row['steps_per_second']:,}", str(row["games_per_second"]),
            str(row["mean_actions"]),
        )
    Console().print(table)
    return 0

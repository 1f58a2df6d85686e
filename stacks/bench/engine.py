"""``stacks bench``: measured speed of the parts, reported as numbers."""

from __future__ import annotations

import argparse
import json
import platform
import time

from rich.console import Console
from rich.table import Table

from engine.bots import make_bot
from engine.fastplay import play
from engine.game import Game
from engine.rules import legal_actions, step_trusted
from engine.runner import block_round, game_seed, play_game
from engine.state import Phase

BARE_PLAYERS = 4
"""The table of the engine-against-a-bare-playout figure: random self-play."""


def measure_engine(bot: str, players: int, seconds: float, *, bot_views: bool) -> dict[str, float]:
    """Self-play ``bot`` at ``players`` for about ``seconds``; steps/s and games/s.

    A step is one action: legal-action generation, the bot's choice, ``step`` (which
    validates and applies every event through the reducer). Invariant checks are off.
    With ``bot_views`` each bot also keeps its own view up to date from redacted events,
    as a networked peer does. Timed in CPU time of this process (one core), so that other
    work on a shared machine slows the run, not the figures.
    """
    games = actions = 0
    started = time.process_time()
    elapsed = 0.0
    while elapsed < seconds or games < 3:
        seed = game_seed(players, games)
        bots = [make_bot(bot, seed + bytes([s])) for s in range(players)]
        result = play_game(players, bots, seed, bot_views=bot_views)
        games += 1
        actions += result.actions
        elapsed = time.process_time() - started
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "steps_per_second": round(actions / elapsed),
        "games_per_second": round(games / elapsed, 1),
        "mean_actions": round(actions / games, 1),
    }


def measure_bare(
    bot: str, players: int, seconds: float, *, trusted: bool = False
) -> dict[str, float]:
    """The same games as :func:`measure_engine` (the same seeds and bots), played bare:
    the host's state only, each action applied by the search's fast path
    (:func:`engine.fastplay.play`: no validation, no events, no views). With ``trusted``,
    by :func:`engine.rules.step_trusted` instead (no validation and no views, but every
    event made and applied by the reducer: how the search stepped before the fast path)."""
    advance = step_trusted if trusted else play
    games = actions = 0
    started = time.process_time()
    elapsed = 0.0
    while elapsed < seconds or games < 3:
        seed = game_seed(players, games)
        bots = [make_bot(bot, seed + bytes([s])) for s in range(players)]
        game = Game.new(players, seed, keep_log=False)
        state, rng = game.state, game.rng
        while state.outcome is None:
            if state.phase == Phase.BLOCK_WINDOW:
                action = block_round(state, bots)
            else:
                seat = state.current
                action = bots[seat].choose(state, seat, legal_actions(state, seat))
            advance(state, action, rng)
            actions += 1
        games += 1
        elapsed = time.process_time() - started
    return {
        "games": games,
        "seconds": round(elapsed, 3),
        "steps_per_second": round(actions / elapsed),
        "games_per_second": round(games / elapsed, 1),
        "mean_actions": round(actions / games, 1),
    }


def against_bare(seconds: float) -> dict[str, object]:
    """The engine figure: random self-play at 4 players, every bot keeping its own
    view as a networked peer does, and the same games through ``step_trusted`` (the
    search's step before the fast path), against the same games played bare; the ratios."""
    engine = measure_engine("random", BARE_PLAYERS, seconds, bot_views=True)
    trusted = measure_bare("random", BARE_PLAYERS, seconds, trusted=True)
    bare = measure_bare("random", BARE_PLAYERS, seconds)
    return {
        "bot": "random",
        "players": BARE_PLAYERS,
        "engine_games_per_second": engine["games_per_second"],
        "trusted_games_per_second": trusted["games_per_second"],
        "bare_games_per_second": bare["games_per_second"],
        "ratio": round(engine["games_per_second"] / bare["games_per_second"], 3),
        "trusted_ratio": round(trusted["games_per_second"] / bare["games_per_second"], 3),
        "mean_actions": engine["mean_actions"],
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
    bare = against_bare(args.seconds)
    report = {
        "benchmark": "engine", "python": platform.python_version(), "results": rows,
        "against_bare": bare,
    }
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
    console = Console()
    console.print(table)
    console.print(
        f"engine against a bare playout (random, {bare['players']} players, the same "
        f"games, CPU time): {bare['engine_games_per_second']} games/s with every bot's "
        f"view, {bare['trusted_games_per_second']} through step_trusted (events and "
        f"reducer, no views), {bare['bare_games_per_second']} bare (engine.fastplay): "
        f"{bare['ratio']}x and {bare['trusted_ratio']}x"
    )
    return 0

"""``stacks tournament``: bots against each other, seats rotated, win rates with intervals.

The line-ups: with as many bots named as seats, that one line-up; with more, every
choice of ``players`` of them (a round robin); with fewer, the names cycled over the
seats. Each line-up is played with its seats rotated game after game, so that every bot
sits in every seat equally often (the seat left of the dealer starts, and the dealer is
drawn from each game's seed). Win rates come with 95% Wilson intervals; each bot's time
per decision is measured around its ``choose`` (wall clock, and CPU time of the thread).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.table import Table

from engine.bots import DEFAULT_BUDGET, canonical, make_bot
from engine.classic.bots import SEQUENCE_BOT_NAMES, make_sequence_bot
from engine.classic.runner import play_sequence_game
from engine.games import TableBot
from engine.rng import derive_seed
from engine.runner import game_seed, play_game
from engine.state import Seat
from netplay.engines import EngineBot, EngineError, EngineSpec, EngineStats
from stacks.progress import Bar

SEQUENCE_PLAYERS = (2, 3)
"""Classic Sequence tournaments are between individuals: 2 or 3 players, each a side."""

Z95 = 1.959964
Z99 = 2.575829


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate (``z`` = 1.96 for 95%)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def lineups(names: Sequence[str], players: int,
            fixed: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The line-ups a tournament plays (before seat rotation). ``fixed`` (the outside
    programs) sit in every line-up; ``names`` fill the other seats as above."""
    if fixed:
        rest = players - len(fixed)
        if rest <= 0:
            return [tuple(fixed[seat % len(fixed)] for seat in range(players))]
        return [(*fixed, *others) for others in lineups(names, rest)] if names else \
            [tuple(fixed[seat % len(fixed)] for seat in range(players))]
    if len(names) == players:
        return [tuple(names)]
    if len(names) > players:
        return [tuple(names[i] for i in combo)
                for combo in itertools.combinations(range(len(names)), players)]
    return [tuple(names[seat % len(names)] for seat in range(players))]


def schedule(names: Sequence[str], players: int, games: int,
             fixed: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """Game ``i`` seats ``schedule[i][seat]``: line-ups in turn, each rotated one seat
    further every time it comes round."""
    plans = lineups(names, players, fixed)
    out = []
    for index in range(games):
        lineup = plans[index % len(plans)]
        shift = (index // len(plans)) % players
        out.append(tuple(lineup[(seat + shift) % players] for seat in range(players)))
    return out


@dataclass(slots=True)
class Timing:
    decisions: int = 0
    wall: float = 0.0
    wall_max: float = 0.0
    cpu: float = 0.0
    cpu_max: float = 0.0
    over_budget: int = 0
    """Decisions whose wall time passed 1.2 x the budget (search bots only)."""
    searched: int = 0
    """Decisions a search bot searched (more than one real choice)."""
    iterations: int = 0

    def add(self, other: Timing) -> None:
        self.decisions += other.decisions
        self.wall += other.wall
        self.cpu += other.cpu
        self.wall_max = max(self.wall_max, other.wall_max)
        self.cpu_max = max(self.cpu_max, other.cpu_max)
        self.over_budget += other.over_budget
        self.searched += other.searched
        self.iterations += other.iterations


class TimedBot:
    """Measures a bot's decisions."""

    def __init__(self, bot: TableBot, limit: float | None) -> None:
        self.bot = bot
        self.name = bot.name
        self.limit = limit
        self.timing = Timing()

    def choose(self, view: Any, seat: Seat, legal: list[Any]) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = self.bot.choose(view, seat, legal)
        wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
        t = self.timing
        t.decisions += 1
        t.wall += wall
        t.cpu += cpu
        t.wall_max = max(t.wall_max, wall)
        t.cpu_max = max(t.cpu_max, cpu)
        if self.limit is not None and wall > 1.2 * self.limit:
            t.over_budget += 1
        stats = getattr(self.bot, "stats", None)
        if stats is not None and stats.iterations:
            t.searched += 1
            t.iterations += stats.iterations
        return action


@dataclass(frozen=True, slots=True)
class Job:
    index: int
    seats: tuple[str, ...]
    seed: int
    budget: float
    iterations: int | None
    game: str = "stacks"
    """``stacks``, or ``sequence`` (classic Sequence, where the winning side is a seat)."""
    engines: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Outside programs in the line-up: (name, command line)."""
    engine_budget: float = 2.0
    engine_restarts: int = 3


@dataclass(slots=True)
class GameOutcome:
    index: int
    seats: tuple[str, ...]
    winner: Seat | None
    timings: dict[str, Timing]
    engines: dict[str, EngineStats] = field(default_factory=dict)


def play_one(job: Job) -> GameOutcome:
    """One game of the tournament (also run in worker processes)."""
    engines: dict[Seat, EngineBot] = {}
    try:
        return _play_one(job, engines)
    finally:
        for engine in engines.values():
            engine.close()


def _play_one(job: Job, engines: dict[Seat, EngineBot]) -> GameOutcome:
    bots: list[TimedBot] = []
    commands = dict(job.engines)
    for seat, name in enumerate(job.seats):
        seed = derive_seed(job.seed, label=f"tournament-bot-{job.index}-{seat}")
        if name in commands:
            engine = EngineBot(EngineSpec(name, commands[name]), budget=job.engine_budget,
                               restarts=job.engine_restarts, seed=seed,
                               say=lambda text: print(text, file=sys.stderr, flush=True))
            engines[seat] = engine
            engine.start()
            bots.append(TimedBot(engine, None))
            continue
        if job.game == "sequence":
            limit = job.budget if name == "hard" and job.iterations is None else None
            bots.append(TimedBot(make_sequence_bot(name, seed, budget=job.budget,
                                                   iterations=job.iterations), limit))
            continue
        level = canonical(name)
        bot = make_bot(level, seed, budget=job.budget, iterations=job.iterations)
        limit = job.budget if level == "hard" and job.iterations is None else None
        bots.append(TimedBot(bot, limit))
    if job.game == "sequence":
        # Teams of one (2 or 3 players): the winning team is the winning seat.
        result: Any = play_sequence_game(len(job.seats), bots, game_seed(job.seed, job.index))
    else:
        result = play_game(len(job.seats), bots, game_seed(job.seed, job.index))
    timings: dict[str, Timing] = {}
    for name, bot in zip(job.seats, bots, strict=True):
        timings.setdefault(name, Timing()).add(bot.timing)
    stats: dict[str, EngineStats] = {}
    for seat, engine in engines.items():
        engine.finish(seat, None, termination=result.termination, winner=result.winner)
        stats.setdefault(engine.name, EngineStats()).add(engine.tally)
    return GameOutcome(job.index, job.seats, result.winner, timings, stats)


@dataclass(slots=True)
class Standing:
    games: int = 0
    wins: int = 0
    timing: Timing = field(default_factory=Timing)


@dataclass(slots=True)
class Results:
    players: int
    games: int = 0
    draws: int = 0
    bots: dict[str, Standing] = field(default_factory=dict)
    seat_wins: list[int] = field(default_factory=list)
    engines: dict[str, EngineStats] = field(default_factory=dict)
    versus: dict[str, dict[str, Standing]] = field(default_factory=dict)
    """Each outside program's games and wins against each line-up of our bots."""

    def add(self, outcome: GameOutcome) -> None:
        if not self.seat_wins:
            self.seat_wins = [0] * self.players
        self.games += 1
        for seat, name in enumerate(outcome.seats):
            standing = self.bots.setdefault(name, Standing())
            standing.games += 1
            if outcome.winner == seat:
                standing.wins += 1
        for name, timing in outcome.timings.items():
            self.bots.setdefault(name, Standing()).timing.add(timing)
        for name, stats in outcome.engines.items():
            self.engines.setdefault(name, EngineStats()).add(stats)
            # Its record against each line-up of ours, apart.
            against = ",".join(sorted({n for n in outcome.seats if n != name}))
            record = self.versus.setdefault(name, {}).setdefault(against, Standing())
            for seat, sitting in enumerate(outcome.seats):
                if sitting == name:
                    record.games += 1
                    record.wins += outcome.winner == seat
        if outcome.winner is None:
            self.draws += 1
        else:
            self.seat_wins[outcome.winner] += 1

    def summary(self) -> dict[str, object]:
        bots: dict[str, object] = {}
        for name, s in self.bots.items():
            low, high = wilson(s.wins, s.games)
            t = s.timing
            bots[name] = {
                "games": s.games,
                "wins": s.wins,
                "win_rate": round(s.wins / s.games, 4) if s.games else 0.0,
                "ci95": [round(low, 4), round(high, 4)],
                "decisions": t.decisions,
                "ms_per_decision_mean": round(1000 * t.wall / t.decisions, 3)
                if t.decisions else 0.0,
                "ms_per_decision_max": round(1000 * t.wall_max, 3),
                "cpu_ms_per_decision_mean": round(1000 * t.cpu / t.decisions, 3)
                if t.decisions else 0.0,
                "cpu_ms_per_decision_max": round(1000 * t.cpu_max, 3),
                "over_budget": t.over_budget,
                "searched_decisions": t.searched,
                "iterations_per_search": round(t.iterations / t.searched, 1)
                if t.searched else None,
            }
        chance = 1 / self.players
        seats = []
        for seat, wins in enumerate(self.seat_wins or [0] * self.players):
            low, high = wilson(wins, self.games, Z99)
            seats.append({
                "seat": seat,
                "wins": wins,
                "win_rate": round(wins / self.games, 4) if self.games else 0.0,
                "ci99": [round(low, 4), round(high, 4)],
                "chance_explains": low <= chance <= high,
            })
        engines = {name: stats.summary() for name, stats in self.engines.items()}
        for name, records in self.versus.items():
            engines[name]["versus"] = {
                against: {"games": r.games, "wins": r.wins,
                          "win_rate": round(r.wins / r.games, 4) if r.games else 0.0,
                          "ci95": [round(x, 4) for x in wilson(r.wins, r.games)]}
                for against, r in records.items()}
        return {"games": self.games, "players": self.players, "draws": self.draws,
                "bots": bots, "seats": seats, "engines": engines}


def run_tournament(
    names: Sequence[str],
    players: int,
    games: int,
    *,
    seed: int = 0,
    budget: float = DEFAULT_BUDGET,
    iterations: int | None = None,
    jobs: int = 1,
    progress: Bar | None = None,
    game: str = "stacks",
    engines: Sequence[EngineSpec] = (),
    engine_budget: float = 2.0,
    engine_restarts: int = 3,
) -> Results:
    """Play the tournament (in ``jobs`` worker processes when more than 1). Each of
    ``engines`` (outside programs) sits in every game, against ``names``."""
    commands = tuple((spec.name, spec.command) for spec in engines)
    plan = [Job(i, seats, seed, budget, iterations, game, commands, engine_budget,
                engine_restarts)
            for i, seats in enumerate(schedule(names, players, games,
                                               [spec.name for spec in engines]))]
    results = Results(players)
    for outcome in _outcomes(plan, jobs):
        results.add(outcome)
        if progress is not None:
            progress.advance()
    return results


def _outcomes(plan: list[Job], jobs: int) -> Iterator[GameOutcome]:
    if jobs <= 1 or len(plan) <= 1:
        for job in plan:
            yield play_one(job)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(play_one, plan, chunksize=1)


def run(args: argparse.Namespace) -> int:
    game = getattr(args, "game", "stacks")
    if game == "sequence":
        names = list(args.bots or ["medium", "easy"])
        unknown = [n for n in names if n not in SEQUENCE_BOT_NAMES]
        problem = (f"Sequence has no {unknown[0]!r} bot; choose from "
                   f"{', '.join(SEQUENCE_BOT_NAMES)}") if unknown else None
        if args.players not in SEQUENCE_PLAYERS:
            problem = ("a Sequence tournament is between individuals: 2 or 3 players "
                       f"(not {args.players}; more play in teams)")
        if problem:
            print(f"stacks tournament: {problem}", file=sys.stderr)
            return 2
    else:
        try:
            names = [canonical(n) for n in args.bots or ["hard", "medium"]]
        except ValueError as exc:
            print(f"stacks tournament: {exc}", file=sys.stderr)
            return 2
    try:
        engines = _engines(args, game, names)
    except (ValueError, EngineError) as exc:
        print(f"stacks tournament: {exc}", file=sys.stderr)
        return 2
    if engines and not args.bots:
        names = ["medium"]
    jobs = args.jobs if args.jobs is not None else 1
    # On stderr, when it is a terminal and the run lasts (stacks.progress), with --json
    # too: the table or the JSON object on stdout never holds it.
    progress = Bar("playing", args.games)
    started = time.perf_counter()
    with progress:
        results = run_tournament(names, args.players, args.games, seed=args.seed,
                                 budget=args.budget, iterations=args.iterations, jobs=jobs,
                                 progress=progress, game=game, engines=engines,
                                 engine_budget=args.engine_budget,
                                 engine_restarts=args.engine_restarts)
    summary = results.summary()
    summary.update(game=game, seed=args.seed, budget=args.budget,
                   iterations=args.iterations, jobs=jobs,
                   seconds=round(time.perf_counter() - started, 1),
                   load=list(os.getloadavg()))
    if args.json:
        print(json.dumps(summary))
    else:
        _print(summary)
    return 0


def _engines(args: argparse.Namespace, game: str, names: list[str]) -> list[EngineSpec]:
    """The ``--engine`` programs, each started once and greeted to see that it can play
    (:class:`EngineError` in words if not: it won't start, or speaks another version)."""
    specs = [EngineSpec.parse(text) for text in getattr(args, "engine", None) or []]
    taken = set(names)
    for spec in specs:
        if spec.name in taken:
            raise ValueError(f"the engine name {spec.name!r} is taken; name it otherwise")
        taken.add(spec.name)
        probe = EngineBot(spec)
        try:
            said = probe.start()
        finally:
            probe.close()
        if game not in said.games:
            raise EngineError(f"engine {spec.name} ({said.name}) does not play {game}; "
                              f"it plays {', '.join(said.games)}")
        print(f"engine {spec.name}: {said.name}"
              + (f" by {said.author}" if said.author else "")
              + f", protocol {said.protocol}", file=sys.stderr, flush=True)
    return specs


def _print(summary: dict[str, object]) -> None:
    console = Console()
    if not console.is_terminal:
        console = Console(width=130)  # a file or a pipe: room for every column
    bots = summary["bots"]
    seats = summary["seats"]
    assert isinstance(bots, dict) and isinstance(seats, list)
    budget = summary["budget"] if summary["iterations"] is None else (
        f"{summary['iterations']} iterations")
    table = Table(title=f"{summary['games']} games, {summary['players']} players, "
                  f"hard budget {budget}")
    for column in ("bot", "games", "wins", "win %", "95% CI", "decisions",
                   "ms mean", "ms max", "cpu mean", "cpu max", ">1.2 budget"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for name, row in bots.items():
        low, high = row["ci95"]
        table.add_row(
            name, str(row["games"]), str(row["wins"]), f"{100 * row['win_rate']:.1f}%",
            f"{100 * low:.1f}-{100 * high:.1f}%", str(row["decisions"]),
            f"{row['ms_per_decision_mean']:.2f}", f"{row['ms_per_decision_max']:.1f}",
            f"{row['cpu_ms_per_decision_mean']:.2f}", f"{row['cpu_ms_per_decision_max']:.1f}",
            str(row["over_budget"]),
        )
    console.print(table)
    for name, row in bots.items():
        if row.get("iterations_per_search"):
            console.print(f"{name}: {row['searched_decisions']} searched decisions, "
                          f"{row['iterations_per_search']} iterations each on average")
    seat_table = Table(title="wins by seat (99% Wilson interval; chance is "
                       f"{100 / int(str(summary['players'])):.1f}%)")
    for column in ("seat", "wins", "win rate", "99% CI", "chance explains it"):
        seat_table.add_column(column, justify="right")
    for row in seats:
        low, high = row["ci99"]
        seat_table.add_row(str(row["seat"]), str(row["wins"]), f"{100 * row['win_rate']:.1f}%",
                           f"{100 * low:.1f}-{100 * high:.1f}%",
                           "yes" if row["chance_explains"] else "NO")
    console.print(seat_table)
    engines = summary.get("engines")
    for name, row in (engines.items() if isinstance(engines, dict) else ()):
        console.print(
            f"engine {name}: {row['answered']} of {row['decisions']} decisions answered "
            f"(answer ms mean {row['answer_ms_mean']}, median {row['answer_ms_p50']}, "
            f"95th {row['answer_ms_p95']}, max {row['answer_ms_max']}); the stand-in played "
            f"{row['stand_in']} ({row['too_slow']} too slow, {row['refused']} refused, "
            f"{row['crashes']} crashes)")
        for against, r in row.get("versus", {}).items():
            low, high = r["ci95"]
            console.print(f"  against {against}: {r['wins']} of {r['games']} "
                          f"({100 * r['win_rate']:.1f}%, 95% CI {100 * low:.1f}-{100 * high:.1f}%)")
    console.print(f"draws {summary['draws']} · {summary['seconds']} s · jobs {summary['jobs']}"
                  f" · load {', '.join(f'{x:.2f}' for x in summary['load'])}")  # type: ignore[attr-defined]

"""``stacks bench cluster``: a community of servers losing a node, measured.

Makes hosts of their own on this machine (network namespaces: needs root and iproute2),
a database host with PostgreSQL and three node hosts with a NATS cluster, then runs
``--rounds`` trials of each ``--kinds`` (`stacks.bench.cluster.trial`): two ``stacks serve
--node`` hold tables mid-game and the fault strikes one of them. Per kind it reports the
takeover time (from a table's lease's end to the first announcement of its new epoch the
eavesdropper hears), p50 and p99 over every table moved; the players' longest pause
(the longest silence of a table's seats' stream from the fault on until its game
over, and the longest a player's program waited, reconnecting included), p50 and worst
over the rounds; and the rounds that went wrong, with the words (a spectator's screen
in the real interface included: `stacks.bench.cluster.watcher`).

Nothing here is imported by the ``stacks`` parser but `add_bench_cluster_arguments`.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from stacks.argtypes import percentile, positive_int
from stacks.bench.cluster import KINDS as KIND_NAMES


def _kinds(text: str) -> list[str]:
    kinds = [word.strip() for word in text.split(",") if word.strip()]
    for kind in kinds:
        if kind not in KIND_NAMES:
            raise argparse.ArgumentTypeError(
                f"{kind!r} is not a trial kind: {', '.join(KIND_NAMES)}")
    return kinds


def add_bench_cluster_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``cluster`` to the ``stacks bench`` targets."""
    bench = targets.add_parser(
        "cluster", help="servers of one community losing a node: takeover time, pauses",
        description="Two `stacks serve --node` on hosts of their own (network namespaces; "
        "run as root) hold tables mid-game; one is killed (-9), cut off from the database, "
        "the broker or both, drained (SIGTERM), or the database restarts. Per kind: the "
        "takeover time from the lease's end (p50, p99) and the players' longest pause.")
    bench.add_argument("--rounds", type=positive_int, default=10,
                       help="trials of each kind (10)")
    bench.add_argument("--kinds", type=_kinds, default=list(KIND_NAMES),
                       help=f"comma-separated trial kinds ({','.join(KIND_NAMES)})")
    bench.add_argument("--tables", type=positive_int, default=2,
                       help="tables held by the node that fails, each trial (2)")
    bench.add_argument("--keep", metavar="DIR", type=Path,
                       help="keep the trials' logs in DIR (default: removed)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")


def _figures(kind: str, outcomes: list[Any]) -> dict[str, Any]:
    takeovers = sorted(t for outcome in outcomes for t in outcome.takeover_s)
    pauses = sorted(outcome.pause_s for outcome in outcomes)
    waits = sorted(outcome.player_pause_s for outcome in outcomes)
    failed = [{"round": i, "problems": outcome.problems}
              for i, outcome in enumerate(outcomes) if outcome.problems]
    return {
        "kind": kind,
        "rounds": len(outcomes),
        "tables_moved": len(takeovers),
        "takeover_p50_s": percentile(takeovers, 0.5) if takeovers else None,
        "takeover_p99_s": percentile(takeovers, 0.99) if takeovers else None,
        "takeover_max_s": takeovers[-1] if takeovers else None,
        "pause_p50_s": percentile(pauses, 0.5) if pauses else None,
        "pause_max_s": pauses[-1] if pauses else None,
        "player_wait_p50_s": percentile(waits, 0.5) if waits else None,
        "player_wait_max_s": waits[-1] if waits else None,
        "games": sum(outcome.tables for outcome in outcomes),
        "games_stored": sum(outcome.stored for outcome in outcomes),
        "records_verified": sum(outcome.verified for outcome in outcomes),
        "failed_rounds": failed,
    }


def _line(fig: dict[str, Any]) -> str:
    def s(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f} s"

    return (f"{fig['kind']:<11} rounds {fig['rounds']:>3}  takeover p50 "
            f"{s(fig['takeover_p50_s'])} p99 {s(fig['takeover_p99_s'])} "
            f"({fig['tables_moved']} tables)  seats' stream silent p50 "
            f"{s(fig['pause_p50_s'])} max {s(fig['pause_max_s'])}  player waited max "
            f"{s(fig['player_wait_max_s'])}  failed {len(fig['failed_rounds'])}")


def run(args: argparse.Namespace) -> int:
    from stacks.bench.cluster.harness import Cluster
    from stacks.bench.cluster.netns import unavailable
    from stacks.bench.cluster.trial import Trial

    # The eavesdropper's spectators would say every host's absence on stderr: the
    # trials' own report says what matters.
    logging.getLogger("netplay").setLevel(logging.ERROR)
    reason = unavailable()
    if reason is not None:
        print(f"stacks bench cluster: {reason}", file=sys.stderr)
        return 2
    folder = args.keep or Path(tempfile.mkdtemp(prefix="stacks-bench-cluster-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    figures = []
    with Cluster(3) as cluster:
        for kind in args.kinds:
            outcomes = []
            for i in range(args.rounds):
                tag = f"{kind.replace('-', '')[:6]}{i}"
                trial = Trial(cluster, kind, args.tables, folder / tag, tag=tag)
                outcome = trial.run(cluster.db.create(tag))
                if outcome.problems:
                    (folder / tag / "diagnostics.txt").write_text(
                        "\n".join(outcome.problems) + "\n\n" + trial.diagnostics())
                outcomes.append(outcome)
                if not args.json:
                    print(f"  {kind} round {i + 1}: takeover "
                          f"{[round(t, 2) for t in outcome.takeover_s]}, silent "
                          f"{outcome.pause_s:.2f} s, waited {outcome.player_pause_s:.2f} s"
                          + (f", PROBLEMS: {outcome.problems}" if outcome.problems else ""),
                          flush=True)
            figures.append(_figures(kind, outcomes))
            if not args.json:
                print(_line(figures[-1]), flush=True)
    report = {"machine": f"{platform.machine()}, {platform.system()} "
                         f"{platform.release()}, python {platform.python_version()}",
              "tables": args.tables, "seconds": round(time.monotonic() - started, 1),
              "logs": str(folder) if args.keep else None, "kinds": figures}
    if not args.keep:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(report))
    return 1 if any(fig["failed_rounds"] for fig in figures) else 0

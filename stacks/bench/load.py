"""``stacks bench load``: many tables at once on one broker (or a cluster's nodes).

N tables of four seats, each seat a bot peer with its own identity and connection, each
table with its host peer (journal included, as ``stacks host`` has), spread over K
worker processes. Every bot waits ``--pace`` seconds on average before each decision
(each wait drawn uniformly from half to one and a half times it, so that tables dealt
together do not act in step), so each table acts about every S seconds (0: as fast as it
can). For ``--seconds`` the run measures action -> own view (the bench net latency) over
all tables, actions/s, frames/s, and the CPU of the broker and of the peers; then the
bots play on at full speed so that every game ends and every peer checks the deal. Games
use short rules (a win at 3 chips, one of each colour) so that a run ends soon; the
protocol is the same.

Workers talk to this process over pipes: each says ``ready`` once its games are dealt,
all are told ``go`` together, and each ends with one JSON line of what it measured.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from stacks.argtypes import percentile
from stacks.progress import Bar
from tui.plural import counted

SEATS = 4


def add_bench_load_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    load = targets.add_parser(
        "load",
        help="many tables at once: latency, throughput and CPU under load",
        description="N concurrent tables of four bot seats (each its own identity) and a "
        "host each, over K worker processes, each table acting every S seconds on average "
        "(each wait drawn from S/2 to 3S/2, so that the tables are not in step). Reports "
        "action -> own view p50/p99 over all tables, actions/s and frames/s in all, and "
        "the CPU of the broker and of the peers; every game then finishes and is verified.",
    )
    load.add_argument("--tables", type=_count, default=20, help="concurrent tables (20)")
    load.add_argument(
        "--broker", action="append", metavar="URL",
        help="broker URL; repeat it (or separate with commas) to spread the tables and "
        "their seats over a cluster's nodes. 'mosquitto', 'nats' or 'nats-cluster' start "
        "that broker here (the shipped configs). Default: a Mosquitto of its own",
    )
    load.add_argument("--pace", type=float, default=2.0,
                      help="mean seconds a seat waits before it acts (each wait drawn from half to "
                      "one and a half times it); 0 = as fast as it can (2)")
    load.add_argument("--processes", type=_count, default=2,
                      help="worker processes the tables are spread over (2)")
    load.add_argument("--seconds", type=float, default=20.0,
                      help="length of the measured window (20)")
    load.add_argument("--json", action="store_true", help="print one JSON object")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


# -- the parent ----------------------------------------------------------------------------


def _cpu_seconds(pids: list[int]) -> float | None:
    """User + system CPU of ``pids`` so far (Linux /proc), or ``None`` where unknown."""
    if not pids:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


@contextlib.contextmanager
def _brokers(names: list[str]) -> Iterator[tuple[list[str], list[int], str]]:
    """The URLs to use, the pids of brokers started here, and a label."""
    if names in ([], ["mosquitto"]):
        from stacks.bench.net import broker_process

        with broker_process("mosquitto") as (url, pid):
            yield [url], [pid], "mosquitto (own, set_tcp_nodelay)"
        return
    if names in (["nats"], ["nats-cluster"]):
        from broker.nats_runner import NatsServers

        with NatsServers(3 if names == ["nats-cluster"] else 1) as servers:
            yield servers.urls, servers.pids, f"{names[0]} (own, shipped config)"
        return
    from netplay.transport import BrokerAddress

    for url in names:
        BrokerAddress.parse(url)
    yield names, [], ", ".join(BrokerAddress.parse(u).url for u in names)


def _raise_file_limit() -> None:
    # A thousand connections need more descriptors than the usual soft limit (1024), in
    # the broker started here (it inherits it) as in the workers.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))


def _exit_on_term(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def run_load(args: argparse.Namespace) -> int:
    names = [part.strip() for given in (args.broker or []) for part in given.split(",")
             if part.strip()]
    if args.pace < 0 or args.seconds <= 0:
        print("stacks bench load: --pace must be 0 or more and --seconds more than 0",
              file=sys.stderr)
        return 2
    _raise_file_limit()
    # Stopped by a signal (Ctrl-C, or a TERM from a script's timeout): unwind, so that
    # the workers are killed and the brokers started here stopped, not left running.
    previous = signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        with _brokers(names) as (urls, pids, label):
            report = _run(args, urls, pids)
    except (RuntimeError, ValueError, OSError) as exc:
        print(f"stacks bench load: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("stacks bench load: stopped; its brokers and workers are stopped too",
              file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    report["broker"] = label
    if args.json:
        print(json.dumps(report))
        return 0
    cpu = report["broker_cpu_percent"]
    print(
        f"{counted(report['tables'], 'table')} of {SEATS} seats on {label}, pace {args.pace} s, "
        f"{args.processes} worker processes, {report['seconds']} s measured "
        f"(load average {report['load_average']}):\n"
        f"  action -> own view: p50 {report['p50_ms']} ms, p99 {report['p99_ms']} ms, "
        f"max {report['max_ms']} ms over {report['actions']} actions\n"
        f"  {report['actions_per_s']} actions/s, {report['frames_per_s']} frames/s received "
        f"by the peers\n"
        f"  CPU: broker {'unknown (not started here)' if cpu is None else f'{cpu}%'}, "
        f"peers {report['peers_cpu_percent']}% (100% = one core), "
        f"{report['peer_cpu_ms_per_action']} ms of peer CPU an action\n"
        f"  set-up: {report['setup_seconds']} s, {report['setup_ms_per_table']} ms a table "
        f"(wall), {report['setup_cpu_ms_per_table']} ms of CPU a table\n"
        f"  {report['tables_finished']} of {report['tables']} games finished, "
        f"{report['tables_verified']} verified by every seat"
    )
    return 0 if report["tables_verified"] == report["tables"] else 1


def _run(args: argparse.Namespace, urls: list[str], pids: list[int]) -> dict[str, Any]:
    prefix = f"load{os.getpid() % 100000}"
    processes = min(args.processes, args.tables)
    shares = [list(range(k, args.tables, processes)) for k in range(processes)]
    started = time.perf_counter()
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "stacks.bench.load_worker", json.dumps({
                "urls": urls, "tables": share, "pace": args.pace, "seconds": args.seconds,
                "prefix": prefix,
            })],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        for share in shares
    ]
    try:
        for worker in workers:
            assert worker.stdout is not None
            line = worker.stdout.readline()
            if line.strip() != "ready":
                why = line.strip().removeprefix("failed: ") or "it stopped"
                raise RuntimeError(f"a worker could not seat its tables: {why} (is the "
                                   "broker up, and can it take this many?)")
        setup_wall = time.perf_counter() - started
        broker0 = _cpu_seconds(pids)
        for worker in workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()
        # The bars go to stderr when it is a terminal (stacks.progress), never to stdout.
        with Bar("measuring (seconds)", args.seconds) as bar:
            end = time.monotonic() + args.seconds
            while (left := end - time.monotonic()) > 0:
                time.sleep(min(0.5, left))
                bar.update(completed=args.seconds - max(0.0, end - time.monotonic()))
        broker1 = _cpu_seconds(pids)
        results = []
        with Bar("finishing and verifying the games", len(workers)) as bar:
            for worker in workers:
                assert worker.stdout is not None
                results.append(json.loads(worker.stdout.readline()))
                worker.wait(30)
                bar.advance()
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()
    latencies = sorted(lat for r in results for lat in r["latencies"])
    seconds = max(r["seconds"] for r in results)
    ms = [lat * 1000 for lat in latencies] or [0.0]
    broker_cpu = None if broker0 is None or broker1 is None else broker1 - broker0
    tables = sum(r["tables"] for r in results)
    peers_cpu = sum(r["cpu"] for r in results)
    return {
        "benchmark": "load",
        "tables": tables,
        "tables_finished": sum(r["finished"] for r in results),
        "tables_verified": sum(r["verified"] for r in results),
        "pace": args.pace,
        "processes": processes,
        "brokers": urls,
        "seconds": round(seconds, 2),
        "actions": len(latencies),
        "p50_ms": round(percentile(ms, 0.50), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "max_ms": round(ms[-1], 3),
        "actions_per_s": round(len(latencies) / seconds, 1),
        "frames_per_s": round(sum(r["frames"] for r in results) / seconds, 1),
        "broker_cpu_percent": None if broker_cpu is None
        else round(100 * broker_cpu / seconds, 1),
        "peers_cpu_percent": round(100 * peers_cpu / seconds, 1),
        "peer_cpu_ms_per_action": round(1000 * peers_cpu / max(1, len(latencies)), 3),
        "setup_ms_per_table": round(1000 * setup_wall / max(1, tables), 2),
        "setup_cpu_ms_per_table": round(
            1000 * sum(r["setup_cpu"] for r in results) / max(1, tables), 2),
        "setup_seconds": round(setup_wall, 2),
        "load_average": round(os.getloadavg()[0], 2),
        **_kinds_per_action(results, len(latencies)),
    }


def _kinds_per_action(results: list[dict[str, Any]], actions: int) -> dict[str, Any]:
    """Frames made and published by kind, per action, when the workers counted them
    (``STACKS_BENCH_LOAD_PROFILE``, see ``stacks.bench.load_worker``)."""
    counts: dict[str, int] = {}
    for result in results:
        for kind, count in result.get("frame_kinds", {}).items():
            counts[kind] = counts.get(kind, 0) + count
    if not counts:
        return {}
    return {"frame_kinds_per_action": {
        kind: round(count / max(1, actions), 3)
        for kind, count in sorted(counts.items(), key=lambda item: -item[1])}}


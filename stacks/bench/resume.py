"""``stacks bench resume``: from ``stacks host --resume`` to the first new batch a peer sees.

Each round hosts a table (``stacks host --headless`` in its own process, one bot of its
own) on a broker in its own process; two bot peers of this process play at it. At a
batch of the game the host is killed (SIGKILL); then ``stacks host --resume TABLE`` is
started and timed until one of the peers applies a batch numbered above the last one in
the journal: process start, replay of the journal, reconnect, re-announce, the peers'
re-join and the next move all included. Also measured: one journal append + fsync, the
cost the host adds to every batch it publishes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from netplay.identity import Identity
from netplay.journal import JournalFile, list_tables, read_entries
from netplay.player_peer import BotPeer
from stacks.argtypes import percentile
from stacks.bench.net import broker_process


def _stacks(*args: str) -> list[str]:
    return [sys.executable, "-m", "stacks.cli", *args]


async def _wait(condition: object, what: str, timeout: float = 60.0) -> None:
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise RuntimeError(f"bench resume: timed out waiting for {what}")
        await asyncio.sleep(0.005)


async def _round(url: str, table: str, kill_at: int, env: dict[str, str]) -> dict[str, float]:
    host = subprocess.Popen(
        _stacks("host", "--headless", "--broker", url, "--table", table, "--players", "3",
                "--bots", "1", "--bot-delay", "0", "--block-window", "0.3",
                "--record", os.devnull),
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    resumed: subprocess.Popen[bytes] | None = None
    try:
        async with contextlib.AsyncExitStack() as stack:
            peers = [await stack.enter_async_context(
                BotPeer(Identity.generate(), table, broker=url, name=f"p{i}", think=0.01))
                for i in range(2)]
            await _wait(lambda: min(p.player.applied for p in peers) >= kill_at,
                        f"batch {kill_at}")
            host.send_signal(signal.SIGKILL)
            host.wait(10)
            (journal,) = list_tables(folder=Path(env["STACKS_HOME"]) / "data" / "tables",
                                     table=table)
            entries, _ = read_entries(journal.path)
            last = max(e["n"] for e in entries if e["t"] == "batch")
            started = time.perf_counter()
            resumed = subprocess.Popen(
                _stacks("host", "--headless", "--resume", table, "--broker", url),
                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            )
            await _wait(lambda: max(p.player.applied for p in peers) > last,
                        "the first new batch")
            elapsed = time.perf_counter() - started
    finally:
        for proc in (host, resumed):
            if proc is not None and proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(10)
    assert resumed is not None and resumed.stdout is not None
    said = resumed.stdout.read().decode(errors="replace")
    replay = re.search(r"replayed and checked in (\d+) ms", said)
    return {"resume_to_first_batch_ms": elapsed * 1000.0, "journal_batches": last,
            "replay_ms": float(replay.group(1)) if replay else None}


def _fsync_cost(rounds: int) -> list[float]:
    """Microseconds per journal append + fsync of one batch-sized entry."""
    entry = {"t": "batch", "n": 1, "action": {"kind": "play", "seat": 1, "card": 17, "pile": 3},
             "proof": os.urandom(180), "standin": False, "hash": "ab" * 16}
    with tempfile.TemporaryDirectory() as tmp:
        journal = JournalFile.create("bench", folder=Path(tmp))
        costs = []
        try:
            for n in range(rounds):
                entry["n"] = n
                started = time.perf_counter()
                journal.append([entry])
                costs.append((time.perf_counter() - started) * 1e6)
        finally:
            journal.close()
    return costs


async def _measure(args: argparse.Namespace) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as home, broker_process(args.broker) as (url, _pid):
        env = {**os.environ, "STACKS_HOME": home}
        rounds = []
        for index in range(args.rounds):
            rounds.append(await _round(url, f"bench-{index}", args.kill_at, env))
    times = [r["resume_to_first_batch_ms"] for r in rounds]
    costs = sorted(_fsync_cost(args.appends))
    replays = [r["replay_ms"] for r in rounds if r.get("replay_ms") is not None]
    return {
        "broker": args.broker,
        "rounds": len(rounds),
        "kill_at_batch": args.kill_at,
        "resume_to_first_batch_ms": {
            "p50": round(statistics.median(times), 1), "min": round(min(times), 1),
            "max": round(max(times), 1),
        },
        "replay_ms_p50": round(statistics.median(replays), 1) if replays else None,
        "journal_append_fsync_us": {
            "p50": round(percentile(costs, 0.5), 1), "p99": round(percentile(costs, 0.99), 1),
        },
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def run(args: argparse.Namespace) -> int:
    # The peers here see their host die on purpose: that is not news for the terminal.
    logging.getLogger("netplay").setLevel(logging.ERROR)
    try:
        result = asyncio.run(_measure(args))
    except (RuntimeError, OSError) as exc:
        print(f"stacks bench resume: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
        return 0
    console = Console()
    resume = result["resume_to_first_batch_ms"]
    fsync = result["journal_append_fsync_us"]
    assert isinstance(resume, dict) and isinstance(fsync, dict)
    console.print(f"`stacks host --resume` to the first new batch a peer applied, "
                  f"{result['rounds']} rounds on {result['broker']} (host killed at batch "
                  f"{result['kill_at_batch']}): p50 {resume['p50']} ms, min {resume['min']} "
                  f"ms, max {resume['max']} ms")
    console.print(f"of which the journal's replay (through the engine, hashes checked): "
                  f"p50 {result['replay_ms_p50']} ms")
    console.print(f"journal append + fsync per batch: p50 {fsync['p50']} µs, "
                  f"p99 {fsync['p99']} µs")
    console.print(f"load average {result['load_average']}")
    return 0

"""``stacks bench catchup``: how fast a late spectator catches up on a long game.

A host in its own process (as ``stacks host`` runs) plays a bot-only game at full speed
on a broker of its own (Mosquitto, or the embedded one in its own process) until it has
published ``--batches`` batches, then goes on at a human pace (one action every
``--pace`` seconds: the game is live, so the host's live budgets apply, not its
after-the-end allowance). A spectator then joins (in this process) and the bench times
how long it takes to have applied, in order and each checked against its hash, every
batch the game had when it joined: batches/s from its start to caught up (join
included) and from its first batch to its last. The game then ends at full speed and the
spectator must verify the whole deal. The host reports the CPU it spent while the
spectator caught up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import subprocess
import sys
import time
from typing import IO, Any

SEATS = 6
WIN_CHIPS, WIN_EACH = 100, 25
"""Chips to win, and of each colour, in a long game (unlimited chips): at six seats,
1,400 to 3,900 batches (it may end in a stalemate)."""
TABLE = "catchup"


def add_bench_catchup_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = targets.add_parser(
        "catchup",
        help="a late spectator catching up on a long game: batches/s",
        description="A bot-only game plays N batches at full speed in a host process of its "
        "own, then goes on at a human pace; a spectator joins late and the bench times its "
        "catch-up (every batch applied in order and checked), then checks that it verifies "
        "the whole game.",
    )
    parser.add_argument("--batches", type=int, default=1500,
                        help="batches played before the spectator joins (1500; a game of "
                        "these rules has 1,400 to 3,900)")
    parser.add_argument("--broker", choices=("mosquitto", "embedded"), default="mosquitto",
                        help="the broker, started here in its own process (mosquitto)")
    parser.add_argument("--pace", type=float, default=1.0,
                        help="seconds between the host bots' actions while the spectator "
                        "catches up (1)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds the spectator may take to catch up (300)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


# -- the host's process -----------------------------------------------------------------------


async def _host_worker(url: str, batches: int, pace: float) -> None:
    from engine.config import RulesConfig
    from netplay.host import HostSettings
    from netplay.host_peer import Host
    from netplay.hosts import fingerprint

    settings = HostSettings(
        TABLE, SEATS, bots=("easy",) * SEATS,
        rules=RulesConfig(win_chips=WIN_CHIPS, win_min_each_colour=WIN_EACH, unlimited_chips=True),
        block_window=0.2, race_settle=0.05,
    )
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()
    loop.add_reader(sys.stdin.fileno(), lambda: lines.put_nowait(sys.stdin.readline()))
    host = Host(settings, broker=url)
    session = host.host
    async with host:
        while len(session.batches) < batches and not session.over:
            await asyncio.sleep(0.01)
        # Live from here on, at a human pace: the host's budgets for a game in play.
        session.settings = dataclasses.replace(settings, bot_delay=pace)
        _say({"ready": len(session.batches), "over": session.over,
              "pin": f"{TABLE}@{fingerprint(host.identity.key)}"})
        cpu = time.process_time()
        await lines.get()  # "finish": the spectator caught up
        cpu = time.process_time() - cpu
        session.settings = settings
        while not session.over:
            await asyncio.sleep(0.01)
        _say({"cpu": cpu, "total": len(session.batches)})
        await lines.get()  # "close": the spectator verified (or gave up)
    loop.remove_reader(sys.stdin.fileno())


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


# -- this process: the broker, the host's process, the spectator -------------------------------


def _read(stream: IO[str], timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            raise RuntimeError("the host process ended before it said what it measured")
        with contextlib.suppress(ValueError):
            message = json.loads(line)
            if isinstance(message, dict):
                return message
    raise RuntimeError("the host process said nothing in time")


async def _spectate(url: str, pin: str, ready: int, timeout: float,
                    host: subprocess.Popen[str]) -> dict[str, Any]:
    from netplay.identity import Identity
    from netplay.player_peer import Spectator
    from netplay.playing.notices import Applied, Verified

    assert host.stdin is not None and host.stdout is not None
    start = time.perf_counter()
    first: float | None = None
    caught_up: float | None = None
    applied = 0
    in_order = True
    verdict = None
    # Pinned (as a user who was given TABLE@FINGERPRINT): no listening for other hosts
    # before the join, so the time is the catch-up's.
    spectator = Spectator(Identity.generate(), pin, "late", broker=url)
    async with spectator:
        async def follow() -> None:
            nonlocal first, caught_up, applied, in_order, verdict
            async for notice in spectator.notices():
                if isinstance(notice, Applied):
                    if first is None:
                        first = time.perf_counter()
                    in_order = in_order and notice.n == applied + 1
                    applied = notice.n
                    if caught_up is None and applied >= ready:
                        caught_up = time.perf_counter()
                        host.stdin.write("finish\n")  # type: ignore[union-attr]
                        host.stdin.flush()  # type: ignore[union-attr]
                elif isinstance(notice, Verified):
                    verdict = notice.verdict
                    return

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(follow(), timeout)
    result: dict[str, Any] = {
        "batches": ready, "applied": applied, "in_order": in_order,
        "verified": verdict is not None and verdict.ok,
    }
    if caught_up is not None and first is not None:
        result["seconds"] = round(caught_up - start, 3)
        result["batches_per_s"] = round(ready / (caught_up - start), 1)
        result["batches_per_s_from_first"] = round(
            (ready - 1) / max(caught_up - first, 1e-9), 1)
    return result


def run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from stacks.bench.net import broker_process

    console = Console()
    with broker_process(args.broker) as (url, _):
        host = subprocess.Popen(
            [sys.executable, "-m", "stacks.bench.catchup", "host-worker", url, str(args.batches),
             str(args.pace)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        assert host.stdout is not None and host.stdin is not None
        try:
            if not args.json:
                console.print(f"playing {args.batches} batches at full speed…")
            ready = _read(host.stdout, args.timeout)
            if ready.get("over"):
                raise SystemExit(f"the game ended after {ready['ready']} batches, before "
                                 f"{args.batches}: ask for fewer")
            result = asyncio.run(_spectate(url, str(ready["pin"]), int(ready["ready"]),
                                           args.timeout, host))
            if "seconds" not in result:  # never caught up: the host still waits for it
                host.stdin.write("finish\n")
                host.stdin.flush()
            said = _read(host.stdout, args.timeout)
            host.stdin.write("close\n")
            host.stdin.flush()
            host.wait(30)
        finally:
            if host.poll() is None:
                host.kill()
                host.wait()
    result["host_cpu_s"] = round(float(said["cpu"]), 3)
    result["game_batches"] = said["total"]
    result["broker"] = args.broker
    result["load"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result))
    else:
        rate = result.get("batches_per_s")
        console.print(
            f"late spectator: caught up on {result['batches']} batches in "
            f"{result.get('seconds', 'more than the timeout')} s"
            + (f" = {rate:,.0f} batches/s ({result['batches_per_s_from_first']:,.0f} from the "
               "first batch)" if rate else "")
            + f"; in order: {result['in_order']}; the whole game ({result['game_batches']} "
            f"batches) verified: {result['verified']}; "
            f"host CPU while it caught up: {result['host_cpu_s']} s "
            f"(load {result['load']:.2f})")
    return 0 if result["verified"] and "seconds" in result else 1


def main(argv: list[str]) -> int:
    """``python -m stacks.bench.catchup [OPTIONS]`` (the bench), or ``host-worker URL N
    PACE`` (its host's process)."""
    if argv[:1] == ["host-worker"]:
        asyncio.run(_host_worker(argv[1], int(argv[2]), float(argv[3])))
        return 0
    parser = argparse.ArgumentParser(prog="stacks bench")
    add_bench_catchup_arguments(parser.add_subparsers(dest="target", required=True))
    return run(parser.parse_args(["catchup", *argv]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

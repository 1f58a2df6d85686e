"""``stacks bench offline``: from a host's death to "host offline" shown.

Each round hosts a table (``stacks host --headless`` in its own process, one bot of its
own) on a Mosquitto this command starts; a seated player of this process and a
``stacks watch --headless`` process follow the game. Then the host is killed (SIGKILL:
the broker publishes its last will) or frozen (SIGSTOP: its will comes when the broker's
keepalive check drops it, the host connecting with a 2 s keepalive, or else the peers'
own timeout finds it: ``HOST_SILENT``, or ``REST_HOST_SILENT`` at a table whose host
rests because its probe found that the broker fires such wills), and the time
is taken until the player's session reports :class:`HostOffline` (the interface shows it
at its next check, every ``CHECK_EVERY`` s) and until the spectator process prints "host
offline since ...".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO

from netplay.identity import Identity
from netplay.player_peer import Player
from netplay.playing.liveness import HOST_SILENT, REST_HOST_SILENT
from stacks.bench.net import broker_process
from tui.session import CHECK_EVERY

KINDS = ("kill", "freeze")


def _stacks(*args: str) -> list[str]:
    return [sys.executable, "-m", "stacks.cli", *args]


class _Lines:
    """Lines of a child's stream, each with the moment it was read."""

    def __init__(self, stream: IO[str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: IO[str]) -> None:
        for line in stream:
            self.lines.append((time.perf_counter(), line))

    def first(self, text: str) -> float | None:
        return next((at for at, line in self.lines if text in line), None)


async def _wait(condition: object, what: str, timeout: float) -> None:
    assert callable(condition)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise RuntimeError(f"bench offline: timed out waiting for {what}")
        await asyncio.sleep(0.002)


async def _round(url: str, table: str, kind: str, env: dict[str, str]) -> dict[str, float]:
    host = subprocess.Popen(
        _stacks("host", "--headless", "--broker", url, "--table", table, "--players", "2",
                "--bots", "1", "--bot-delay", "0.2", "--turn-clock", "0",
                "--record", os.devnull, "--profile", f"{table}-host"),
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    watch = subprocess.Popen(
        _stacks("watch", table, "--headless", "--broker", url, "--host-timeout", "600",
                "--profile", f"{table}-watch"),
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert watch.stdout is not None and watch.stderr is not None
    out, err = _Lines(watch.stdout), _Lines(watch.stderr)
    try:
        async with Player(Identity.generate(), table, "bench", broker=url) as player:
            session = player.player
            await _wait(lambda: session.view is not None and bool(out.lines),
                        "the game, seen by the player and the spectator", 60.0)
            await asyncio.sleep(0.5)  # mid-heartbeat, like any moment
            started = time.perf_counter()
            os.kill(host.pid, signal.SIGKILL if kind == "kill" else signal.SIGSTOP)
            await _wait(lambda: session.host_offline, "the player's HostOffline",
                        HOST_SILENT + 30.0)
            noticed = time.perf_counter()
            await _wait(lambda: err.first("host offline since") is not None,
                        "the spectator's line", HOST_SILENT + 30.0)
            printed = err.first("host offline since")
            assert printed is not None
    finally:
        for proc in (host, watch):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGKILL)
                proc.wait(10)
    return {"player_ms": (noticed - started) * 1000.0,
            "watch_ms": (printed - started) * 1000.0}


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 1), "min": round(min(values), 1),
            "max": round(max(values), 1)}


async def _measure(args: argparse.Namespace) -> dict[str, object]:
    result: dict[str, object] = {"broker": "mosquitto", "rounds": args.rounds,
                                 "host_silent_s": HOST_SILENT,
                                 "interface_check_every_s": CHECK_EVERY}
    with tempfile.TemporaryDirectory() as home, broker_process("mosquitto") as (url, _pid):
        env = {**os.environ, "STACKS_HOME": home, "HOME": home}
        for kind in KINDS:
            rounds = [await _round(url, f"bench-{kind}-{i}", kind, env)
                      for i in range(args.rounds)]
            result[kind] = {"player_ms": _summary([r["player_ms"] for r in rounds]),
                            "watch_ms": _summary([r["watch_ms"] for r in rounds])}
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    return result


def run(args: argparse.Namespace) -> int:
    # The peers here see their host die on purpose: that is not news for the terminal.
    logging.getLogger("netplay").setLevel(logging.ERROR)
    try:
        result = asyncio.run(_measure(args))
    except (RuntimeError, OSError) as exc:
        print(f"stacks bench offline: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result))
        return 0
    words = {"kill": "after kill -9 (the broker's last will)",
             "freeze": f"after SIGSTOP (the will, when the broker's keepalive check drops "
                       f"the host, or the peers' heartbeat timeout: {HOST_SILENT:g} s, "
                       f"{REST_HOST_SILENT:g} s while the host rests)"}
    print(f"host death to \"host offline\", {args.rounds} rounds each on Mosquitto:")
    for kind in KINDS:
        figures = result[kind]
        assert isinstance(figures, dict)
        player, watch = figures["player_ms"], figures["watch_ms"]
        print(f"  {words[kind]}: player session p50 {player['p50']} ms (min {player['min']}, "
              f"max {player['max']}); `stacks watch --headless` line p50 {watch['p50']} ms "
              f"(min {watch['min']}, max {watch['max']})")
    print(f"  the interface shows the player's notice at its next check (every "
          f"{CHECK_EVERY:g} s); load average {result['load_average']}")
    return 0

"""``stacks bench net``: action -> own view updated, over a real broker.

The broker and the host each run in their own process (as in a real game); this process
is one player that plays greedy against the host's bot and times every action from the
moment it is handed to the transport to the moment the batch it caused has been applied
to the player's own view.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from engine.actions import Action
from netplay.identity import Identity
from netplay.player_peer import BotPeer
from netplay.playing.notices import Applied, Notice
from netplay.transport import Arrivals, MqttTransport
from stacks.argtypes import percentile
from stacks.bench.echo import measure_floor


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")


MOSQUITTO_BENCH_CONF = """listener {port} 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 20000
set_tcp_nodelay true
"""


@contextlib.contextmanager
def broker_process(kind: str) -> Iterator[tuple[str, int]]:
    """Start ``embedded`` or ``mosquitto`` in its own process; yield its URL and pid."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "mosquitto":
            exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
            if not os.path.exists(exe):
                raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
            conf = Path(tmp) / "mosquitto.conf"
            conf.write_text(MOSQUITTO_BENCH_CONF.format(port=port))
            cmd = [exe, "-c", str(conf)]
        else:
            cmd = [sys.executable, "-m", "stacks.cli", "broker", "--bind", f"127.0.0.1:{port}"]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for_port(port)
            yield f"mqtt://127.0.0.1:{port}", proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()


class _Stamped(Arrivals):
    """The transport's queue of received messages, noting when the first one on ``topic``
    came in after :meth:`arm`."""

    def __init__(self, topic: str) -> None:
        super().__init__()
        self.topic = topic
        self.arrived: float | None = None
        self._armed = False

    def arm(self) -> None:
        self._armed, self.arrived = True, None

    def put(self, item: tuple[str, bytes]) -> None:
        if self._armed and item[0] == self.topic:
            self.arrived, self._armed = time.perf_counter(), False
        super().put(item)


class _TimingBot(BotPeer):
    """A greedy player that records action -> own-view latencies (seconds), and splits each
    in two: until the host's answer reached this process (out through the broker, the
    host, back through the broker), and from there to the view updated (this peer)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.samples: list[float] = []
        self.stages: list[tuple[float, float]] = []
        self._sent: tuple[Action, float] | None = None
        self._stamps: _Stamped | None = None
        if isinstance(self.transport, MqttTransport):
            self._stamps = _Stamped(self.player.topics.inbox(self.identity.peer_id))
            self.transport._incoming = self._stamps

    def _acted(self, action: Action) -> None:
        if self._stamps is not None:
            self._stamps.arm()
        self._sent = (action, time.perf_counter())

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, Applied) and self._sent and notice.action == self._sent[0]:
            now = time.perf_counter()
            self.samples.append(now - self._sent[1])
            arrived = self._stamps.arrived if self._stamps is not None else None
            if arrived is not None and self._sent[1] <= arrived <= now:
                self.stages.append((arrived - self._sent[1], now - arrived))
            self._sent = None
        super()._on_notice(notice)


async def _one_game(url: str, table: str, records: Path) -> _TimingBot:
    host = subprocess.Popen(
        [sys.executable, "-m", "stacks.cli", "host", "--headless", "--players", "2", "--bots", "1",
         "--table", table, "--broker", url, "--block-window", "1", "--verify-wait", "1",
         "--record", str(records / f"{table}.json")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        bot = _TimingBot(Identity.generate(), table, broker=url, name="bench")
        async with bot:
            await asyncio.wait_for(bot.ended.wait(), 120)
        return bot
    finally:
        try:
            host.wait(10)
        except subprocess.TimeoutExpired:
            host.kill()


@dataclass
class _Measured:
    samples: list[float]
    stages: list[tuple[float, float]]
    games: int
    floor: list[float]


async def _measure(url: str, actions: int) -> _Measured:
    """Action samples and their stages, games played, and floor samples (half before,
    half after)."""
    floor_count = max(200, actions // 3)
    floor = await measure_floor(url, floor_count // 2)
    samples: list[float] = []
    stages: list[tuple[float, float]] = []
    games = 0
    with tempfile.TemporaryDirectory(prefix="stacks-bench-") as records:
        while len(samples) < actions:
            games += 1
            bot = await _one_game(url, f"bench{os.getpid()}g{games}", Path(records))
            samples += bot.samples
            stages += bot.stages
    floor += await measure_floor(url, floor_count - floor_count // 2)
    return _Measured(samples, stages, games, floor)


def _stage_fields(stages: list[tuple[float, float]]) -> dict[str, float]:
    """p50/p99 of each half of an action's trip: ``answer`` (sent until the host's answer
    is in this process: broker, host, broker) and ``apply`` (from there to the view)."""
    out: dict[str, float] = {}
    for index, name in enumerate(("answer", "apply")):
        values = sorted(stage[index] for stage in stages)
        if values:
            out[f"{name}_p50_ms"] = round(percentile(values, 0.50) * 1000, 3)
            out[f"{name}_p99_ms"] = round(percentile(values, 0.99) * 1000, 3)
    return out


def run_net(args: argparse.Namespace) -> int:
    kind = args.broker
    try:
        if kind in ("embedded", "mosquitto"):
            with broker_process(kind) as (url, _pid):
                measured = asyncio.run(_measure(url, args.actions))
        else:
            measured = asyncio.run(_measure(kind, args.actions))
    except RuntimeError as exc:
        print(f"stacks bench net: {exc}", file=sys.stderr)
        return 2
    samples, games, floor = measured.samples, measured.games, measured.floor
    ordered = sorted(samples)
    p50, p99 = percentile(ordered, 0.50) * 1000, percentile(ordered, 0.99) * 1000
    report: dict[str, object] = {
        "benchmark": "net",
        "broker": kind,
        "actions": len(samples),
        "games": games,
        "p50_ms": round(p50, 3),
        "p90_ms": round(percentile(ordered, 0.90) * 1000, 3),
        "p99_ms": round(p99, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
        "mean_ms": round(statistics.fmean(ordered) * 1000, 3),
    }
    floor_sorted = sorted(floor)
    floor_p50 = percentile(floor_sorted, 0.50) * 1000
    floor_p99 = percentile(floor_sorted, 0.99) * 1000
    report |= {
        "floor_echoes": len(floor),
        "floor_p50_ms": round(floor_p50, 3),
        "floor_p99_ms": round(floor_p99, 3),
        "ratio_p50": round(p50 / floor_p50, 2),
        "ratio_p99": round(p99 / floor_p99, 2),
        **_stage_fields(measured.stages),
        "load_average": round(os.getloadavg()[0], 2),
    }
    if args.json:
        print(json.dumps(report))
    else:
        Console().print(
            f"action -> own view updated over {kind} ({report['actions']} actions, "
            f"{games} games): p50 {report['p50_ms']} ms, p90 {report['p90_ms']} ms, "
            f"p99 {report['p99_ms']} ms, max {report['max_ms']} ms\n"
            f"floor (two-hop QoS 1 echo, player -> echo process -> player, "
            f"{report['floor_echoes']} echoes): p50 {report['floor_p50_ms']} ms, "
            f"p99 {report['floor_p99_ms']} ms\n"
            f"ratio to the floor: p50 {report['ratio_p50']}x, p99 {report['ratio_p99']}x "
            f"(load average {report['load_average']})\n"
            f"of which: until the host's answer is in (broker, host, broker) p50 "
            f"{report.get('answer_p50_ms')} ms, p99 {report.get('answer_p99_ms')} ms; "
            f"from there to the view updated p50 {report.get('apply_p50_ms')} ms, "
            f"p99 {report.get('apply_p99_ms')} ms"
        )
    return 0

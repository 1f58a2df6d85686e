"""The worker process of ``stacks bench load`` (see ``stacks.bench.load``): it runs
its share of the tables in one event loop, says ``ready`` once they are dealt, measures
from ``go`` for the window, lets the games finish, and prints one JSON line."""

from __future__ import annotations

import asyncio
import collections
import cProfile
import gc
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.actions import Action
from engine.config import RulesConfig
from netplay import wire
from netplay.codec import frame_type
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.journal import JournalFile
from netplay.player_peer import BotPeer
from netplay.playing.notices import Applied, Notice
from netplay.transport import MqttTransport
from netplay.wire import Outgoing

SHORT_RULES = RulesConfig(win_chips=3, win_min_each_colour=1)
SEATS = 4
STAGE = 10
"""Tables a worker seats at a time (see ``_worker``)."""
STAGE_WAIT = 60.0
"""Seconds a group of tables gets to be dealt."""
FINISH_WAIT = 300.0
"""Seconds the games get to finish at full speed after the measured window."""
FREEZE_EVERY = 1.0
"""Seconds between two ``gc.freeze()`` of what the worker's peers keep (see
:func:`_keep_collections_small`)."""


async def _keep_collections_small() -> None:
    """Move what is alive now out of the cyclic collector's reach, every second.

    A worker stands for hundreds of peer processes. Each of those would collect only its
    own table's objects; the worker's collector walks all of them at once, and holds up
    every table of the process while it does: with a hundred tables a worker, its older
    generations took 17-50 ms a collection and a full one up to 0.4 s, p99 measured those
    pauses, not the action's path. What the peers keep (views, histories, connections)
    lives on; the garbage they make is freed by reference counting (a transport makes no
    reference cycles, ``netplay.mqtt_packets.NoFilters``)."""
    while True:
        await asyncio.sleep(FREEZE_EVERY)
        gc.freeze()


class _LoadBot(BotPeer):
    """A seat that records (sent at, action -> own view) for its own actions.

    Each wait before a decision is drawn uniformly from half to one and a half times
    ``think``: the tables act every ``think`` seconds on average, as independent tables
    of people do, and not in step. With a fixed wait, tables dealt together (or all held
    up by one stall of their process) kept acting together, in one burst per period,
    and the bench measured the burst's queue instead of the path."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.samples: list[tuple[float, float]] = []
        self._sent: tuple[Action, float] | None = None

    def _think_time(self) -> float:
        return self.think * random.uniform(0.5, 1.5)

    def _acted(self, action: Action) -> None:
        self._sent = (action, time.perf_counter())

    def _on_notice(self, notice: Notice) -> None:
        sent = self._sent
        if isinstance(notice, Applied) and sent is not None and notice.action == sent[0]:
            self.samples.append((sent[1], time.perf_counter() - sent[1]))
            self._sent = None
        super()._on_notice(notice)


PROFILE_ENV = "STACKS_BENCH_LOAD_PROFILE"
"""Set to a folder: each worker writes a cProfile of its measured window there, and its
report counts the frames its peers made and published by kind (``frame_kinds``). A bench
aid only: counting costs a little, so it is off unless asked for."""


class _Kinds:
    """Frames made (by type, sealed or signed) and published (by topic and QoS) by a
    worker's peers, counted only while ``on``."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()
        self.on = False

    def install(self) -> None:
        """Count the frames ``netplay.wire.Sender`` makes, by how and what: its encoders
        wrapped where it looks them up (the type is the third argument, or the fourth
        for the sealed ones, which take a recipient first)."""
        names = vars(wire)
        for name, how, at in (("encode", "signed", 2), ("encode_sealed", "sealed", 3),
                              ("encode_boxes", "boxes", 3)):
            names[name] = self._counting(names[name], how, at)

    def _counting(
        self, encoder: Callable[..., bytes], how: str, at: int
    ) -> Callable[..., bytes]:
        counts = self.counts

        def counted(*args: Any, **kwargs: Any) -> bytes:
            if self.on:
                counts[f"made {how} {args[at]}"] += 1
            return encoder(*args, **kwargs)

        return counted

    def watch(self, transport: MqttTransport, who: str) -> None:
        publish = transport.publish
        counts = self.counts

        def counted(out: Outgoing) -> None:
            if self.on:
                parts = out.topic.split("/")
                where = parts[3] if parts[3] != "peer" else f"peer/{parts[5]}"
                kind = frame_type(out.payload) or "?"
                counts[f"sent {who} {where} {kind} qos{out.qos}"] += 1
            publish(out)

        transport.publish = counted  # type: ignore[method-assign]


@dataclass
class _Table:
    host: Host
    seats: list[_LoadBot]


def _frames(tables: list[_Table]) -> int:
    total = 0
    for table in tables:
        for peer in (table.host, *table.seats):
            if isinstance(peer.transport, MqttTransport):
                total += peer.transport.frames_in
    return total


def _not_dealt(stage: list[_Table], first: int) -> str:
    peers = [peer for table in stage for peer in (table.host, *table.seats)]
    away = [peer for peer in peers if not peer.transport.connected.is_set()]
    if away:
        return (f"{len(away)} of {len(peers)} peers could not connect to the broker in "
                f"{STAGE_WAIT:.0f} s")
    return (f"tables {first + 1}-{first + len(stage)} of this worker were not dealt "
            f"within {STAGE_WAIT:.0f} s")


async def _worker(spec: dict[str, Any]) -> dict[str, Any]:
    urls: list[str] = spec["urls"]
    pace: float = spec["pace"]
    # Longer than the longest wait (1.5 x pace): a seat may still answer a Block window.
    window = min(60.0, 1.5 * pace + 1.0) if pace > 0 else 0.3
    tables: list[_Table] = []
    keeper: asyncio.Task[None] | None = None
    profile_dir = os.environ.get(PROFILE_ENV)
    kinds = _Kinds() if profile_dir else None
    if kinds is not None:
        kinds.install()
    setup_wall0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="stacks-load-") as tmp:
        for index in spec["tables"]:
            name = f"{spec['prefix']}t{index}"
            node = index % len(urls)
            settings = HostSettings(name, SEATS, rules=SHORT_RULES, block_window=window)
            journal = JournalFile.create(name, folder=Path(tmp), broker=urls[node])
            host = Host(settings, broker=urls[node], journal=journal)
            # Seats on the other nodes of a cluster: events cross the cluster's routes. Each
            # is given the host's fingerprint, as `stacks tables` shows it to a person: a
            # pinned seat joins at once, where a bare table name listens a second first
            # (netplay.playing.joining.SETTLE), and that second was most of a table's set-up.
            pinned = f"{name}@{fingerprint(host.identity.key)}"
            seats = [_LoadBot(Identity.generate(), pinned,
                              broker=urls[(node + 1 + s) % len(urls)],
                              name=f"seat{s}", think=pace) for s in range(SEATS)]
            tables.append(_Table(host, seats))
            if kinds is not None:
                for who, peer in (("host", host), *(("seat", seat) for seat in seats)):
                    assert isinstance(peer.transport, MqttTransport)
                    kinds.watch(peer.transport, who)
        try:
            # A few tables at a time, each group dealt before the next comes, as tables
            # come to a broker in use: all at once, a three-node NATS cluster had to set
            # up some 1,500 QoS 1 subscriptions (a JetStream consumer each) within
            # seconds, timed its requests out, refused them, and no table was dealt.
            for first in range(0, len(tables), STAGE):
                stage = tables[first:first + STAGE]
                for table in stage:
                    await table.host.__aenter__()
                await asyncio.gather(*(seat.__aenter__() for t in stage for seat in t.seats))
                deadline = time.monotonic() + STAGE_WAIT
                while not all(t.host.host.game is not None for t in stage):
                    if time.monotonic() > deadline:
                        raise RuntimeError(_not_dealt(stage, first))
                    await asyncio.sleep(0.05)
            # Hundreds of peers are set up: their objects are there to stay, and a full
            # collection walking them all would stall every table of the process at once.
            gc.collect()
            gc.freeze()
            keeper = asyncio.create_task(_keep_collections_small())
            # Set-up: the process's CPU from its start (the imports included: a host
            # process pays them too), and the wall time from the first table to the last
            # one dealt.
            setup_cpu = time.process_time()
            setup_wall = time.perf_counter() - setup_wall0
            print("ready", flush=True)
            if not await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline):
                raise _ParentGone  # the end of its pipe: no "go" will come
            profiler = cProfile.Profile() if profile_dir else None
            if kinds is not None:
                kinds.on = True
            if profiler is not None:
                profiler.enable()
            start, cpu0, frames0 = time.perf_counter(), time.process_time(), _frames(tables)
            await asyncio.sleep(spec["seconds"])
            end, cpu1, frames1 = time.perf_counter(), time.process_time(), _frames(tables)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(str(Path(profile_dir or ".") / f"worker-{os.getpid()}.prof"))
            if kinds is not None:
                kinds.on = False
            for table in tables:
                for seat in table.seats:
                    seat.think = 0.0
            finish = time.monotonic() + FINISH_WAIT
            while time.monotonic() < finish and not all(
                t.host.host.over and all(s.verified.is_set() for s in t.seats) for t in tables
            ):
                await asyncio.sleep(0.2)
            latencies = [lat for t in tables for s in t.seats for at, lat in s.samples
                         if start <= at < end]
            verified = sum(
                1 for t in tables
                if t.host.host.over and all(s.player.verdict is not None and s.player.verdict.ok
                                       for s in t.seats)
            )
            return {
                "tables": len(tables),
                "finished": sum(1 for t in tables if t.host.host.over),
                "verified": verified,
                "latencies": latencies,
                "seconds": end - start,
                "cpu": cpu1 - cpu0,
                "setup_cpu": setup_cpu,
                "setup_wall": setup_wall,
                "frames": frames1 - frames0,
                **({"frame_kinds": dict(kinds.counts)} if kinds is not None else {}),
            }
        finally:
            if keeper is not None:
                keeper.cancel()
            for table in tables:
                for seat in table.seats:
                    await seat.close()
                await table.host.close()


class _ParentGone(Exception):
    """The ``stacks bench load`` that started this worker is gone (killed, say)."""


def _worker_main(spec_json: str) -> int:
    spec = json.loads(spec_json)
    try:
        import uvloop  # type: ignore[import-not-found]
    except ImportError:
        run = asyncio.run
    else:
        run = uvloop.run
    try:
        result = run(_worker(spec))
    except RuntimeError as exc:  # said by the parent, in its words
        print(f"failed: {exc}", flush=True)
        return 1
    except _ParentGone:
        return 1  # nobody to tell: its tables are closed, and this process ends now
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_worker_main(sys.argv[1]))

"""An eavesdropper on every node of a broker cluster: what each table's hosts published,
as a bystander sees it.

It subscribes to ``#`` on each node (a broker node passes on every message of the
cluster to its own subscribers, so each node's view is whole unless the node is cut
off) and keeps, per table:

- every public batch it saw (the ``events`` frames spectators get, and the ``history``
  frames of their catch-up): its number and a digest of its contents, so that a batch
  number published with two different contents, by two hosts, shows;
- the host's announcements (key, commitment, run of the process, status), in order;
- when a frame reached the seats' stream (``table``: batches and the host's beats), for
  the longest silence a seated player lived through.

A host publishes the public stream only while a spectator is there, so `Eavesdropper`
seats a spectator (`netplay.player_peer.Spectator`) at each table it is told to watch.
It runs its own event loop in a thread (`start` / `stop`), so a blocking test or
benchmark can use it. Frames are untrusted: what does not decode is counted, never
raised.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import aiomqtt

from netplay.codec import decode, pack, unpack
from netplay.errors import FrameError
from netplay.identity import Identity
from netplay.player_peer import Spectator
from netplay.playing.notices import (
    Applied,
    HostBack,
    HostChanged,
    HostMoved,
    HostOffline,
    Notice,
)
from netplay.topics import PREFIX
from netplay.transport import BrokerAddress

PUBLIC = ("events", "history")


def canonical(value: Any) -> Any:
    """``value`` with every map's keys in order, so equal contents pack to equal bytes."""
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [canonical(item) for item in value]
    return value


BATCH_FIELDS = ("n", "action", "proof", "events", "hash", "standin")
"""What a batch is; a frame's body may carry more (the host's ``epoch``), which is not
the batch's contents."""


def digest(body: dict[str, Any]) -> str:
    """The batch's contents, digested."""
    kept = {key: body.get(key) for key in BATCH_FIELDS}
    return hashlib.sha256(pack(canonical(kept))).hexdigest()[:16]


def _epoch(body: dict[str, Any]) -> int:
    epoch = body.get("epoch", 0)
    return epoch if type(epoch) is int else -1


@dataclass(frozen=True)
class Announcement:
    at: float
    """`time.time` when it came (the database's clock is the same machine's)."""
    node: str
    host: str
    """The host's key, hex."""
    boot: str
    """This run of the host process, hex."""
    commit: str
    status: str
    epoch: int
    """The host's epoch (0: a table no server took over yet)."""
    body: dict[str, Any]


@dataclass
class TableSeen:
    """What the eavesdropper saw of one table."""

    batches: dict[int, set[str]] = field(default_factory=dict)
    """Batch number → digests of its public contents (one, unless two hosts disagreed)."""
    first_seen: dict[int, float] = field(default_factory=dict)
    announcements: list[Announcement] = field(default_factory=list)
    seats_stream: list[float] = field(default_factory=list)
    """When a frame first reached the seats' stream (any node), in order."""
    spectator: list[tuple[float, str]] = field(default_factory=list)
    """What the spectator noticed: (`time.time`, words), in order."""
    applied: list[tuple[float, int]] = field(default_factory=list)
    """When the spectator applied each batch."""

    def conflicts(self) -> dict[int, set[str]]:
        """The batch numbers published with more than one content."""
        return {n: d for n, d in self.batches.items() if len(d) > 1}

    def epochs(self) -> dict[int, float]:
        """When each of the host's epochs was first announced."""
        firsts: dict[int, float] = {}
        for entry in self.announcements:
            firsts.setdefault(entry.epoch, entry.at)
        return firsts

    def boots(self) -> list[Announcement]:
        """The first announcement of each run of a host process, in order."""
        seen: set[tuple[str, str]] = set()
        firsts = []
        for entry in self.announcements:
            if (entry.host, entry.boot) not in seen:
                seen.add((entry.host, entry.boot))
                firsts.append(entry)
        return firsts

    def longest_silence(self, since: float = 0.0, until: float | None = None) -> float:
        """The longest gap between two frames on the seats' stream that ends after
        ``since`` (and by ``until``): what a seated player waited."""
        times = self.seats_stream
        gaps = [b - a for a, b in itertools.pairwise(times)
                if b >= since and (until is None or b <= until)]
        return max(gaps, default=0.0)

    def last_batch_at(self) -> float | None:
        """When the last batch heard was first heard: a game's last is its game over (the
        host publishes no batch after it, only its beats while the players verify)."""
        return self.first_seen[max(self.first_seen)] if self.first_seen else None


class Eavesdropper:
    """Listens on every node of ``urls``; watches ``tables`` as a spectator through
    ``watch_url`` (default: the last node)."""

    def __init__(self, urls: Sequence[str], tables: Sequence[str] = (),
                 watch_url: str | None = None) -> None:
        self.urls = list(urls)
        self.tables: dict[str, TableSeen] = {}
        self.watch = list(tables)
        self.watch_url = watch_url or self.urls[-1]
        self.undecodable = 0
        self.connected: set[str] = set()
        self._seen_frames: set[bytes] = set()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    # -- running in a thread ----------------------------------------------------------------

    def start(self, timeout: float = 60.0) -> None:
        """Start listening; returns once every node took the subscription."""
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True,
                                        name="eavesdropper")
        self._thread.start()
        deadline = time.time() + timeout
        while len(self.connected) < len(self.urls):
            if self._error is not None:
                raise RuntimeError(f"the eavesdropper failed: {self._error!r}")
            if time.time() > deadline:
                raise RuntimeError(f"the eavesdropper reached only {sorted(self.connected)}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self._loop is not None and self._stopping is not None:
            self._loop.call_soon_threadsafe(self._stopping.set)
        if self._thread is not None:
            self._thread.join(30)

    def _run(self, ready: threading.Event) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by start() / the report
            self._error = exc

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        tasks = [asyncio.create_task(self._listen(url)) for url in self.urls]
        tasks += [asyncio.create_task(self._spectate(table)) for table in self.watch]
        await self._stopping.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- listening --------------------------------------------------------------------------

    async def _listen(self, url: str) -> None:
        """Subscribe to everything on one node; again after every broken connection."""
        address = BrokerAddress.parse(url)
        while True:
            try:
                async with aiomqtt.Client(address.host, address.port, keepalive=5,
                                          timeout=5) as client:
                    await client.subscribe(f"{PREFIX}/#", qos=0)
                    self.connected.add(url)
                    async for message in client.messages:
                        payload = message.payload
                        if isinstance(payload, bytes):
                            self.heard(url, str(message.topic), payload, time.time())
            except aiomqtt.MqttError:
                self.connected.discard(url)
                await asyncio.sleep(0.5)

    def table(self, name: str) -> TableSeen:
        with self._lock:
            return self.tables.setdefault(name, TableSeen())

    def heard(self, node: str, topic: str, payload: bytes, at: float) -> None:
        """One message of ``topic`` from ``node``."""
        parts = topic.split("/")
        if len(parts) < 4 or "/".join(parts[:2]) != PREFIX:
            return
        name, channel = parts[2], parts[3]
        seen = self.table(name)
        first = payload not in self._seen_frames
        self._seen_frames.add(payload)
        if channel == "table":
            if first:
                seen.seats_stream.append(at)
            return
        if not first or channel not in ("events", "announce", "peer"):
            return
        try:
            frame = decode(payload)
        except FrameError:
            self.undecodable += 1
            return
        if frame.type == "events":
            self._batch(seen, frame.body, at)
        elif frame.type == "history":
            for entry in frame.body.get("batches", []):
                try:
                    body = unpack(entry) if isinstance(entry, bytes) else None
                except FrameError:
                    body = None
                if isinstance(body, dict):
                    self._batch(seen, body, at)
                else:
                    self.undecodable += 1
        elif frame.type == "announce" and channel == "announce":
            body = frame.body
            boot, commit = body.get("boot"), body.get("commit")
            seen.announcements.append(Announcement(
                at, node, frame.sender.hex(),
                boot.hex() if isinstance(boot, bytes) else str(boot),
                commit.hex() if isinstance(commit, bytes) else str(commit),
                str(body.get("status")), _epoch(body), body))

    def _batch(self, seen: TableSeen, body: dict[str, Any], at: float) -> None:
        n = body.get("n")
        if type(n) is not int:
            self.undecodable += 1
            return
        with self._lock:
            seen.batches.setdefault(n, set()).add(digest(body))
            seen.first_seen.setdefault(n, at)

    # -- a spectator per table ------------------------------------------------------------

    async def _spectate(self, table: str) -> None:
        seen = self.table(table)
        while True:
            try:
                async with Spectator(Identity.generate(), table, "eavesdropper",
                                     broker=self.watch_url) as spectator:
                    async for notice in spectator.notices():
                        self._noticed(seen, notice)
            except Exception as exc:  # a broken connection: watch again
                seen.spectator.append((time.time(), f"spectator failed: {exc!r}"))
                await asyncio.sleep(1)

    def _noticed(self, seen: TableSeen, notice: Notice) -> None:
        at = time.time()
        if isinstance(notice, Applied):
            seen.applied.append((at, notice.n))
        elif isinstance(notice, HostMoved):
            seen.spectator.append((at, notice.words()))
        elif isinstance(notice, HostOffline | HostBack | HostChanged):
            seen.spectator.append((at, repr(notice)))

    # -- the verdict ----------------------------------------------------------------------

    def conflicts(self) -> dict[str, dict[int, set[str]]]:
        """Every table with a batch number published with two contents."""
        found = {}
        for name, seen in list(self.tables.items()):
            bad = seen.conflicts()
            if bad:
                found[name] = bad
        return found

    def batches(self, table: str) -> int:
        return len(self.table(table).batches)

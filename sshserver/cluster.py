"""One node of several (``stacks serve --node NAME``): its tables under leases in the
shared database, taken over from a node that died, handed over when it stops.

The node (`ClusterNode`) is the keeper's shared store (`sshserver.tables.SharedTables`):
a table it opens is claimed in ``held_tables`` at epoch 1 and journals there
(``ratings.cluster.DbJournal``). Beside the tables it runs one loop that

- beats (``cluster_nodes``) and renews each table's lease every
  :data:`~ratings.cluster.RENEW_EVERY` seconds (a journal commit renews it too);
- fences: a table whose lease this node could not renew in time (its own monotonic
  deadline, :data:`~ratings.cluster.FENCE_MARGIN` before the lease can run out) stops
  publishing at once, and is let go;
- every :data:`~ratings.cluster.POLL_EVERY` seconds looks for tables whose lease ran out
  (a node killed, or cut off) or was handed over (a node draining), takes each with a
  compare-and-set at the next epoch and hosts it from its journal.

Stopping (SIGTERM: a rolling upgrade) fences every table (nothing more is published here),
closes its host and hands it over: the next node's poll takes it within a fraction of a
second, and the players' programs join its new incarnation where they sat.

Everything said goes to the server's log as one line (``say``): ``took over table NAME at
batch N (epoch E)``, ``handed over table NAME``, ``table NAME: lease lost`` — the words
the trials look for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable
from typing import Any

from netplay.identity import KEY_FILE, Identity, load_profile
from netplay.journal import JournalStore
from netplay.paths import profiles_dir
from ratings.cluster import (
    POLL_EVERY,
    RENEW_EVERY,
    ClusterDown,
    ClusterStore,
    DbJournal,
    HeldRow,
)
from sshserver.tables import RequestRefused, TableKeeper

log = logging.getLogger(__name__)

class ClusterNode:
    """This node's part in the community's shared database (see the module)."""

    def __init__(self, store: ClusterStore, keeper: TableKeeper, *,
                 say: Callable[[str], None] | None = None) -> None:
        self.store = store
        self.keeper = keeper
        self.name = store.node
        self._say = say or (lambda text: log.info("%s", text))
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False
        self._renewing = False
        self.taken: list[tuple[str, int, float]] = []
        """Tables this node took over: (name, epoch, seconds from the end of the lease to
        the host running here), for the trials' figures."""
        keeper.shared = self

    # -- the keeper's shared store -------------------------------------------------------------

    async def new_journal(self, table: str, header: dict[str, Any]) -> JournalStore:
        try:
            lease = await asyncio.to_thread(self.store.claim, table,
                                            creator=str(header.get("creator") or ""),
                                            creator_name=str(header.get("creator_name")
                                                             or "?"))
        except ClusterDown as exc:
            raise RequestRefused(f"the server can't keep the table's journal: {exc}") \
                from None
        if lease is None:
            raise RequestRefused(f"a table named {table!r} is already open on a server of "
                                 "this community: pick another name, or join it")
        try:
            return await asyncio.to_thread(DbJournal.create, self.store, lease,
                                           node=self.name, **header)
        except Exception as exc:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.store.end, lease, "its journal failed")
            raise RequestRefused(f"the server can't keep the table's journal: {exc}") \
                from None

    async def ended(self, journal: JournalStore, why: str) -> None:
        if isinstance(journal, DbJournal):
            await asyncio.to_thread(self.store.end, journal.lease, why)

    async def let_go(self, journal: JournalStore) -> None:
        if isinstance(journal, DbJournal) and \
                await asyncio.to_thread(self.store.hand_over, journal.lease):
            self._say(f"handed over table {journal.lease.table} (epoch "
                          f"{journal.lease.epoch})")

    # -- the loop -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Beat once (a database out of reach is said, and the loop tries again), then
        run the loop."""
        try:
            await asyncio.to_thread(self.store.heartbeat)
        except ClusterDown as exc:
            self._say(f"node {self.name}: {exc}")
        self._say(f"node {self.name} joined the community's database")
        self._loop = asyncio.create_task(self._run(), name=f"node-{self.name}")

    async def _run(self) -> None:
        last_renew = 0.0
        while not self._stopping:
            now = time.monotonic()
            self._fence_overdue(now)
            if now - last_renew >= RENEW_EVERY and not self._renewing:
                last_renew = now
                self._renewing = True
                renewing = asyncio.create_task(self._renew())
                renewing.add_done_callback(lambda _t: setattr(self, "_renewing", False))
            try:
                await self._take_free()
            except ClusterDown as exc:
                log.info("node %s: can't look for free tables: %s", self.name, exc)
            except Exception:  # the loop must go on
                log.exception("node %s: looking for free tables failed", self.name)
            await asyncio.sleep(POLL_EVERY)

    def _journals(self) -> list[tuple[str, DbJournal]]:
        return [(name, table.host.journal) for name, table in self.keeper.tables.items()
                if isinstance(table.host.journal, DbJournal)]

    def _fence_overdue(self, now: float) -> None:
        """Stop publishing every table whose lease this node could not renew in time."""
        for name, journal in self._journals():
            table = self.keeper.tables[name]
            if now >= journal.valid_until and table.host.fenced is None:
                self._say(f"table {name}: lease lost (not renewed in time): stopped "
                          "hosting it")
                table.host.fence("its lease could not be renewed")

    async def _renew(self) -> None:
        try:
            await asyncio.to_thread(self.store.heartbeat)
        except ClusterDown as exc:
            log.warning("node %s: %s", self.name, exc)
            return
        for name, journal in self._journals():
            sent = time.monotonic()
            try:
                kept = await asyncio.to_thread(self.store.renew, journal.lease)
            except ClusterDown as exc:
                log.warning("node %s: table %s: %s", self.name, name, exc)
                return
            if kept:
                journal.renewed(sent)
                continue
            table = self.keeper.tables.get(name)
            if table is not None and table.host.fenced is None:
                self._say(f"table {name}: lease lost (another node holds it): stopped "
                          "hosting it")
                table.host.fence("another node holds its lease")

    async def _take_free(self) -> None:
        if self._stopping or self.keeper._stopping:
            return
        free = await asyncio.to_thread(self.store.free)
        for row in free:
            if self._stopping:
                return
            if row.table in self.keeper.tables:
                continue  # ours, still closing: its lease was let go a moment ago
            await self._take(row)

    async def _take(self, row: HeldRow) -> None:
        lease = await asyncio.to_thread(self.store.take_over, row)
        if lease is None:
            return  # another node was first
        started = time.monotonic()
        self._say(f"taking over table {row.table} from node {row.node} (epoch {lease.epoch}, "
                  f"lease ended {-row.lease_left:.1f} s ago)")
        try:
            entries = await asyncio.to_thread(self.store.entries, lease.held_id)
        except Exception as exc:
            self._say(f"table {row.table} not taken over: {exc}")
            await asyncio.to_thread(self.store.hand_over, lease)
            return
        journal = DbJournal(self.store, lease, next_seq=len(entries))
        journal.renewed(started)
        table = await self.keeper.resume_shared(journal, entries, lease.epoch)
        if table is None:
            if any(e.get("t") in ("finished", "abandoned") for e in entries):
                return
            with contextlib.suppress(ClusterDown):
                await asyncio.to_thread(self.store.end, lease, "it could not be taken over")
            return
        took = -row.lease_left + (time.monotonic() - started)
        self.taken.append((row.table, lease.epoch, took))

    # -- stopping -------------------------------------------------------------------------------

    async def alive_others(self) -> list[str]:
        try:
            return await asyncio.to_thread(self.store.alive_nodes)
        except ClusterDown:
            return []

    def fence_all(self, why: str) -> None:
        """Stop publishing every table (a drain): their hosts close, their leases are
        handed over as they do (`TableKeeper.stop`)."""
        for table in self.keeper.tables.values():
            table.host.fence(why)

    async def stop(self) -> None:
        """Stop the loop and say this node is gone (after the keeper handed its tables
        over)."""
        self._stopping = True
        loop, self._loop = self._loop, None
        if loop is not None:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await loop
        with contextlib.suppress(ClusterDown):
            await asyncio.to_thread(self.store.heartbeat, "gone")
        await asyncio.to_thread(self.store.close)

    # -- players' identities --------------------------------------------------------------------

    async def share_profile(self, profile: str) -> None:
        """Make ``profile``'s game identity on this node the community's: the one the
        shared database has (written here), or this node's own (stored there)."""
        await asyncio.to_thread(_share_profile, self.store, profile)


def _share_profile(store: ClusterStore, profile: str) -> None:
    path = profiles_dir() / profile / KEY_FILE
    mine = load_profile(profile)  # made here if new
    seed = store.profile_seed(profile, bytes(mine.signing_key))
    if seed != bytes(mine.signing_key):
        Identity.from_seed(seed)  # a sound seed, or ValueError
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(seed.hex() + "\n")
        os.replace(tmp, path)

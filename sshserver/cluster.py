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
- every :data:`~ratings.cluster.POLL_EVERY` seconds (and at once when another node hands
  a table over: PostgreSQL's ``NOTIFY``) looks for tables whose lease ran out
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
import functools
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from netplay.identity import KEY_FILE, Identity, load_profile
from netplay.journal import JournalError, JournalStore
from netplay.paths import profiles_dir
from ratings.cluster import (
    POLL_EVERY,
    RENEW_EVERY,
    ClusterDown,
    ClusterStore,
    DbJournal,
    HeldRow,
)
from sshserver.beacon import CUT_AFTER, Hearing, reaches_community
from sshserver.tables import RequestRefused, TableKeeper

log = logging.getLogger(__name__)

T = TypeVar("T")
WATCH_EVERY = 0.1
"""Seconds between the node's looks at its tables' own lease deadlines (no I/O)."""
TAKE_AT_ONCE = 8
"""Tables a node takes over at once (each a few database reads and a broker connection)."""
RETRY_AFTER = 2.0
"""Seconds before a node tries again a table it could not take over (another may)."""
BROKER_GRACE = 3.0
"""Seconds a table's host may be without its broker, when no broker of this node answers
(or its broker list moved on), before the node lets the table go to a node that has one
(or takes it back on the new broker)."""
STRANDED_GRACE = 20.0
"""Seconds a table's host may be without its broker while this node's broker answers and
reaches the community before the node lets the table go. Such a host's trouble is the
broker cluster's, which another node shares: a NATS cluster refuses every new MQTT
session while the node keeping its session stream is cut off, and for seconds after it
is back (JetStream elects a leader). Handed over sooner, the table would only move
again, to the node just back from a cut, whose new session waits the same."""

class ClusterNode:
    """This node's part in the community's shared database (see the module)."""

    def __init__(self, store: ClusterStore, keeper: TableKeeper, *,
                 say: Callable[[str], None] | None = None,
                 broker: Callable[[], Awaitable[str | None]] | None = None,
                 hearing: Hearing | None = None,
                 cut_off: Callable[[], None] | None = None) -> None:
        self.store = store
        self.keeper = keeper
        self.name = store.node
        self._say = say or (lambda text: log.info("%s", text))
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False
        self._renewing = False
        self._broker_check = broker
        """The broker in use if it (or the next of the list) answers, else ``None``."""
        self.broker_now: str | None = None
        self.broker_ok = True
        """This node reaches a broker: it says so in its heartbeat (``up``, else
        ``nobroker``), takes tables over only then, and hands its own to nodes that do."""
        self._hearing = hearing
        self._on_cut_off = cut_off
        self.community_ok = True
        """This node's broker reaches the community (`sshserver.beacon`): else it says
        ``nobroker``, takes no table, hands its own over and ends its ssh sessions
        (``cut_off``) so that their players come back through another node."""
        self._cut_since: float | None = None
        """Since when this node finds its broker does not reach the community (not yet
        believed): meanwhile it takes no table."""
        self._offline_since: dict[str, float] = {}
        self.broker_grace = BROKER_GRACE
        self.stranded_grace = STRANDED_GRACE
        self._backoff: dict[str, float] = {}
        """Tables this node failed to take over lately: not tried again before then."""
        self._started_on: dict[str, str | None] = {}
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix=f"node-{self.name}")
        """The node's own threads for the database: a database out of reach holds up these
        (for seconds), never the threads the tables' bots think in."""
        self._watch: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        """Set when a node handed a table over (PostgreSQL's ``NOTIFY``): look now."""
        self._listen_stop = threading.Event()
        self._listener: threading.Thread | None = None
        self.taken: list[tuple[str, int, float]] = []
        """Tables this node took over: (name, epoch, seconds from the end of the lease to
        the host running here), for the trials' figures."""
        keeper.shared = self

    async def _db(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``call`` in one of the node's database threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, functools.partial(call, *args, **kwargs))

    # -- the keeper's shared store -------------------------------------------------------------

    async def new_journal(self, table: str, header: dict[str, Any]) -> JournalStore:
        if not self.community_ok:
            raise RequestRefused("this server can't reach the game's broker now: connect "
                                 "again (the same ssh command) to reach another of its "
                                 "machines")
        try:
            lease = await self._db(self.store.claim, table,
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
            return await self._db(DbJournal.create, self.store, lease,
                                           node=self.name, **header)
        except Exception as exc:
            with contextlib.suppress(Exception):
                await self._db(self.store.end, lease, "its journal failed")
            raise RequestRefused(f"the server can't keep the table's journal: {exc}") \
                from None

    async def ended(self, journal: JournalStore, why: str) -> None:
        if isinstance(journal, DbJournal):
            await self._db(self.store.end, journal.lease, why)

    async def let_go(self, journal: JournalStore) -> None:
        if isinstance(journal, DbJournal):  # the others take it first
            self._backoff[journal.lease.table] = time.monotonic() + RETRY_AFTER
        # (A draining node handed its leases over already.)
        if isinstance(journal, DbJournal) and not self._stopping and \
                await self._db(self.store.hand_over, journal.lease):
            self._say(f"handed over table {journal.lease.table} (epoch "
                      f"{journal.lease.epoch})")

    async def host_of(self, table: str) -> str | None:
        try:
            return await self._db(self.store.host_of, table)
        except ClusterDown:
            return None

    async def held_anywhere(self, table: str) -> bool:
        try:
            rows = await self._db(self.store.listed)
        except ClusterDown:
            return False
        return any(row.table == table for row in rows)

    # -- the loop -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Beat once (a database out of reach is said, and the loop tries again), then
        run the loop."""
        try:
            await self._db(self.store.heartbeat)
        except ClusterDown as exc:
            self._say(f"node {self.name}: {exc}")
        self._say(f"node {self.name} joined the community's database")
        if self._broker_check is not None:  # the broker in use, for `_moved`
            self.broker_now = await self._broker_check()
        try:
            shared = await self._db(_share_all_profiles, self.store)
        except ClusterDown as exc:
            self._say(f"node {self.name}: players' identities not shared yet: {exc}")
        else:
            if shared:
                self._say(f"node {self.name}: {shared} players' identities shared with the "
                          "community")
        loop = asyncio.get_running_loop()

        def wake() -> None:  # in the listening thread
            with contextlib.suppress(RuntimeError):  # the loop closed
                loop.call_soon_threadsafe(self._wake.set)

        self._listener = threading.Thread(
            target=self.store.listen_handovers, args=(wake, self._listen_stop),
            name=f"node-{self.name}-listen", daemon=True)
        self._listener.start()
        self._loop = asyncio.create_task(self._run(), name=f"node-{self.name}")
        self._watch = asyncio.create_task(self._watching(), name=f"fence-{self.name}")

    async def _watching(self) -> None:
        """Fence on time, whatever the database threads wait for."""
        while True:
            self._fence_overdue(time.monotonic())
            await asyncio.sleep(WATCH_EVERY)

    async def _run(self) -> None:
        last_renew = 0.0
        while not self._stopping:
            now = time.monotonic()
            if now - last_renew >= RENEW_EVERY and not self._renewing:
                last_renew = now
                self._renewing = True
                renewing = asyncio.create_task(self._renew_safely())
                renewing.add_done_callback(lambda _t: setattr(self, "_renewing", False))
            try:
                await self._take_free()
            except ClusterDown as exc:
                log.info("node %s: can't look for free tables: %s", self.name, exc)
            except Exception:  # the loop must go on
                log.exception("node %s: looking for free tables failed", self.name)
            # The next look: after POLL_EVERY, or at once when a node hands a table over.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_EVERY)
            self._wake.clear()

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

    async def _renew_safely(self) -> None:
        try:
            await self._renew()
        except Exception:  # the next renewal tries again; the fence watch stays on time
            log.exception("node %s: renewing failed", self.name)

    async def _renew(self) -> None:
        hearing = any(getattr(getattr(t.host.transport, "connected", None), "is_set",
                              lambda: False)() for t in self.keeper.tables.values())
        if hearing:
            self.broker_ok = True
        elif self._broker_check is not None:  # else: its tables hear it
            now_url = await self._broker_check()
            if (now_url is not None) != self.broker_ok:
                self._say(f"node {self.name}: " + (f"the broker answers again ({now_url})"
                          if now_url else "no broker answers: its tables go to nodes that "
                          "have one"))
            self.broker_ok = now_url is not None
            self.broker_now = now_url or self.broker_now
        ear = self._hearing
        try:
            await self._db(self.store.heartbeat,
                           "up" if self.broker_ok and self.community_ok else "nobroker",
                           ear.heard() if ear else None, ear.reach() if ear else None)
        except ClusterDown as exc:
            log.warning("node %s: %s", self.name, exc)
            return
        try:
            await self._judge_community()
        except ClusterDown as exc:
            log.info("node %s: can't read the others' heartbeats: %s", self.name, exc)
        await self._without_broker()
        journals = self._journals()
        sent = time.monotonic()
        try:
            kept = await self._db(self.store.renew_all, [j.lease for _n, j in journals])
        except ClusterDown as exc:
            log.warning("node %s: leases not renewed: %s", self.name, exc)
            return
        for name, journal in journals:
            if journal.lease.held_id in kept:
                journal.renewed(sent)
                continue
            table = self.keeper.tables.get(name)
            if table is not None and table.host.fenced is None:
                self._say(f"table {name}: lease lost (another node holds it): stopped "
                          "hosting it")
                table.host.fence("another node holds its lease")

    async def _judge_community(self) -> None:
        """Whether this node's broker reaches the community (`reaches_community`, every
        look for :data:`~sshserver.beacon.CUT_AFTER` seconds before it is believed);
        when it does not, hand every table over and end the ssh sessions."""
        hearing = self._hearing
        if hearing is None or not hearing.settled() or not self.broker_ok:
            self._cut_since = None  # no word yet (or no broker at all: `_without_broker`)
            return
        peers = await self._db(self.store.peers)
        now = time.monotonic()
        if reaches_community(hearing.heard(), hearing.reach(), peers,
                             cut=not self.community_ok):
            self._cut_since = None
            if not self.community_ok:
                self.community_ok = True
                self._say(f"node {self.name}: its broker reaches the community again")
            return
        if self._cut_since is None:
            self._cut_since = now
        if self.community_ok and now - self._cut_since >= CUT_AFTER:
            self.community_ok = False
            others = ", ".join(p.name for p in peers if p.state == "up")
            self._say(f"node {self.name}: its broker does not reach the community (it "
                      f"hears none of {others} over it): its tables go to them")
            with contextlib.suppress(ClusterDown):
                await self._db(self.store.heartbeat, "nobroker")
            if self._on_cut_off is not None:
                self._on_cut_off()
        if not self.community_ok:
            await self._hand_all_over("its broker does not reach the community")

    async def _hand_all_over(self, why: str) -> None:
        """Fence every table of this node and hand its lease over (the others take it)."""
        for name, journal in self._journals():
            table = self.keeper.tables.get(name)
            if table is None or table.host.fenced is not None:
                continue
            self._say(f"table {name}: {why}: handing it over")
            table.host.fence(why)
            self._backoff[name] = time.monotonic() + RETRY_AFTER
            with contextlib.suppress(ClusterDown):
                if await self._db(self.store.hand_over, journal.lease):
                    self._say(f"handed over table {name} (epoch {journal.lease.epoch})")

    async def _without_broker(self) -> None:
        """Let go of the tables whose host has been without its broker for
        :data:`BROKER_GRACE` seconds, when another node has one (or this node's broker
        list moved on to another that answers: it takes them back there)."""
        now = time.monotonic()
        stranded: list[str] = []
        for name, table in list(self.keeper.tables.items()):
            self._started_on.setdefault(name, self.broker_now)
            connected = getattr(table.host.transport, "connected", None)
            if connected is None or connected.is_set() or table.host.fenced is not None:
                self._offline_since.pop(name, None)
                continue
            since = self._offline_since.setdefault(name, now)
            grace = self.broker_grace if not self.broker_ok or self._moved(name) \
                else self.stranded_grace
            if now - since >= grace:
                stranded.append(name)
        for name in set(self._started_on) - set(self.keeper.tables):
            self._started_on.pop(name, None)
            self._offline_since.pop(name, None)
        if not stranded:
            return
        others = await self.alive_others()
        for name in stranded:
            moved = self.broker_ok and self._moved(name)
            held = self.keeper.tables.get(name)
            if held is None or not (others or moved):
                continue
            self._say(f"table {name}: its broker is out of reach: handing it over")
            held.host.fence("its broker is out of reach")
            self._backoff[name] = time.monotonic() + RETRY_AFTER  # the others take it first
            journal = held.host.journal
            if isinstance(journal, DbJournal):
                with contextlib.suppress(ClusterDown):
                    await self._db(self.store.hand_over, journal.lease)

    def _moved(self, table: str) -> bool:
        """This node's broker list moved on since ``table``'s host started here (to the
        next URL that answers)."""
        started = self._started_on.get(table)
        return started is not None and self.broker_now is not None \
            and self.broker_now != started

    async def _take_free(self) -> None:
        if self._stopping or self.keeper._stopping or not (
                self.broker_ok and self.community_ok and self._cut_since is None):
            return
        free = await self._db(self.store.free)
        now = time.monotonic()
        rows = [row for row in free
                if row.table not in self.keeper.tables  # ours, still closing
                and self._backoff.get(row.table, 0.0) <= now]  # failed here lately
        if not rows:
            return
        # Several at once (a node's many tables handed over together): the last of them
        # waits no longer than the first.
        gate = asyncio.Semaphore(TAKE_AT_ONCE)

        async def take(row: HeldRow) -> None:
            async with gate:
                if not self._stopping:
                    await self._take(row)

        outcomes = await asyncio.gather(*(take(row) for row in rows), return_exceptions=True)
        for row, outcome in zip(rows, outcomes, strict=True):
            if isinstance(outcome, ClusterDown):
                log.info("node %s: table %s not taken over: %s", self.name, row.table,
                         outcome)
            elif isinstance(outcome, Exception):
                log.error("node %s: taking over table %s failed", self.name, row.table,
                          exc_info=outcome)

    async def _take(self, row: HeldRow) -> None:
        lease = await self._db(self.store.take_over, row)
        if lease is None:
            return  # another node was first
        started = time.monotonic()
        self._say(f"taking over table {row.table} from node {row.node} (epoch {lease.epoch}, "
                  f"lease ended {-row.lease_left:.1f} s ago)")
        try:
            entries = await self._db(self.store.entries, lease.held_id)
            journal = DbJournal(self.store, lease, next_seq=len(entries))
            journal.renewed(started)
            table = await self.keeper.resume_shared(journal, entries, lease.epoch)
        except JournalError as exc:  # never: its journal does not replay, or it ended
            self._say(f"table {row.table} not taken over, and ended: {exc}")
            with contextlib.suppress(ClusterDown):
                await self._db(self.store.end, lease, f"it could not be taken over: {exc}")
            return
        except ClusterDown as exc:
            self._say(f"table {row.table} not taken over now: {exc}")
            table = None
        if table is None:  # not now: another node (or this one, a moment later) may
            self._backoff[row.table] = time.monotonic() + RETRY_AFTER
            with contextlib.suppress(ClusterDown):
                await self._db(self.store.hand_over, lease)
            return
        took = -row.lease_left + (time.monotonic() - started)
        self.taken.append((row.table, lease.epoch, took))
        self._say(f"table {row.table}: hosted here {took:.2f} s after its lease "
                  + ("was handed over" if row.state == "handover" else "ended"))

    # -- stopping -------------------------------------------------------------------------------

    async def alive_others(self) -> list[str]:
        try:
            return await self._db(self.store.alive_nodes)
        except ClusterDown:
            return []

    async def drain(self, why: str) -> int:
        """Stop publishing every table and hand each lease over at once, all together:
        the other nodes take them while this one closes their hosts (`TableKeeper.stop`).
        The tables handed over."""
        self._stopping = True
        with contextlib.suppress(ClusterDown):
            await self._db(self.store.heartbeat, "draining")
        journals = self._journals()
        for name, _journal in journals:
            self.keeper.tables[name].host.fence(why)

        async def hand(journal: DbJournal) -> bool:
            try:
                return await self._db(self.store.hand_over, journal.lease)
            except ClusterDown as exc:
                self._say(f"table {journal.lease.table}: not handed over ({exc}): its "
                          "lease runs out by itself")
                return False

        handed = await asyncio.gather(*(hand(journal) for _name, journal in journals))
        for (name, journal), done in zip(journals, handed, strict=True):
            if done:
                self._say(f"handed over table {name} (epoch {journal.lease.epoch})")
        return sum(handed)

    async def stop(self) -> None:
        """Stop the loop and say this node is gone (after the keeper handed its tables
        over)."""
        self._stopping = True
        self._listen_stop.set()
        for task in (self._loop, self._watch):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._loop = self._watch = None
        if self._listener is not None:  # it looks at its stop every half second
            await asyncio.to_thread(self._listener.join, 2.0)
        with contextlib.suppress(ClusterDown):
            await self._db(self.store.heartbeat, "gone")
        await self._db(self.store.close)
        self._pool.shutdown(wait=False)

    # -- players' identities --------------------------------------------------------------------

    async def share_profile(self, profile: str) -> None:
        """Make ``profile``'s game identity on this node the community's: the one the
        shared database has (written here), or this node's own (stored there)."""
        await self._db(_share_profile, self.store, profile)


def _share_all_profiles(store: ClusterStore) -> int:
    """Every profile of this node whose identity the community does not have yet, stored
    (a server that becomes the first node of a community brings its players' identities,
    so their accounts and seats are the same on every node); how many."""
    count = 0
    try:
        folders = sorted(p for p in profiles_dir().iterdir() if (p / KEY_FILE).is_file())
    except OSError:
        return 0
    for folder in folders:
        try:
            seed = bytes.fromhex((folder / KEY_FILE).read_text().strip())
            Identity.from_seed(seed)
        except (OSError, ValueError):
            continue
        if store.profile_seed(folder.name, seed) == seed:
            count += 1
    return count


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

"""Several servers, one community: the shared database's side of it.

Every node of a community (``stacks serve --node NAME``) works on one database. Here:

- ``cluster_nodes``: each node's heartbeat (the database's clock), so that a node knows
  which others are alive (a draining node hands its tables to them);
- ``held_tables``: every table a node holds, under a **lease**: the node, an **epoch**
  and the time (the database's clock) the lease runs out. The holding node renews it;
  once it has run out, any node may take the table over, raising the epoch by one, in one
  compare-and-set (``UPDATE … WHERE epoch = old AND lease_until < now``): two nodes racing
  for a table, exactly one wins;
- ``journal_entries``: the held tables' journals (``netplay.journal``'s entries, one row
  each, in order), written in the same transaction that checks the lease is still this
  node's (and renews it): a node that lost a table can't add to its journal;
- ``profile_keys``: the players' game identities (the seed of each profile's key), so a
  player has the same identity, and so the same seats, whichever node they reach.

All of it is synchronous SQLAlchemy, run in threads (``asyncio.to_thread``, or the
journals' syncing threads, ``netplay.syncs``): the journal's commit is the "sync" of
``netplay.host_peer.Host``, made before any frame that depends on it leaves.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Engine,
    Float,
    create_engine,
    delete,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from netplay.journal import (
    FORMAT,
    VERSION,
    Entry,
    JournalError,
    JournalFenced,
    encode_entry,
)
from netplay.record import from_json
from ratings.models import cluster_nodes, held_tables, journal_entries, profile_keys
from ratings.store import DatabaseError, database_url, shown

log = logging.getLogger(__name__)

LEASE = 5.0
"""Seconds a table's lease lasts from its last renewal (the database's clock)."""
RENEW_EVERY = 1.0
"""Seconds between a node's renewals of its leases (and its heartbeat)."""
FENCE_MARGIN = 2.0
"""A node stops hosting a table this many seconds before its lease could run out, counted
on its own monotonic clock from the moment it *sent* the last renewal that succeeded: the
lease can't pass to another node while the old one still publishes, even if the two
clocks run at slightly different rates."""
KEEP_ENDED = 7 * 86400.0
"""Seconds an ended table's row is kept (its journal goes at once)."""
POLL_EVERY = 0.25
"""Seconds between a node's looks for tables whose lease ran out (or was handed over)."""
NODE_ALIVE = 4.0
"""A node whose heartbeat is older than this is not counted alive (for a drain's
hand-over)."""


IDLE_IN_TRANSACTION = 1.5
"""Seconds PostgreSQL lets a node's session sit idle inside a transaction before it ends
the session (rolling the transaction back, releasing its row locks). A node's
transactions never wait on anything between their statements, so only a node cut off in
the middle of one (its ``COMMIT`` lost on the way) stays idle that long: well before its
lease can run out (:data:`LEASE` after its last renewal), the row lock it held is gone,
and the node taking the table over never waits on it."""
LOCK_WAIT = 0.5
"""Seconds a statement of a node waits for a row lock before it gives up (the poll, or the
journal's next try, comes back to it): a node never waits on a lock near its lease's
end."""

PG_CONNECT: dict[str, Any] = {
    "connect_timeout": 3, "keepalives": 1, "keepalives_idle": 1, "keepalives_interval": 1,
    "keepalives_count": 2, "tcp_user_timeout": 2500,
    "options": (f"-c statement_timeout=3000 -c lock_timeout={int(LOCK_WAIT * 1000)} "
                f"-c idle_in_transaction_session_timeout={int(IDLE_IN_TRANSACTION * 1000)} "
                "-c tcp_keepalives_idle=1 -c tcp_keepalives_interval=1 "
                "-c tcp_keepalives_count=2 -c tcp_user_timeout=2500"),
}
"""libpq's options for a node's connections to PostgreSQL (never SQLite's). Both ends find
a dead peer in seconds, not TCP's minutes: the node (``keepalives*``, ``tcp_user_timeout``:
a commit whose link is down fails within 2.5 s, and the journal fences) and the server
(the same settings for its end of the session, and
:data:`IDLE_IN_TRANSACTION`: a cut-off node's open transaction is rolled back and its row
locks freed). No statement runs longer than 3 s, nor waits on a lock longer than
:data:`LOCK_WAIT`."""
HANDOVER_CHANNEL = "stacks_handover"
"""The PostgreSQL ``NOTIFY`` channel a node's hand-over is announced on: the other nodes
(``LISTEN``) look for free tables at once instead of at their next poll."""


class ClusterDown(DatabaseError):
    """The shared database can't be used now; the words say why."""


@dataclass(frozen=True, slots=True)
class Lease:
    """A table this node holds: its row, its name and the epoch it holds it at."""

    held_id: int
    table: str
    epoch: int


@dataclass(frozen=True, slots=True, order=True)
class Peer:
    """Another live node as its heartbeat says: its state, the nodes it hears over the
    broker, how many of its broker URLs answer."""

    name: str
    state: str
    hears: frozenset[str]
    reach: int


@dataclass(frozen=True, slots=True)
class HeldRow:
    """A row of ``held_tables`` as another node (or a lobby) sees it."""

    held_id: int
    table: str
    node: str
    epoch: int
    lease_left: float
    """Seconds the lease still has (negative: run out), by the database's clock."""
    state: str
    creator: str
    creator_name: str


def sync_url(url: str | Path) -> str:
    """A user's database URL for the synchronous driver (psycopg 3, or sqlite3)."""
    async_url = make_url(database_url(url))
    driver = "sqlite" if async_url.get_backend_name() == "sqlite" else "postgresql+psycopg"
    return async_url.set(drivername=driver).render_as_string(hide_password=False)


class ClusterStore:
    """The shared database, as node ``node`` uses it. Every method blocks: call it in a
    thread. Errors of the database are `ClusterDown` in words; a lease found lost is
    `netplay.journal.JournalFenced`."""

    def __init__(self, url: str | Path, node: str, *, lease: float = LEASE,
                 fence_margin: float = FENCE_MARGIN) -> None:
        self.url = sync_url(url)
        self.node = node
        self.lease = lease
        """Seconds a lease lasts from its renewal (:data:`LEASE`; shorter in tests)."""
        self.fence_margin = fence_margin
        sqlite = self.url.startswith("sqlite")
        self.engine: Engine = create_engine(
            self.url, pool_pre_ping=True, pool_size=4, max_overflow=8,
            connect_args={"timeout": 10} if sqlite else PG_CONNECT)
        self.postgres = self.engine.dialect.name == "postgresql"
        if self.postgres:
            self._now: ColumnElement[float] = literal_column(
                "EXTRACT(EPOCH FROM clock_timestamp())", Float)
        else:
            self._now = literal_column("((julianday('now') - 2440587.5) * 86400.0)", Float)

    def close(self) -> None:
        self.engine.dispose()

    def _down(self, exc: BaseException) -> ClusterDown:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return ClusterDown(f"the shared database {shown(self.url)} can't be used now: "
                           f"{reason[0] if reason else type(exc).__name__}")

    # -- nodes -------------------------------------------------------------------------------

    def heartbeat(self, state: str = "up", hears: Sequence[str] | None = None,
                  reach: int | None = None) -> None:
        """Say this node is alive (``up``), without the community's broker (``nobroker``)
        or leaving (``draining``, ``gone``); with ``hears``, the other nodes whose beacon
        it heard over the broker lately, and ``reach``, how many of its broker URLs
        answer (`sshserver.beacon`)."""
        values: dict[str, Any] = {"heartbeat": self._now, "state": state}
        if hears is not None:
            values["hears"] = ",".join(sorted(hears))[:2048]
        if reach is not None:
            values["reach"] = reach
        try:
            with self.engine.begin() as conn:
                done = conn.execute(update(cluster_nodes)
                                    .where(cluster_nodes.c.name == self.node)
                                    .values(**values))
                if done.rowcount == 0:
                    conn.execute(insert(cluster_nodes).values(
                        name=self.node, started_at=self._now, **values))
        except IntegrityError:
            self.heartbeat(state, hears, reach)  # another process of the same name made it
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None

    def alive_nodes(self) -> list[str]:
        """The other nodes that beat lately, reach a broker and are not leaving."""
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    select(cluster_nodes.c.name)
                    .where(cluster_nodes.c.heartbeat > self._now - NODE_ALIVE,
                           cluster_nodes.c.state == "up",
                           cluster_nodes.c.name != self.node)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return sorted(str(row.name) for row in rows)

    def peers(self) -> list[Peer]:
        """The other nodes that beat lately and are not leaving (``up`` or ``nobroker``):
        what each hears over the broker, for `sshserver.beacon.reaches_community`."""
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(
                    select(cluster_nodes.c.name, cluster_nodes.c.state,
                           cluster_nodes.c.hears, cluster_nodes.c.reach)
                    .where(cluster_nodes.c.heartbeat > self._now - NODE_ALIVE,
                           cluster_nodes.c.state.in_(("up", "nobroker")),
                           cluster_nodes.c.name != self.node)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return sorted(Peer(str(row.name), str(row.state),
                           frozenset(n for n in str(row.hears or "").split(",") if n),
                           int(row.reach or 0)) for row in rows)

    # -- leases ------------------------------------------------------------------------------

    def claim(self, table: str, *, creator: str, creator_name: str) -> Lease | None:
        """Hold a new table of this name, at epoch 1; ``None`` when a node holds one of that
        name already."""
        try:
            with self.engine.begin() as conn:
                row = conn.execute(insert(held_tables).values(
                    table_name=table, live_name=table, node=self.node, epoch=1,
                    lease_until=self._now + self.lease, state="held", creator=creator[:64],
                    creator_name=creator_name[:64], created_at=self._now,
                ).returning(held_tables.c.id)).one()
        except IntegrityError:
            return None
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return Lease(int(row.id), table, 1)

    def renew(self, lease: Lease) -> bool:
        """Renew the lease; ``False`` when it is no longer this node's (taken over, or run
        out and the table ended)."""
        try:
            with self.engine.begin() as conn:
                done = conn.execute(self._renewing(lease))
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return done.rowcount == 1

    def renew_all(self, leases: list[Lease]) -> set[int]:
        """Renew every lease of ``leases`` in one statement; the rows of those kept (the
        others are no longer this node's)."""
        if not leases:
            return set()
        try:
            with self.engine.begin() as conn:
                rows = conn.execute(
                    update(held_tables)
                    .where(held_tables.c.id.in_([lease.held_id for lease in leases]),
                           held_tables.c.node == self.node, held_tables.c.state == "held",
                           held_tables.c.lease_until > self._now)
                    .values(lease_until=self._now + self.lease)
                    .returning(held_tables.c.id, held_tables.c.epoch)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        epochs = {int(row.id): int(row.epoch) for row in rows}
        return {lease.held_id for lease in leases if epochs.get(lease.held_id) == lease.epoch}

    def _renewing(self, lease: Lease) -> Any:
        """The compare-and-set that keeps a lease: still this node's, at its epoch, and not
        run out (a lease that ran out may be taken over already, or at any moment)."""
        return (update(held_tables)
                .where(held_tables.c.id == lease.held_id, held_tables.c.epoch == lease.epoch,
                       held_tables.c.node == self.node, held_tables.c.state == "held",
                       held_tables.c.lease_until > self._now)
                .values(lease_until=self._now + self.lease))

    def free(self) -> list[HeldRow]:
        """Tables whose lease ran out (their node died or was cut off) or was handed over:
        for :meth:`take_over`, handed-over ones first."""
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(self._rows()
                                    .where(held_tables.c.live_name.is_not(None),
                                           held_tables.c.lease_until < self._now)
                                    .order_by(held_tables.c.state.desc(),
                                              held_tables.c.lease_until)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return [_held_row(row) for row in rows]

    def listed(self) -> list[HeldRow]:
        """Every table held now, by any node (the lobby's list of the community's tables)."""
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(self._rows()
                                    .where(held_tables.c.live_name.is_not(None))
                                    .order_by(held_tables.c.table_name)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return [_held_row(row) for row in rows]

    def _rows(self) -> Any:
        return select(held_tables.c.id, held_tables.c.table_name, held_tables.c.node,
                      held_tables.c.epoch, (held_tables.c.lease_until - self._now)
                      .label("lease_left"), held_tables.c.state, held_tables.c.creator,
                      held_tables.c.creator_name)

    def take_over(self, row: HeldRow) -> Lease | None:
        """Take the table of ``row`` (its lease ran out or was handed over) at the next
        epoch; ``None`` when another node was first, or its holder renewed it after all."""
        try:
            with self.engine.begin() as conn:
                # A row locked by another transaction (a node cut off in the middle of one,
                # until PostgreSQL ends its session) is skipped, not waited for: the next
                # poll tries it again.
                if conn.execute(select(held_tables.c.id)
                                .where(held_tables.c.id == row.held_id,
                                       held_tables.c.epoch == row.epoch)
                                .with_for_update(skip_locked=True)).first() is None:
                    return None
                done = conn.execute(
                    update(held_tables)
                    .where(held_tables.c.id == row.held_id, held_tables.c.epoch == row.epoch,
                           held_tables.c.live_name.is_not(None),
                           held_tables.c.lease_until < self._now)
                    .values(node=self.node, epoch=row.epoch + 1, state="held",
                            lease_until=self._now + self.lease))
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        if done.rowcount != 1:
            return None
        return Lease(row.held_id, row.table, row.epoch + 1)

    def hand_over(self, lease: Lease) -> bool:
        """Let go of a table for another node to take at once (this node stopped publishing
        first): its lease runs out now, marked handed over."""
        try:
            with self.engine.begin() as conn:
                done = conn.execute(
                    update(held_tables)
                    .where(held_tables.c.id == lease.held_id,
                           held_tables.c.epoch == lease.epoch,
                           held_tables.c.node == self.node)
                    .values(state="handover", lease_until=self._now))
                if done.rowcount == 1 and self.postgres:  # sent with the commit
                    conn.execute(select(func.pg_notify(HANDOVER_CHANNEL, lease.table)))
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return done.rowcount == 1

    def listen_handovers(self, wake: Callable[[], None], stop: threading.Event) -> None:
        """Call ``wake`` whenever a node hands a table over, until ``stop`` is set (runs in
        a thread of its own; PostgreSQL's ``LISTEN``, on a connection of its own). Without
        PostgreSQL, or while it is out of reach, returns or waits: the poll finds the
        tables anyway."""
        if not self.postgres:
            return
        import psycopg  # only with PostgreSQL

        conninfo = make_url(self.url).set(drivername="postgresql").render_as_string(
            hide_password=False)
        while not stop.is_set():
            try:
                with psycopg.connect(conninfo, autocommit=True, **PG_CONNECT) as conn:
                    conn.execute(f"LISTEN {HANDOVER_CHANNEL}")
                    wake()  # a hand-over while this was not listening
                    while not stop.is_set():
                        for _note in conn.notifies(timeout=0.5):
                            wake()
            except psycopg.Error as exc:
                log.info("node %s: not listening for hand-overs: %s", self.node,
                         str(exc).strip().splitlines()[0] if str(exc).strip() else exc)
                stop.wait(1.0)

    def end(self, lease: Lease, why: str) -> bool:
        """The table ended (its game, its lobby, its creator): no node takes it again, and
        its name is free."""
        try:
            with self.engine.begin() as conn:
                done = conn.execute(
                    update(held_tables)
                    .where(held_tables.c.id == lease.held_id,
                           held_tables.c.epoch == lease.epoch)
                    .values(state="ended", live_name=None, ended_at=self._now,
                            why=why[:500]))
                if done.rowcount == 1:
                    # Its journal is of no more use (the game's record is the truth), nor
                    # are the rows of tables ended long ago.
                    conn.execute(delete(journal_entries)
                                 .where(journal_entries.c.held_id == lease.held_id))
                    conn.execute(delete(held_tables)
                                 .where(held_tables.c.state == "ended",
                                        held_tables.c.ended_at < self._now - KEEP_ENDED))
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return done.rowcount == 1

    # -- journals ----------------------------------------------------------------------------

    def append(self, lease: Lease, first: int, lines: list[bytes]) -> None:
        """Journal ``lines`` (entries ``first``, ``first + 1``…) for the table of ``lease``,
        renewing it, in one transaction; `JournalFenced` (nothing written) if the lease is
        no longer this node's."""
        try:
            with self.engine.begin() as conn:
                if conn.execute(self._renewing(lease)).rowcount != 1:
                    conn.rollback()
                    raise JournalFenced(f"table {lease.table}: its lease (epoch "
                                        f"{lease.epoch}) is no longer this node's")
                if lines:
                    conn.execute(insert(journal_entries), [
                        {"held_id": lease.held_id, "seq": first + i, "epoch": lease.epoch,
                         "entry": line} for i, line in enumerate(lines)])
        except IntegrityError:
            # Our own commit went through before, its answer lost: the same lines are
            # there (anything else there is another writer's, and the journal not ours).
            if self._committed(lease, first, lines):
                return
            raise JournalFenced(f"table {lease.table}: its journal has other entries at "
                                f"{first}") from None
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None

    def _committed(self, lease: Lease, first: int, lines: list[bytes]) -> bool:
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(select(journal_entries.c.entry)
                                    .where(journal_entries.c.held_id == lease.held_id,
                                           journal_entries.c.seq >= first,
                                           journal_entries.c.seq < first + len(lines))
                                    .order_by(journal_entries.c.seq)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        return [bytes(row.entry) for row in rows] == lines

    def host_of(self, table: str) -> str | None:
        """The id of the key that hosts ``table`` (held now, by any node), from its
        journal's first entry (``host``, written by the node that opened it); ``None``
        when it is not held or its journal does not say."""
        try:
            with self.engine.connect() as conn:
                row = conn.execute(
                    select(journal_entries.c.entry)
                    .join(held_tables, held_tables.c.id == journal_entries.c.held_id)
                    .where(held_tables.c.live_name == table, journal_entries.c.seq == 0)
                ).first()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        if row is None:
            return None
        try:
            head = json.loads(bytes(row.entry))
        except ValueError:
            return None
        host = head.get("host") if isinstance(head, dict) else None
        return host if isinstance(host, str) else None

    def entries(self, held_id: int) -> list[Entry]:
        """A held table's journal, in order; `JournalError` if a line is unreadable."""
        try:
            with self.engine.connect() as conn:
                rows = conn.execute(select(journal_entries.c.seq, journal_entries.c.entry)
                                    .where(journal_entries.c.held_id == held_id)
                                    .order_by(journal_entries.c.seq)).all()
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None
        found: list[Entry] = []
        for index, row in enumerate(rows):
            if row.seq != index:
                raise JournalError(f"the journal of held table {held_id} misses entry "
                                   f"{index}")
            try:
                entry = from_json(json.loads(bytes(row.entry)))
            except ValueError as exc:
                raise JournalError(f"the journal of held table {held_id} is damaged at "
                                   f"entry {index}: {exc}") from None
            if not isinstance(entry, dict) or not isinstance(entry.get("t"), str):
                raise JournalError(f"the journal of held table {held_id}: entry {index} is "
                                   "not an entry")
            found.append(entry)
        if not found or found[0].get("format") != FORMAT:
            raise JournalError(f"held table {held_id} has no journal")
        if found[0].get("version") != VERSION:
            raise JournalError(f"held table {held_id}: journal version "
                               f"{found[0].get('version')!r} is not {VERSION}")
        return found

    # -- players' identities -----------------------------------------------------------------

    def profile_seed(self, profile: str, seed: bytes) -> bytes:
        """The seed of ``profile``'s game identity for every node: the one stored, or
        ``seed`` (this node's) stored now if there is none."""
        try:
            with self.engine.begin() as conn:
                found = conn.execute(select(profile_keys.c.seed)
                                     .where(profile_keys.c.profile == profile)).first()
                if found is not None:
                    return bytes(found.seed)
            with self.engine.begin() as conn:
                conn.execute(insert(profile_keys).values(profile=profile, seed=seed,
                                                         created_at=time.time()))
            return seed
        except IntegrityError:  # another node stored it first: theirs it is
            return self.profile_seed(profile, seed)
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None

    def db_time(self) -> float:
        try:
            with self.engine.connect() as conn:
                return float(conn.execute(select(self._now)).scalar_one())
        except (OperationalError, DBAPIError, OSError) as exc:
            raise self._down(exc) from None


def _held_row(row: Any) -> HeldRow:
    return HeldRow(int(row.id), str(row.table_name), str(row.node), int(row.epoch),
                   float(row.lease_left), str(row.state), str(row.creator),
                   str(row.creator_name))


class DbJournal:
    """A held table's journal in the shared database, under its lease: what
    ``netplay.host_peer.Host`` asks of a journal (``netplay.journal.JournalFile``'s
    :meth:`write` / :meth:`sync_written` / :meth:`mark_synced`), each "sync" one
    transaction that checks and renews the lease and inserts what was written since.

    A failed sync raises `JournalFenced`: the host then stops publishing (it can't go on
    without a journal as a lone host does: another node would resume the table from
    entries that miss what this one published)."""

    inline = False
    """Never synced on the event loop's thread: a round trip to the database."""
    fenced_on_failure = True

    def __init__(self, store: ClusterStore, lease: Lease, *, next_seq: int = 0) -> None:
        self.store = store
        self.lease = lease
        self.path = Path(f"held-table-{lease.held_id}")
        """A name for the logs (there is no file)."""
        self._lock = threading.Lock()
        self._commit = threading.Lock()
        self._dead: str | None = None
        """Why a commit failed for good: nothing is committed after it."""
        self._lines: list[bytes] = []
        self._next = next_seq
        self.written = 0
        self.synced = 0
        self.writes = 0
        self.write_seconds = 0.0
        self._closed = False
        self.valid_until = time.monotonic() + store.lease - store.fence_margin
        """This node's own deadline for the lease (monotonic clock): past it, the table
        may be another node's, and nothing more is committed or published."""

    @property
    def epoch(self) -> int:
        """The epoch the table is held at: its host's, in every frame."""
        return self.lease.epoch

    @classmethod
    def create(cls, store: ClusterStore, lease: Lease, **header: Any) -> DbJournal:
        """A new table's journal: its first entry names it, committed at once."""
        journal = cls(store, lease)
        journal.append([{"t": "journal", "format": FORMAT, "version": VERSION,
                         "table": lease.table, "created": time.time(), **header}])
        return journal

    def append(self, entries: Iterable[Entry]) -> None:
        started = time.perf_counter()
        if not self.write(entries):
            return
        self.mark_synced(self.sync_written())
        self.writes += 1
        self.write_seconds += time.perf_counter() - started

    def write(self, entries: Iterable[Entry]) -> int:
        if self._closed:
            raise JournalError(f"the journal of table {self.lease.table} is closed")
        lines = [encode_entry(e) for e in entries]
        if not lines:
            return 0
        with self._lock:
            self._lines.extend(lines)
            self.written += len(lines)
        return len(lines)

    @property
    def unsynced(self) -> bool:
        return self.synced < self.written

    def sync_written(self) -> int:
        """Commit what was written (and renew the lease); what it covers. Runs in a
        syncing thread; raises `JournalFenced` when the lease is lost or the database is
        out of reach (nothing that waited on it may be published)."""
        # One commit at a time, in order (a driver's own entry may come while a syncing
        # thread commits): entries are committed in their order or not at all, and once
        # one commit failed no later one may pass, nor cover what it lost.
        with self._commit:
            if self._dead is not None:
                raise JournalFenced(self._dead)
            with self._lock:
                lines, self._lines = self._lines, []
                first = self._next
                self._next += len(lines)
                target = self.written
            try:
                self._commit_lines(first, lines)
            except JournalFenced as exc:
                self._dead = str(exc)
                raise
            return target

    def _commit_lines(self, first: int, lines: list[bytes]) -> None:
        while True:
            sent = time.monotonic()
            if sent >= self.valid_until:
                raise JournalFenced(f"table {self.lease.table}: its lease could not be "
                                    "renewed in time")
            try:
                self.store.append(self.lease, first, lines)
            except ClusterDown as exc:
                log.warning("journal of table %s: %s (trying again)", self.lease.table, exc)
                time.sleep(min(0.2, max(0.0, self.valid_until - time.monotonic())))
                continue
            self.renewed(sent)
            return

    def renewed(self, sent: float) -> None:
        """The lease was renewed by a statement sent at ``sent`` (monotonic)."""
        self.valid_until = max(self.valid_until,
                               sent + self.store.lease - self.store.fence_margin)

    def mark_synced(self, upto: int) -> None:
        self.synced = max(self.synced, upto)

    def close(self) -> None:
        self._closed = True

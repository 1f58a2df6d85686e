"""What ``stacks serve`` tells Prometheus: its sessions, tables, games, stores, refusals,
memory and the held tables' latency (``--metrics-port``; served with the health check by
`sshserver.health`).

One registry per server, owned by the server's own process. Nothing is counted in the
sessions' processes (forked from the fork server, or spawned): everything measured
happens in the server's process, or is read there from ``/proc`` (a session's memory), so
no multiprocess mode and no report from a child is needed, and a session that crashes
takes no count with it. Counts of things the server keeps (its sessions, held tables,
finished-game notes) are read when Prometheus scrapes; events (a refused login, an
action's answer) are counted as they happen.

The names (each prefixed ``stacks_``):

======================================= ====== ===============================================
``sessions``                            gauge  ssh sessions now
``session_memory_bytes``                gauge  the sessions' programs' memory, PSS summed
``session_processes_measured``          gauge  sessions whose memory was read
``tables{state}``                       gauge  held tables by stage (lobby, dealing, playing,
                                               race, over, public_over, closed)
``games_finished_total``                counter held tables' games that reached their end
``ratings_pending``                     gauge  finished games waiting for the database
``ratings_refused``                     gauge  finished games set aside (record unreadable or
                                               not verified)
``ratings_store_failures_total``        counter times storing a game failed (database down/full)
``database_errors_total``               counter failed database calls (stores, logins)
``logins_refused_total{cause}``         counter ssh logins turned away, by cause
``action_own_view_seconds``             histogram a seat's action to its own view, at the
                                               host (`sshserver.latency`)
======================================= ====== ===============================================

plus the server process's own ``process_*`` figures (CPU, resident memory, descriptors).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from netplay.hosting.state import Stage

if TYPE_CHECKING:
    from ratings.archive import Archive
    from sshserver.tables import TableKeeper

REFUSED_CAUSES = ("unknown_key", "server_full", "banned")
"""Causes of a refused login, each reported from the start (at 0): a key the server does
not let in (not in the authorized-keys file nor on an account), a connection beyond
``--max-sessions``, and a banned key or account (`sshserver.moderation`)."""

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0,
                   5.0)
"""Seconds: a fast disk's journal sync and the sealing take about a millisecond; a busy
server tens."""

STATES = tuple(stage.value.replace(" ", "_") for stage in Stage)


# -- what the metrics read of the server ---------------------------------------------------------


class _Process(Protocol):
    @property
    def pid(self) -> int | None: ...


class _Session(Protocol):
    @property
    def proc(self) -> _Process | None: ...


class Observed(Protocol):
    """What the metrics read of the server: its sessions, held tables and archive."""

    @property
    def sessions(self) -> Collection[_Session]: ...

    @property
    def tables(self) -> TableKeeper: ...

    @property
    def archive(self) -> Archive: ...


# -- a process's memory --------------------------------------------------------------------------


def pss_bytes(pid: int) -> int | None:
    """The proportional set size of process ``pid`` (its private pages, and its share of
    the pages it shares: the honest sum over forked sessions); ``None`` when it can't be
    read (gone, or not Linux)."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) * 1024
    return None


# -- the registry --------------------------------------------------------------------------------


class _Now(Collector):
    """The figures read at each scrape."""

    def __init__(self, server: Observed) -> None:
        self.server = server

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        server = self.server
        sessions = list(server.sessions)
        yield GaugeMetricFamily("stacks_sessions", "ssh sessions connected now",
                                value=len(sessions))
        memory = measured = 0
        for session in sessions:
            pid = session.proc.pid if session.proc is not None else None
            size = pss_bytes(pid) if pid is not None else None
            if size is not None:
                memory += size
                measured += 1
        yield GaugeMetricFamily(
            "stacks_session_memory_bytes",
            "memory of the sessions' programs: their proportional set sizes (PSS), summed",
            value=memory)
        yield GaugeMetricFamily("stacks_session_processes_measured",
                                "sessions whose program's memory was read",
                                value=measured)
        tables = GaugeMetricFamily("stacks_tables", "tables held by the server, by stage",
                                   labels=["state"])
        counts = dict.fromkeys(STATES, 0)
        for table in list(server.tables.tables.values()):
            key = table.host.host.state.stage.value.replace(" ", "_")
            counts[key] = counts.get(key, 0) + 1
        for state, count in counts.items():
            tables.add_metric([state], count)
        yield tables
        yield CounterMetricFamily("stacks_games_finished",
                                  "games of held tables that reached their end",
                                  value=server.tables.games_finished)
        archive = server.archive
        yield GaugeMetricFamily("stacks_ratings_pending",
                                "finished games waiting to be stored in the database",
                                value=len(archive.pending()))
        yield GaugeMetricFamily("stacks_ratings_refused",
                                "finished games set aside: their record could not be rated",
                                value=_refused(archive.folder))
        yield CounterMetricFamily("stacks_ratings_store_failures",
                                  "attempts to store a finished game that failed",
                                  value=archive.failures)
        yield CounterMetricFamily("stacks_database_errors",
                                  "database calls that failed (storing games, accounts)",
                                  value=archive.errors)


def _refused(folder: Path) -> int:
    try:
        return sum(1 for _ in folder.glob("*.refused")) if folder.is_dir() else 0
    except OSError:
        return 0


class ServerMetrics:
    """The server's registry, and what its events count into."""

    def __init__(self, server: Observed) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(_Now(server))
        ProcessCollector(registry=self.registry)
        self._refused = Counter("stacks_logins_refused", "ssh logins turned away, by cause",
                                ["cause"], registry=self.registry)
        for cause in REFUSED_CAUSES:
            self._refused.labels(cause)
        self.latency = Histogram(
            "stacks_action_own_view_seconds",
            "held tables: from the host taking a seat's action to the frame with that "
            "seat's own view leaving it",
            buckets=LATENCY_BUCKETS, registry=self.registry)

    def refused(self, cause: str) -> None:
        """A login turned away (a cause of `REFUSED_CAUSES`, or a new one)."""
        self._refused.labels(cause).inc()

    def observe_latency(self, seconds: float) -> None:
        self.latency.observe(seconds)


def parse_samples(text: str) -> Mapping[str, float]:
    """A scrape's samples by name with their labels (``name{a="b"}``), as a test or a
    script reads them."""
    from prometheus_client.parser import text_string_to_metric_families

    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found

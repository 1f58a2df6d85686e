"""One trial of a community of servers losing a node, as its players live it.

On a started `harness.Cluster`: two ``stacks serve --node`` (``n1``, ``n2``) on one fresh
database, every player an OpenSSH client in the root namespace whose session runs
`stacks.bench.cluster.player`. Each table has three seats: the server's bot, a player
whose session is on ``n1`` (who opens the table there: ``n1`` holds it) and one whose
session is on ``n2``. Once every table is mid-game, the fault (`KINDS`) strikes ``n1``;
a cut lasts `CUT_FOR` seconds. A player whose ssh connection ended before its game's
verdict connects again, to ``n2``. Then every game must end and be verified by its
players, and the trial reads:

- the database (every table's game stored once, each seat's rating counting it once);
- the records the nodes wrote (each verifies: `netplay.record.verify_record`);
- the eavesdropper on every broker node (no batch number with two contents; one host
  key and commitment per table; when each table's new epoch was first announced; the
  longest silence of the seats' stream);
- the leases (`LeaseWatch`: when each table's lease ran out);
- what the players said (``MOVED`` with the words a player reads; each the same seat
  before and after);
- what a spectator of the first table saw in the real interface (`watcher.Watcher`:
  OpenSSH in tmux, ``watch``, on ``n1`` for a drain, else on ``n2``): the table before
  the fault, the words of the move (or of connecting again), the game going on, its end.

`Trial.run` gives a `Outcome`: the figures and, in ``problems``, everything that went
wrong, in words (empty: the trial passed).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from stacks.bench.cluster import KINDS
from stacks.bench.cluster.eavesdrop import Eavesdropper
from stacks.bench.cluster.harness import Cluster
from stacks.bench.cluster.watcher import Watcher

MOVES = frozenset({"kill", "cut-db", "cut-broker", "cut-both", "drain"})
"""The faults after which ``n1``'s tables must be hosted by another node."""
CUT_FOR = 12.0
"""Seconds a cut lasts: past a lease (5 s) and a takeover."""
SSH_PORT = 2222
SSH = shutil.which("ssh") or "/usr/bin/ssh"
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
TMUX = shutil.which("tmux") or "/usr/bin/tmux"
MOVED_WORDS = "The server moved the table"
"""What a player reads when its table moved to another node (`HostMoved.words`)."""
DRAIN_WORDS = "connect again"
BROKER_WORDS = "lost its connection to the game's broker: connect again"
"""What an ssh player of a draining node reads."""
MID_GAME = 3
"""Batches every table has published before the fault: mid-game (the deal is batch 1)."""
SAME_BATCH_S = 0.5
"""How long after a batch's ``events`` frame its frame on the seats' stream may be heard
(the host publishes both at once)."""


@dataclass
class Outcome:
    kind: str
    tables: int
    takeover_s: list[float] = field(default_factory=list)
    """Per table that moved: from its lease's end to its new epoch's first announcement."""
    pause_s: float = 0.0
    """The longest silence of any table's seats' stream from the fault on, until the
    table's last batch (its game over): a pause mid-game, not the host's beats (every
    2 s) while the players verify the ended game."""
    player_pause_s: float = 0.0
    """The longest a player waited from the fault on, as its program told it (between two
    of its lines: a batch applied, or a new ssh connection), reconnecting included: every
    gap that ends after the fault, the one it struck in counted from its start."""
    moved_words: int = 0
    """Players (and the eavesdropper's spectators) told the table moved, in words."""
    stored: int = 0
    verified: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class LeaseWatch:
    """Reads ``held_tables`` every 0.2 s in a thread: each table's leases as they were."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.seen: dict[str, list[tuple[float, str, int, float, str]]] = {}
        """table → (when read, node, epoch, lease_until, state), each change once."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="leases")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        import psycopg

        while not self._stop.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as conn:
                    while not self._stop.is_set():
                        rows = conn.execute("SELECT table_name, node, epoch, lease_until, "
                                            "state FROM held_tables").fetchall()
                        now = time.time()
                        for name, node, epoch, until, state in rows:
                            history = self.seen.setdefault(str(name), [])
                            entry = (now, str(node), int(epoch), float(until), str(state))
                            if not history or history[-1][1:] != entry[1:]:
                                history.append(entry)
                        self._stop.wait(0.2)
            except Exception:  # the database restarting, or not made yet
                self._stop.wait(0.2)

    def lease_end(self, table: str, epoch: int) -> float | None:
        """When the lease of ``table`` at ``epoch`` ended: its last renewal's end, or
        when it was first seen handed over (a node draining, or without a broker, gives
        its tables up before their leases run out), and no later than a later epoch was
        first seen (a hand-over taken within one read of the table is never seen)."""
        history = self.seen.get(table, [])
        entries = [entry for entry in history if entry[2] == epoch]
        if not entries:
            return None
        ends = [entries[-1][3]]
        ends += [entry[0] for entry in entries if entry[4] == "handover"][:1]
        ends += [entry[0] for entry in history if entry[2] > epoch][:1]
        return min(ends)

    def epochs(self, table: str) -> list[tuple[str, int]]:
        """(node, epoch) of each holder of ``table``, in order."""
        held: list[tuple[str, int]] = []
        for _, node, epoch, _, _ in self.seen.get(table, []):
            if not held or held[-1] != (node, epoch):
                held.append((node, epoch))
        return held


@dataclass
class Seat:
    """One player: who, at which table, and its ssh connections so far."""

    name: str
    table: str
    key: Path
    log: Path
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    tmux: Path | None = None
    """The socket of the tmux server whose window ``name`` runs this player's ssh (a
    terminal, as a person's), or ``None``: ssh runs with its output to the log."""

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    @property
    def done(self) -> bool:
        return "VERIFIED" in self.output()

    @property
    def connected(self) -> bool:
        if self.tmux is not None:
            return bool(self.nodes) and tmux(self.tmux, "has-session", "-t",
                                             self.name).returncode == 0
        return bool(self.procs) and self.procs[-1].poll() is None

    def screen(self) -> str:
        """What the player's terminal shows now (a tmux player's)."""
        if self.tmux is None:
            return ""
        return tmux(self.tmux, "capture-pane", "-p", "-S", "-", "-t", self.name).stdout


def tmux(socket: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a command of the tmux server at ``socket`` (its own; never the user's)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TMUX", "TMUX_PANE", "COLUMNS", "LINES")}
    return subprocess.run([TMUX, "-S", str(socket), *args], capture_output=True, text=True,
                          timeout=30, env=env)


class Trial:
    """One trial of ``kind`` with ``tables`` tables on ``cluster``, in ``folder``."""

    def __init__(self, cluster: Cluster, kind: str, tables: int, folder: Path,
                 timeout: float = 180.0, tag: str = "", in_tmux: int = 0) -> None:
        """``tag`` starts every table's name: a name of its own in each trial on one
        broker (an ended table's announcement stays there). ``in_tmux``: how many
        players (those on ``n2`` first) play in a terminal, a tmux window."""
        self.in_tmux = in_tmux
        if kind not in KINDS:
            raise ValueError(f"unknown trial kind {kind!r}: one of {', '.join(KINDS)}")
        self.cluster = cluster
        self.kind = kind
        self.count = tables
        self.folder = folder
        self.timeout = timeout
        self.tables = [f"{tag}t{i}" for i in range(tables)]
        self.seats: list[Seat] = []
        self.homes = {node: folder / f"home-{node}" for node in ("n1", "n2")}
        self.logs = {node: folder / f"serve-{node}.log" for node in ("n1", "n2")}
        self.database = ""
        self.outcome = Outcome(kind, tables)
        self.screens: dict[str, str] = {}
        self.fault_at: float | None = None
        self._cut_until: float | None = None
        self._wake = threading.Event()
        """Set when a player's ssh ended: the waits look at once (it connects again at
        once, as a player's reconnecting loop would, not at the next look)."""

    # -- setting up ---------------------------------------------------------------------------

    def _keys(self) -> str:
        keys = self.folder / "keys"
        keys.mkdir(parents=True, exist_ok=True)
        authorized = ""
        for i, table in enumerate(self.tables):
            for side in ("a", "b"):
                name = f"p{i}{side}"
                key = keys / name
                subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", name,
                                "-f", str(key)], check=True, timeout=60)
                authorized += (keys / f"{name}.pub").read_text()
                self.seats.append(Seat(name, table, key, self.folder / f"ssh-{name}.log"))
        by_n2 = sorted(self.seats, key=lambda seat: not seat.name.endswith("b"))
        for seat in by_n2[:self.in_tmux]:
            seat.tmux = self.folder / "tmux.sock"
        return authorized

    def _watcher_key(self) -> str:
        """The spectator's key (its own account), for ``authorized_keys``."""
        key = self.folder / "keys" / "w0"
        subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", "w0",
                        "-f", str(key)], check=True, timeout=60)
        return (self.folder / "keys" / "w0.pub").read_text()

    def serve(self, node: str) -> subprocess.Popen[bytes]:
        home = self.homes[node]
        # Forked from the server's fork server, as a real player's `stacks` is.
        return self.cluster.serve(node, self.database, "--ssh-port", str(SSH_PORT),
                                  "--session-entry", "stacks.bench.cluster.player:main",
                                  log=self.logs[node], home=home)

    def _listening(self, node: str) -> bool:
        import socket

        with contextlib.suppress(OSError), socket.create_connection(
                (self.cluster.address(node), SSH_PORT), 1):
            return True
        return False

    def ssh_argv(self, key: Path, user: str, node: str, *command: str) -> list[str]:
        """OpenSSH to ``node``'s server as ``user`` with ``key``, a terminal asked for."""
        return [SSH, "-F", "/dev/null", "-p", str(SSH_PORT), "-i", str(key),
                "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=20",
                "-o", "ServerAliveInterval=2", "-o", "ServerAliveCountMax=3",
                "-tt", f"{user}@{self.cluster.address(node)}", *command]

    def connect(self, seat: Seat, node: str) -> None:
        argv = self.ssh_argv(seat.key, seat.name, node, "join", seat.table)
        if seat.tmux is not None:
            with seat.log.open("ab") as out:
                out.write(f"{time.time():.3f} CONNECT {node}\r\n".encode())
            # The window ends with ssh; its output goes to the log as it is shown.
            tmux(seat.tmux, "kill-session", "-t", seat.name)
            tmux(seat.tmux, "new-session", "-d", "-s", seat.name, "-x", "120", "-y", "30",
                 shlex.join(argv) + "; sleep 0.5")
            tmux(seat.tmux, "pipe-pane", "-t", seat.name, f"cat >> {shlex.quote(str(seat.log))}")
            seat.nodes.append(node)
            return
        with seat.log.open("ab") as out:
            out.write(f"{time.time():.3f} CONNECT {node}\r\n".encode())
            out.flush()
            env = {k: v for k, v in os.environ.items() if k != "SSH_AUTH_SOCK"}
            proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out,
                                    stderr=subprocess.STDOUT, env=env, start_new_session=True)
            seat.procs.append(proc)
        seat.nodes.append(node)
        threading.Thread(target=self._watch, args=(proc,), daemon=True,
                         name=f"ssh-{seat.name}").start()

    def _watch(self, proc: subprocess.Popen[bytes]) -> None:
        proc.wait()
        self._wake.set()

    # -- waiting -------------------------------------------------------------------------------

    def _until(self, condition: Any, what: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.timeout)
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.kind}: timed out waiting for {what}")
            self._wake.wait(0.1)  # the next look: in 0.1 s, or when a player's ssh ended
            self._wake.clear()

    def log(self, node: str) -> str:
        path = self.logs[node]
        return path.read_text(errors="replace") if path.exists() else ""

    # -- the trial ------------------------------------------------------------------------------

    def run(self, database: str) -> Outcome:
        """The trial on a fresh ``database`` (its URL); never raises for what went wrong
        in the trial: that is in the outcome's ``problems``."""
        started = time.monotonic()
        self.database = database
        self.folder.mkdir(parents=True, exist_ok=True)
        authorized = self._keys() + self._watcher_key()
        for home in self.homes.values():
            home.mkdir(parents=True, exist_ok=True)
            (home / "authorized_keys").write_text(authorized)
        ears = Eavesdropper(self.cluster.broker.urls, self.tables,
                            watch_url=self.cluster.broker.url("n3"))
        leases = LeaseWatch(database)
        try:
            ears.start()
            leases.start()
            self._play(ears, leases)
            self._spectator_end()
        except (TimeoutError, RuntimeError, OSError) as exc:
            self.outcome.problems.append(str(exc))
        finally:
            leases.stop()  # the servers' stopping hands tables over: not the trial's
            self._spectator_stop()
            self._stop_all()
            ears.stop()
        self._check(ears, leases)
        self.outcome.seconds = time.monotonic() - started
        return self.outcome

    def _play(self, ears: Eavesdropper, leases: LeaseWatch) -> None:
        for node in ("n1", "n2"):
            self.serve(node)
        for node in ("n1", "n2"):
            self._until(lambda node=node: self._listening(node), f"{node} to listen", 60)
        for seat in self.seats:
            if seat.name.endswith("a"):
                self.connect(seat, "n1")
        for table in self.tables:
            self._until(lambda t=table: f"opened table {t} " in self.log("n1") and
                        any(h[1] == "n1" for h in leases.seen.get(t, [])),
                        f"table {table} to open on n1")
        self._spectate()
        for seat in self.seats:
            if seat.name.endswith("b"):
                self.connect(seat, "n2")
        self._until(lambda: all(ears.batches(t) >= MID_GAME for t in self.tables) and
                    self._spectator_drawn(), "every table to be mid-game")
        self.fault_at = time.time()
        self._strike()
        self._until(self._finished, "every game to end and be verified")
        # The cut ends on time even when every game ended before it: a node cut off from
        # the database stores its games once it is back.
        self._until(lambda: self._cut_ended() and self._stored() >= self.count,
                    "every game to be stored", 60)

    def _cut_ended(self) -> bool:
        """Undo the cut once it lasted `CUT_FOR` seconds; always true (a wait's step)."""
        if self._cut_until is not None and time.monotonic() >= self._cut_until:
            self.cluster.restore("n1")
            self._cut_until = None
        return True

    def _strike(self) -> None:
        cluster, kind = self.cluster, self.kind
        if kind == "kill":
            cluster.kill("n1")
        elif kind == "drain":
            cluster.servers["n1"].send_signal(signal.SIGTERM)
        elif kind == "db-restart":
            cluster.db.restart()
        else:
            cluster.cut("n1", kind.removeprefix("cut-"))  # type: ignore[arg-type]
            self._cut_until = time.monotonic() + CUT_FOR

    def _finished(self) -> bool:
        """Every seat verified; meanwhile a cut ends on time, and a player whose ssh
        connection ended early connects again (to ``n2``)."""
        if self._cut_until is not None and time.monotonic() >= self._cut_until:
            self.cluster.restore("n1")
            self._cut_until = None
        for seat in self.seats:
            if not seat.done and not seat.connected:
                if len(seat.procs) > 5:
                    raise RuntimeError(f"{seat.name} lost its connection 6 times:\n"
                                       f"{seat.output()[-2000:]}")
                self.connect(seat, "n2")
        return all(seat.done for seat in self.seats)

    def _stop_all(self) -> None:
        if self._cut_until is not None:
            self.cluster.restore("n1")
        for seat in self.seats:
            if seat.tmux is not None:
                # What its terminal showed: the window is gone after ssh ends, its output
                # is in the log (pipe-pane) but the words must have been on the screen.
                self.screens[seat.name] = seat.screen() or seat.output()
                tmux(seat.tmux, "kill-server")
            for proc in seat.procs:
                if proc.poll() is None:
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(10)
        for node, proc in list(self.cluster.servers.items()):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                self.outcome.problems.append(f"{node} did not stop within 30 s of SIGTERM")
            self.cluster.kill(node)
        self.cluster.servers.clear()

    # -- the verdict ----------------------------------------------------------------------------

    def _check(self, ears: Eavesdropper, leases: LeaseWatch) -> None:
        out = self.outcome
        for table, bad in ears.conflicts().items():
            out.problems.append(f"table {table}: batch numbers published with two "
                                f"contents: {sorted(bad)}")
        since = self.fault_at
        for table in self.tables:
            seen = ears.table(table)
            if since is not None:
                over = seen.last_batch_at()
                out.pause_s = max(out.pause_s, seen.longest_silence(
                    since - 2.0, None if over is None else over + SAME_BATCH_S))
            hosts = {(entry.host, entry.commit) for entry in seen.announcements}
            if len(hosts) > 1:
                out.problems.append(f"table {table} was announced with {len(hosts)} host "
                                    f"keys or commitments: {sorted(hosts)}")
            held = leases.epochs(table)
            for (_, old), (_, new) in itertools.pairwise(held):
                end = leases.lease_end(table, old)
                first = min((at for epoch, at in seen.epochs().items() if epoch >= new),
                            default=None)
                if end is not None and first is not None:
                    out.takeover_s.append(max(0.0, first - end))
            if self.kind in MOVES and not any(node != "n1" for node, _ in held):
                out.problems.append(f"table {table} was never held by another node: "
                                    f"{held}")
        if since is not None:
            # Every gap that ends after the fault, in full (the one it struck in too); not a
            # gap that ended before it (a player's first join, a game's start).
            out.player_pause_s = max(player_pause(seat.output(), since)
                                     for seat in self.seats)
        for seat in self.seats:
            places = set(re.findall(r" SEATED (\d+)", seat.output()))
            if len(places) > 1:
                out.problems.append(f"{seat.name} sat in seats {sorted(places)}, not one")
        if self.kind == "drain" and not any(
                DRAIN_WORDS in seat.output() for seat in self.seats if seat.name.endswith("a")):
            out.problems.append("no player of the drained node was told to connect again")
        if self.kind == "cut-broker" and not any(
                BROKER_WORDS in seat.output() for seat in self.seats if seat.name.endswith("a")):
            out.problems.append("no player of the node cut off from the broker was told it "
                                "lost the broker and to connect again")
        for seat in self.seats:
            if seat.tmux is not None and self.kind in MOVES and \
                    MOVED_WORDS not in self.screens.get(seat.name, ""):
                out.problems.append(f"{seat.name}'s terminal never showed {MOVED_WORDS!r}")
        words = [line for seat in self.seats for line in seat.output().splitlines()
                 if " MOVED " in line]
        words += [text for table in self.tables for _, text in ears.table(table).spectator
                  if "moved" in text]
        out.moved_words = len(words)
        if self.kind in MOVES and not words:
            out.problems.append("no player was told the table moved")
        self._check_database()
        self._check_records()
        self._check_spectator()

    def _rows(self, query: str) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.database, autocommit=True, connect_timeout=10) as conn:
            return [tuple(row) for row in conn.execute(query).fetchall()]

    def _stored(self) -> int:
        try:
            return len(self._rows("SELECT id FROM games"))
        except Exception:  # not made yet, or the database restarting
            return 0

    def _check_database(self) -> None:
        out = self.outcome
        try:
            ids = [str(row[0]) for row in self._rows("SELECT id FROM games")]
            seats = Counter(str(row[0]) for row in self._rows(
                "SELECT fingerprint FROM game_seats"))
            rated = {str(r[0]): int(r[1]) for r in self._rows(
                "SELECT fingerprint, games FROM ratings WHERE kind = 'stacks'")}
        except Exception as exc:
            out.problems.append(f"the database can't be read: {exc}")
            return
        out.stored = len(set(ids))
        if len(ids) != len(set(ids)):
            out.problems.append(f"a game stored twice: {sorted(ids)}")
        if out.stored != self.count:
            out.problems.append(f"{out.stored} games stored, not {self.count}")
        if rated != dict(seats):
            out.problems.append(f"ratings don't count each seat's games once: {rated} "
                                f"against {dict(seats)}")

    def _check_records(self) -> None:
        from netplay.record import read_record, verify_record

        out = self.outcome
        games: set[str] = set()
        for home in self.homes.values():
            for path in sorted((home / "data" / "records").glob("*.json")):
                try:
                    record = read_record(path)
                    verdict = verify_record(record)
                except ValueError as exc:
                    out.problems.append(f"record {path.name} unreadable: {exc}")
                    continue
                if not verdict.ok:
                    out.problems.append(f"record {path.name} does not verify: "
                                        f"{verdict.detail}")
                    continue
                games.add(str(record["commit"].hex()))
        out.verified = len(games)
        if out.verified != self.count:
            out.problems.append(f"{out.verified} games recorded and verified, not "
                                f"{self.count}")

    # -- the spectator (a person watching in the real interface) -----------------------------

    watcher: Watcher | None = None

    def _spectate(self) -> None:
        """The spectator of the first table, on the node the fault strikes if it is a
        drain (it must connect again and be back watching), else on ``n2``; the game
        waits for it (its other player is not seated yet) until its screen shows the
        table."""
        node = "n1" if self.kind == "drain" else "n2"
        table = self.tables[0]
        key = self.folder / "keys" / "w0"
        self.watcher = Watcher(
            "w0", table, self.folder / "spectator.sock", self.folder / "ssh-w0.log",
            lambda at: self.ssh_argv(key, "w0", at, "watch", table), tmux, again="n2")
        self.watcher.start(node)
        self._until(lambda: self._spectator_shows(f"{table} · "),
                    f"the spectator's screen to show table {table}", 60)

    def _spectator_shows(self, text: str) -> bool:
        watcher = self.watcher
        return watcher is not None and any(text in s.text for s in watcher.screens)

    def _spectator_drawn(self) -> bool:
        """Whether the spectator's screen showed its table mid-game (a turn)."""
        return self.watcher is None or self.watcher.drawn()

    def _spectator_end(self) -> None:
        """Wait for the game over on the spectator's screen: a problem if it never comes."""
        watcher = self.watcher
        if watcher is None:
            return
        with contextlib.suppress(TimeoutError):
            self._until(watcher.over, "the spectator's screen to show the game over", 30)

    def _spectator_stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            tmux(self.watcher.socket, "kill-server")

    def _check_spectator(self) -> None:
        watcher, since = self.watcher, self.fault_at
        if watcher is None or since is None:
            return
        drained = self.kind == "drain"
        moved = MOVED_WORDS if self.kind in MOVES and not drained else None
        self.outcome.problems += watcher.problems(
            since, moved=moved, reconnect=DRAIN_WORDS if drained else None)

    def diagnostics(self) -> str:
        """The servers' logs and the players' words, for a failure's report."""
        parts = [f"== {node}\n{self.log(node)[-4000:]}" for node in self.logs]
        for seat in self.seats:
            said = [line for line in seat.output().splitlines()
                    if line.strip() and " APPLIED " not in line]
            parts.append(f"== {seat.name} (batches applied left out)\n" +
                         "\n".join(said[-30:]))
        return "\n".join(parts)


_STAMPED = re.compile(r"(?<![\d.])(\d{9,11}\.\d{3}) (?:APPLIED|SEATED|CONNECT|MOVED|"
                      r"OFFLINE|BACK|OVER|VERIFIED)\b")


def player_pause(log: str, since: float) -> float:
    """The longest gap between two timestamped lines of a player's ``log`` that ends
    after ``since`` (`time.time`)."""
    times = sorted(float(stamp) for stamp in _STAMPED.findall(log))
    gaps = [b - a for a, b in itertools.pairwise(times) if b >= since]
    return max(gaps, default=0.0)


def summary(outcomes: list[Outcome]) -> str:
    return json.dumps([outcome.to_json() for outcome in outcomes])

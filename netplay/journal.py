"""The host's journal: an append-only file from which a crashed table is brought back.

The host session (``netplay.host``) hands its driver journal entries, like frames; the
driver writes them here as they come and makes them durable (``fdatasync``: on the loop's
thread for a fast disk, in one of the process's syncing threads for a slow one or a process of
several tables, see ``netplay.host_peer.Host`` and ``netplay.syncs``)
*before* it publishes the frames that depend on them (a seat's welcome, a batch). So
whatever a peer has seen, the journal holds, and ``stacks host --resume TABLE`` rebuilds
the table from it.

The file is JSON lines (bytes as ``{"hex": ...}``, as in game records): a first line
that names the file (``journal``), then the session's entries (``table``, ``seat``,
``start``, ``batch``, ``race``, ``verdict``), then the driver's (``record``,
``finished``, ``abandoned``). A crash in the middle of a write leaves a torn last line:
it is dropped with a logged line (its frames were never published) and cut off before
anything new is appended. A running host holds an exclusive ``flock`` on its journal,
so two processes never host one journal.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import platformdirs

from netplay.errors import NetplayError
from netplay.identity import APP_NAME
from netplay.record import from_json

log = logging.getLogger("netplay.journal")

FORMAT = "sequence-stacks-journal"
VERSION = 1
SUFFIX = ".journal"

Entry = dict[str, Any]


class JournalError(NetplayError):
    """A journal can't be created, read, locked or replayed; the words say why."""


class JournalFenced(JournalError):
    """A journal that may no longer be written: the table is no longer this host's to hold
    (a shared journal whose lease passed, or could pass, to another server). Its host
    stops publishing at once, instead of going on without a journal."""


def data_dir() -> Path:
    """Where tables and records live (``STACKS_HOME`` overrides the platform's dir)."""
    home = os.environ.get("STACKS_HOME")
    return Path(home) / "data" if home else Path(platformdirs.user_data_dir(APP_NAME))


def journals_dir() -> Path:
    return data_dir() / "tables"


def records_dir() -> Path:
    """Where a host writes its game records unless told otherwise (``stacks play``,
    ``stacks host``, the menu's host, the ssh server's held tables)."""
    return data_dir() / "records"


def default_record_path(table: str, game: str) -> Path:
    """A new record's default path in :func:`records_dir`: the game, the table and the
    time (``stacks-friday-20261203-1402.json``; just ``stacks-20261203-1402.json`` when
    the table bears the game's name). Every host names its records so (``stacks host``,
    the interface's, the ssh server's held tables); a list of records reads the game
    from the file either way. A second game in the same minute gets ``-2``
    (``write_new_record``)."""
    stamp = time.strftime("%Y%m%d-%H%M")
    name = table if game == table else f"{game}-{table}"
    return records_dir() / f"{name}-{stamp}.json"


def _hex(value: Any) -> Any:
    """Bytes as ``{"hex": ...}`` (``netplay.record.to_json``), for the encoder; anything
    else it can't encode is an error, as with ``json.dumps``."""
    if isinstance(value, bytes):
        return {"hex": value.hex()}
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ENCODER = json.JSONEncoder(separators=(",", ":"), default=_hex)
"""The journal's line encoder: ``json.dumps(to_json(entry))``'s bytes, made by the C
encoder in one pass (the host writes an entry per action; the copy ``to_json`` made of
every entry first was most of the cost)."""


def encode_entry(entry: Entry) -> bytes:
    return (_ENCODER.encode(entry) + "\n").encode()


def read_entries(path: Path) -> tuple[list[Entry], int]:
    """The entries of a journal and the byte length of its sound part.

    A torn last line (a crash mid-write) is left out with a logged line; anything
    unreadable before the last line is damage, and a ``JournalError``.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise JournalError(f"can't read the journal {path}: {exc}") from exc
    entries: list[Entry] = []
    good = 0
    lines = data.split(b"\n")
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        if last and not line:
            break  # the file ends with a newline, as it should
        try:
            if last:
                raise ValueError("no newline at the end")
            entry = from_json(json.loads(line))
            if not isinstance(entry, dict) or not isinstance(entry.get("t"), str):
                raise ValueError("not an entry")
        except ValueError as exc:
            if last:
                log.warning("journal %s: dropped a torn last entry (%d bytes: %s)",
                            path, len(line), exc)
                break
            raise JournalError(
                f"the journal {path} is damaged at line {index + 1}: {exc}"
            ) from None
        entries.append(entry)
        good += len(line) + 1
    if not entries or entries[0].get("t") != "journal" or entries[0].get("format") != FORMAT:
        raise JournalError(f"{path} is not a sequence-stacks table journal")
    if entries[0].get("version") != VERSION:
        raise JournalError(f"{path}: journal version {entries[0].get('version')!r} "
                           f"is not {VERSION}")
    return entries, good


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _lock(fd: int, path: Path) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise JournalError(
            f"table journal {path.name} is in use by another running host"
        ) from None


class JournalStore(Protocol):
    """What a host's driver (``netplay.host_peer.Host``) needs of a journal: a file
    (:class:`JournalFile`), or a table's journal in a shared database
    (``ratings.cluster.DbJournal``). Entries :meth:`write`-n are durable once
    :meth:`sync_written` covered them; a host publishes nothing that rests on them before."""

    path: Path
    written: int
    synced: int

    @property
    def unsynced(self) -> bool: ...
    def append(self, entries: Iterable[Entry]) -> None: ...
    def write(self, entries: Iterable[Entry]) -> int: ...
    def sync_written(self) -> int: ...
    def mark_synced(self, upto: int) -> None: ...
    def close(self) -> None: ...


_datasync = getattr(os, "fdatasync", os.fsync)
"""Data, and the metadata needed to read it back (an appended file's size), on disk."""


class JournalFile:
    """An open journal, held (flock) by this process until :meth:`close`.

    :meth:`append` writes and syncs; a driver that syncs when it chooses (later, or in a
    worker thread) writes with :meth:`write`, calls :meth:`sync_written`, and takes what it
    returns to :meth:`mark_synced`: entries up to :attr:`synced` bytes are durable.
    """

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self.writes = 0
        self.write_seconds = 0.0
        """Time spent writing and fsyncing in :meth:`append` (for the benchmarks)."""
        self.written = 0
        """Bytes written by this process (since it opened the file)."""
        self.synced = 0
        """Of those, the bytes known to be durable."""

    @classmethod
    def create(cls, table: str, *, folder: Path | None = None, **header: Any) -> JournalFile:
        """A new journal for ``table``, never over an existing file: if the name is taken,
        the next free ``-2``, ``-3``... is used."""
        folder = folder or journals_dir()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"can't create {folder}: {exc}") from exc
        for attempt in range(1, 100):
            suffix = "" if attempt == 1 else f"-{attempt}"
            path = folder / f"{table}-{stamp}{suffix}{SUFFIX}"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
            except FileExistsError:
                continue
            except OSError as exc:
                raise JournalError(f"can't create the journal {path}: {exc}") from exc
            _lock(fd, path)
            journal = cls(path, fd)
            journal.append([{"t": "journal", "format": FORMAT, "version": VERSION,
                             "table": table, "created": time.time(), **header}])
            _fsync_dir(folder)
            return journal
        raise JournalError(f"no free journal name for table {table!r} in {folder}")

    @classmethod
    def reopen(cls, path: Path) -> tuple[JournalFile, list[Entry]]:
        """Open an existing journal to carry on: its entries, the torn tail cut off."""
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND)
        except OSError as exc:
            raise JournalError(f"can't open the journal {path}: {exc}") from exc
        _lock(fd, path)
        try:
            entries, good = read_entries(path)
            if os.fstat(fd).st_size > good:
                os.ftruncate(fd, good)  # appending after a torn line would glue onto it
                os.fsync(fd)
        except (JournalError, OSError):
            os.close(fd)
            raise
        return cls(path, fd), entries

    def append(self, entries: Iterable[Entry]) -> None:
        """Write ``entries`` and sync: when this returns they survive a crash."""
        started = time.perf_counter()
        if not self.write(entries):
            return
        self.mark_synced(self.sync_written())
        self.writes += 1
        self.write_seconds += time.perf_counter() - started

    def write(self, entries: Iterable[Entry]) -> int:
        """Write ``entries`` without waiting for the disk; the bytes written (0: none).
        They are durable once :meth:`sync_written` has covered them."""
        fd = self._fd
        if fd is None:
            raise JournalError(f"the journal {self.path} is closed")
        data = b"".join(encode_entry(e) for e in entries)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        self.written += len(data)
        return len(data)

    @property
    def unsynced(self) -> bool:
        """Something written is not yet known to be durable."""
        return self.synced < self.written

    def sync_written(self) -> int:
        """Make everything written so far durable (``fdatasync``); the byte count it
        covers, for :meth:`mark_synced`. May run in a worker thread (it releases the GIL);
        the file must not be closed meanwhile."""
        fd = self._fd
        if fd is None:
            raise JournalError(f"the journal {self.path} is closed")
        target = self.written  # what was written before the sync began: it covers that
        _datasync(fd)
        return target

    def mark_synced(self, upto: int) -> None:
        self.synced = max(self.synced, upto)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing drops the flock


# -- what is on disk ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableJournal:
    """One journal as listed by ``stacks host --resume`` and the menu's Resume."""

    path: Path
    table: str
    profile: str | None
    created: float
    status: str
    """``open`` (can be resumed), ``finished`` or ``abandoned``."""
    batches: int
    players: int
    names: tuple[str, ...]
    running: bool
    """A host process holds it now."""

    @property
    def unfinished(self) -> bool:
        return self.status == "open"

    def line(self) -> str:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.created))
        where = f"batch {self.batches}" if self.batches else "in the lobby"
        seated = ", ".join(self.names) if self.names else "no one seated"
        running = " (its host is running)" if self.running else ""
        return (f"{self.table}: started {started}, {where}, {self.players} seats "
                f"({seated}){running}")


def _held(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # also drops our shared lock
    return False


def summarize(path: Path, entries: list[Entry] | None = None) -> TableJournal:
    if entries is None:
        entries, _ = read_entries(path)
    head = entries[0]
    status = "open"
    batches = 0
    players = 0
    names: dict[int, str] = {}
    for entry in entries:
        kind = entry["t"]
        if kind == "table":
            players = int(entry.get("settings", {}).get("players", 0))
        elif kind == "seat" and isinstance(entry.get("seat"), int):
            names[entry["seat"]] = str(entry.get("name", "?"))
        elif kind == "batch":
            batches = max(batches, int(entry.get("n", 0)))
        elif kind in ("finished", "abandoned"):
            status = kind
    return TableJournal(
        path=path, table=str(head.get("table", "?")), profile=head.get("profile"),
        created=float(head.get("created", 0.0)), status=status, batches=batches,
        players=players, names=tuple(names[s] for s in sorted(names)), running=_held(path),
    )


def list_tables(
    *, folder: Path | None = None, table: str | None = None, profile: str | None = None,
    unfinished: bool = True,
) -> list[TableJournal]:
    """Journals on disk, newest first; unreadable ones are logged and skipped."""
    folder = folder or journals_dir()
    found: list[TableJournal] = []
    for path in _journal_paths(folder):
        if (table is not None or profile is not None or unfinished) and _passed_over(
                path, table=table, profile=profile, unfinished=unfinished):
            continue
        try:
            summary = summarize(path)
        except (JournalError, KeyError, TypeError, ValueError) as exc:
            log.warning("skipped the journal %s: %s", path, exc)
            continue
        if table is not None and summary.table != table:
            continue
        if profile is not None and summary.profile != profile:
            continue
        if unfinished and not summary.unfinished:
            continue
        found.append(summary)
    found.sort(key=lambda j: j.created, reverse=True)
    return found


TAIL = 16384
"""Bytes at the end of a journal read to find whether its game ended (the ``finished`` or
``abandoned`` entry is followed only by the verdicts of a few peers)."""


def _passed_over(path: Path, *, table: str | None, profile: str | None,
                 unfinished: bool) -> bool:
    """Whether ``path`` is surely not wanted, read from its first line and its tail alone.

    A host start and the menu look through every journal kept; reading each in full made
    that grow with the games played (64 journals, 4 MB: 0.2 s a look). Anything unsure
    (damage, a torn line) says no here, and the full read decides as before."""
    try:
        with path.open("rb") as f:
            head = json.loads(f.readline())
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - TAIL))
            tail = f.read()
    except (OSError, ValueError):
        return False
    if not isinstance(head, dict) or head.get("t") != "journal":
        return False
    if table is not None and head.get("table") != table:
        return True
    if profile is not None and head.get("profile") != profile:
        return True
    if not unfinished:
        return False
    lines = tail.split(b"\n")
    if size > TAIL:
        lines = lines[1:]  # the first is cut
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("t") in ("finished", "abandoned"):
            return True
    return False


def _journal_paths(folder: Path) -> Iterator[Path]:
    try:
        yield from (p for p in folder.iterdir() if p.suffix == SUFFIX and p.is_file())
    except OSError:
        return


def mark(path: Path, kind: str, **fields: Any) -> None:
    """Append one driver entry (``abandoned``...) to a journal no host is running."""
    journal, _ = JournalFile.reopen(path)
    try:
        journal.append([{"t": kind, "at": time.time(), **fields}])
    finally:
        journal.close()

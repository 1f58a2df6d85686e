"""Finished games on their way into the database, kept on disk until they are stored.

A host that sees its game over calls :meth:`Archive.expect` *before* it writes the
record and marks its journal finished: a small file in the archive's folder names the
journal and the record to come (written whole and synced). :meth:`Archive.store` then
stores the record and only then removes the file. So ``kill -9`` at any moment loses no
finished game: on restart :meth:`Archive.drain` stores what is left, and a game stored
already (same commitment) counts once. A table killed before its record was written has
an unfinished journal: it is resumed, ends again and is expected again.

A database that is down or full changes nothing for the game: the file stays, the
archive says so in words once, tries again every `RETRY_S` seconds, and says when the
games are stored.

A caller that is cancelled (a session that ends, a table the server stops) never cuts a
database call short: opening, storing and closing run to their end in tasks of their own
(`Archive.close` waits for them). Cut short in the driver, SQLite's connection could be
left inside its ``BEGIN IMMEDIATE`` until collected, and every other writer waited the
busy timeout (30 s, idle) and then failed with "database is locked".
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from netplay.journal import JournalError, read_entries
from netplay.record import read_record
from ratings.results import RecordRefused, result_of
from ratings.schema import SchemaTooNew
from ratings.store import Added, DatabaseError, Store, shown

log = logging.getLogger(__name__)

RETRY_S = 5.0
SUFFIX = ".pending"
T = TypeVar("T")
CLOSE_WAIT_S = 5.0
"""Seconds `Archive.close` waits for a call whose caller was cancelled (a database that
hangs is not waited for longer: closing never hangs on it)."""


class Archive:
    """The database at ``url`` and the folder of games waiting for it."""

    def __init__(self, url: str, folder: Path, say: Callable[[str], None] | None = None,
                 ) -> None:
        self.url = url
        self.folder = folder
        self._say = say or (lambda text: log.info("%s", text))
        self._store: Store | None = None
        self.down: str | None = None
        """Why the database can't be used now (``None``: it can)."""
        self.full = False
        """The database can't be used now for want of room (a full disk, a size limit)."""
        self.failures = 0
        """Times storing a finished game failed on the database (down or full)."""
        self.errors = 0
        """Database calls that failed: the failed stores, and those its users report
        (:meth:`failed`: the accounts' look-ups)."""
        self._lock = asyncio.Lock()
        self._opening = asyncio.Lock()
        self._calls: set[asyncio.Task[Any]] = set()
        self._retry: asyncio.Task[None] | None = None
        self._stored: dict[Path, asyncio.Event] = {}
        """Entries someone waits on (:meth:`wait_stored`), set once each is stored."""

    # -- on disk -----------------------------------------------------------------------

    def expect(self, *, journal: Path | None, record: Path | None) -> Path:
        """Note a finished game whose record is (about to be) written: the note survives
        a crash and is removed once the game is stored."""
        self.folder.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns()}-{os.getpid()}{SUFFIX}"
        path = self.folder / name
        _write_synced(path, {"journal": str(journal) if journal else None,
                             "record": str(record) if record else None})
        return path

    def note_record(self, entry: Path, record: Path) -> None:
        """Where the record was written after all (a free name beside the one expected)."""
        try:
            data = json.loads(entry.read_text())
        except (OSError, ValueError):
            data = {}
        data["record"] = str(record)
        _write_synced(entry, data)

    def pending(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted(self.folder.glob(f"*{SUFFIX}"))

    # -- into the database -------------------------------------------------------------

    async def store(self, entry: Path) -> Added | None:
        """Store one expected game now if the database can; else keep it for later.
        Returns what was added (``None``: not now, or nothing to add)."""
        async with self._lock:
            added = await self._store_one(entry)
        if self.pending() and self.down is not None:
            self._schedule()
        return added

    async def wait_stored(self, entry: Path) -> None:
        """Until ``entry``'s game is in the database (at once if it is already: its note
        is gone). A game kept while the database was down goes in when it is back."""
        if not entry.exists():
            return
        event = self._stored.setdefault(entry, asyncio.Event())
        try:
            await event.wait()
        finally:
            if event.is_set() or not entry.exists():
                self._stored.pop(entry, None)

    async def drain(self) -> int:
        """Store every game waiting; returns how many went in."""
        count = 0
        async with self._lock:
            for entry in self.pending():
                added = await self._store_one(entry)
                if added is not None and not added.already:
                    count += 1
                if self.down is not None:
                    break
        if self.pending() and self.down is not None:
            self._schedule()
        return count

    async def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
        if self._calls:  # a cancelled caller's call, still on its way to its end
            await asyncio.wait(set(self._calls), timeout=CLOSE_WAIT_S)
        if self._store is not None:
            store, self._store = self._store, None
            await self._whole(store.close())

    async def _whole(self, call: Coroutine[Any, Any, T]) -> T:
        """Run a database call to its end even if the caller is cancelled meanwhile (the
        caller still gets its `asyncio.CancelledError` at once)."""
        task = asyncio.ensure_future(call)
        self._calls.add(task)
        task.add_done_callback(_settled)
        task.add_done_callback(self._calls.discard)
        return await asyncio.shield(task)

    async def store_handle(self) -> Store:
        """The open database; opened once, however many ask at the same moment (the
        server's start-up drain and every login at once)."""
        if self._store is None:
            async with self._opening:
                if self._store is None:
                    store = await self._whole(Store.open(self.url))
                    if store.notice:
                        self._say(store.notice)
                    self._store = store
        return self._store

    async def _store_one(self, entry: Path) -> Added | None:
        try:
            data = json.loads(entry.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self._say(f"a finished game's note {entry.name} can't be read ({exc}): left aside")
            _set_aside(entry)
            return None
        record_path = _record_of(data)
        try:
            record = read_record(record_path) if record_path else None
            game = await asyncio.to_thread(result_of, record) if record else None
        except (ValueError, RecordRefused) as exc:
            record, game = None, None
            problem = str(exc)
        else:
            problem = "no record was written"
        if game is None:
            journal = Path(data["journal"]) if data.get("journal") else None
            if journal is not None and not _finished(journal):
                entry.unlink(missing_ok=True)  # resumed, it ends and is expected again
                return None
            self._say(f"the game of {record_path or entry.name} can't be rated: {problem}")
            _set_aside(entry)
            return None
        try:
            store = await self.store_handle()
            added = await self._whole(store.add(game))
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            await self._lost(str(exc), full=getattr(exc, "full", False))
            return None
        entry.unlink(missing_ok=True)
        waiting = self._stored.get(entry)
        if waiting is not None:
            waiting.set()
        if self.down is not None:
            self.down = None
            back = "has room again" if self.full else "is back"
            self.full = False
            self._say(f"the ratings database {shown(store.url)} {back}: finished games "
                      "are stored again")
        return added

    def failed(self) -> None:
        """A caller's call to the database failed (an account's look-up): counted."""
        self.errors += 1

    async def _lost(self, why: str, *, full: bool = False) -> None:
        self.failures += 1
        self.errors += 1
        if self._store is not None:
            store, self._store = self._store, None
            with contextlib.suppress(Exception):
                await self._whole(store.close())
        if self.down is None:
            when = "there is room again" if full else "it is back"
            self._say(f"the ratings database can't store games now ({why}); finished games "
                      f"are kept in {self.folder} and stored when {when}")
        self.down, self.full = why, full

    def _schedule(self) -> None:
        if self._retry is None or self._retry.done():
            self._retry = asyncio.create_task(self._retry_later(), name="ratings-retry")

    async def _retry_later(self) -> None:
        while self.pending():
            await asyncio.sleep(RETRY_S)
            await self.drain_now()

    async def drain_now(self) -> None:
        async with self._lock:
            for entry in self.pending():
                await self._store_one(entry)
                if self.down is not None:
                    return


def _settled(task: asyncio.Task[Any]) -> None:
    """Take a finished call's exception (its caller may have been cancelled and never
    see it): no "exception was never retrieved" at exit."""
    if not task.cancelled():
        task.exception()


def _record_of(data: dict[str, object]) -> Path | None:
    """The record a note names, or the last one its journal names (the free name a host
    chose beside the expected one)."""
    journal = data.get("journal")
    if isinstance(journal, str):
        with contextlib.suppress(JournalError, OSError):
            entries, _ = read_entries(Path(journal))
            written = [e["path"] for e in entries
                       if e.get("t") == "record" and isinstance(e.get("path"), str)]
            if written:
                return Path(written[-1])
    record = data.get("record")
    return Path(record) if isinstance(record, str) else None


def _finished(journal: Path) -> bool:
    try:
        entries, _ = read_entries(journal)
    except (JournalError, OSError):
        return True  # gone or unreadable: nothing will resume it
    return any(e.get("t") in ("finished", "abandoned") for e in entries)


def _write_synced(path: Path, data: dict[str, object]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w") as handle:
        handle.write(json.dumps(data))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _set_aside(entry: Path) -> None:
    with contextlib.suppress(OSError):
        entry.rename(entry.with_suffix(".refused"))

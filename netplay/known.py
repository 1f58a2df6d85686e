"""Known hosts: the host key of each table where a profile joined a game not over yet.

Trust on first use, like ssh's ``known_hosts``: the first time a profile is welcomed at a
table (seated or watching), the host key that welcomed it is written down, and as long
as that game is unfinished a peer of the same profile — a new process, a returning
player — follows that key only, as if the table were pinned to it (``TABLE@FINGERPRINT``):
a rogue announcing the table on an open broker, even one seen first, is never followed.
The entry goes once the game ended and this peer checked it (its verdict), or when the
user pins another key explicitly. Tables of the same name by another host are then usable
again.

One small JSON file in the profile's folder, mode 0600, written atomically (a temporary
file renamed over it); a profile is held by one process at a time (``ProfileLock``).
See docs/protocol.md, "Which host".
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from netplay.hosts import fingerprint

log = logging.getLogger("netplay.known")

KNOWN_FILE = "known_hosts.json"
MAX_TABLES = 256
"""Entries kept at most (the oldest go first): one per table with an unfinished game."""


class KnownHosts:
    """The remembered host keys of one profile (``folder``: the profile's directory)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / KNOWN_FILE
        self._tables: dict[str, dict[str, Any]] = self._read()

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("can't read %s (%s): no host remembered for any table", self.path, exc)
            return {}
        tables = data.get("tables") if isinstance(data, dict) else None
        if not isinstance(tables, dict):
            log.warning("%s is not a known-hosts file: no host remembered", self.path)
            return {}
        out: dict[str, dict[str, Any]] = {}
        for table, entry in tables.items():
            if isinstance(table, str) and isinstance(entry, dict) and _key(entry) is not None:
                out[table] = entry
        return out

    def get(self, table: str) -> bytes | None:
        """The host key this profile joined ``table``'s unfinished game with, if any."""
        entry = self._tables.get(table)
        return None if entry is None else _key(entry)

    def remember(self, table: str, key: bytes, *, broker: str | None = None,
                 seated: bool = False) -> None:
        """Remember ``key`` for ``table``; ``broker`` and ``seated`` say where the table is
        and whether this profile holds a seat there (the menu offers it back: `seats`)."""
        entry = self._tables.get(table)
        if entry is not None and _key(entry) == key and entry.get("broker") == broker \
                and entry.get("seated", False) == seated:
            return
        self._tables.pop(table, None)
        self._tables[table] = {"key": key.hex(), "fingerprint": fingerprint(key),
                               "since": round(time.time())}
        if broker is not None:
            self._tables[table]["broker"] = broker
        if seated:
            self._tables[table]["seated"] = True
        while len(self._tables) > MAX_TABLES:
            del self._tables[next(iter(self._tables))]
        log.info("table %s: remembering host %s until its game ends", table, fingerprint(key))
        self._write()

    def seats(self) -> list[tuple[str, bytes, str]]:
        """``(table, host key, broker)`` of each unfinished game where this profile took a
        seat, on a broker it can name: where a returning player may find its seat."""
        out = []
        for table, entry in self._tables.items():
            key, broker = _key(entry), entry.get("broker")
            if key is not None and entry.get("seated") is True and isinstance(broker, str):
                out.append((table, key, broker))
        return out

    def forget(self, table: str) -> None:
        if self._tables.pop(table, None) is not None:
            log.info("table %s: its host is no longer remembered", table)
            self._write()

    def _write(self) -> None:
        text = json.dumps({"version": 1, "tables": self._tables}, indent=1, sort_keys=True)
        tmp = self.path.with_name(f"{KNOWN_FILE}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            # Costs the protection, not the game: say so, and play on.
            log.warning("can't write %s: %s (the table's host is not remembered)",
                        self.path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()


def _key(entry: dict[str, Any]) -> bytes | None:
    text = entry.get("key")
    if not isinstance(text, str):
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        return None
    return key if len(key) == 32 else None


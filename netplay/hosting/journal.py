"""The host's side of its journal (:class:`HostJournal`): the entries a driver writes to disk
(and syncs) before it publishes any frame that depends on them, and what a resumed host read
of when its batches went out. No I/O: the file is ``netplay.journal``'s, the driver's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from netplay.journal import Entry


@dataclass(frozen=True, slots=True)
class WentOut:
    """A batch (``kind`` ``batch``, ``value`` its number) or a race (``race``, its body) as
    a resumed host's journal has it, with the wall time it went to the players (``None``:
    the journal does not say)."""

    kind: str
    value: Any
    wall: float | None


def wall_time_of(entry: Entry) -> float | None:
    """The wall time a journal entry says it went out (``at``), if it says one."""
    at = entry.get("at")
    if isinstance(at, int | float) and not isinstance(at, bool) and math.isfinite(at):
        return float(at)
    return None


class HostJournal:
    """Entries waiting for the driver, in order; the driver takes them with :meth:`drain`."""

    def __init__(self) -> None:
        self.pending: list[Entry] = []
        """Entries for the driver to write (and fsync) before it publishes anything."""
        self.on_entry: Callable[[], None] | None = None
        """Called as soon as an entry is added: a driver may start writing it to disk
        while the session goes on to seal and sign the frames that depend on it."""
        self.wall_offset: float | None = None
        """The wall clock minus the session's clock (set by a driver): batches and races
        are journaled with the wall time they went out, so that a resumed host keeps the
        spectator delay for what it had not released yet. ``None``: not journaled."""
        self.went_out: list[WentOut] = []
        """A resumed host's batches and races as journaled, with when they went to the
        players, to hold back again what spectators were not due yet."""

    def append(self, entry: Entry) -> None:
        self.pending.append(entry)
        if self.on_entry is not None:
            self.on_entry()

    def append_with_wall_time(self, entry: Entry, now: float) -> None:
        """``entry`` with the wall time it goes to the players (``at``), when known."""
        if self.wall_offset is not None:
            entry["at"] = round(now + self.wall_offset, 3)
        self.append(entry)

    def drain(self) -> list[Entry]:
        """The entries added since the last drain, for the driver to write."""
        out, self.pending = self.pending, []
        return out

    def read_went_out(self, entry: Entry) -> None:
        """Note a batch or race entry of the journal a host resumes from."""
        value = entry["n"] if entry["t"] == "batch" else entry["race"]
        self.went_out.append(WentOut(entry["t"], value, wall_time_of(entry)))

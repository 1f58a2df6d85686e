"""Whom the table waits for, as the host's heartbeats say, counted down between them.

The host's beat lists the seats it waits for and how long each has left (its own clock);
a peer shows them counted down from when the beat came, and only while its view is not
past the batch the beat was said at (the last turn's time is not the new turn's).
"""

from __future__ import annotations

from engine.state import State
from netplay.clock import Wait

MAX_WAITS = 6
"""Entries of a heartbeat's wait list read (a table has at most six seats)."""
STALE = 3.0
"""Seconds after which a wait list not said again is not shown."""


class TableWaits:
    """The host's last word on whom the table waits for."""

    def __init__(self, now: float) -> None:
        self.said: tuple[float, list[Wait]] = (now, [])
        """Whom the table waits for, as the host's last heartbeat said, and when it came."""
        self.said_at = 0
        """The host's batch count when it said :attr:`said`: they describe the table
        after that batch, and a view past it has moved on to a turn they don't cover."""

    def heard(self, entries: object, players: int, at: int, now: float) -> None:
        """A heartbeat's ``wait`` entries (untrusted: unreadable ones are left out), said
        after batch ``at``."""
        waits = [Wait.from_wire(e, players) for e in entries[:MAX_WAITS]] \
            if isinstance(entries, list) else []
        self.said = (now, [w for w in waits if w is not None])
        self.said_at = at

    def now_waiting(self, now: float, view: State | None, applied: int) -> list[Wait]:
        """Whom the table waits for now (counted down since the host said it), for seats
        that still have to decide in this peer's view (which has applied up to batch
        ``applied``)."""
        told, waits = self.said
        if view is None or view.outcome is not None or now - told > STALE \
                or applied > self.said_at:
            return []
        return [w.later(now - told) for w in waits]

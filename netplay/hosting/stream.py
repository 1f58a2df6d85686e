"""The public stream and its delay (:class:`SpectatorStream`): what goes to everyone (the
seats on ``table``, the spectators on ``events``), and with a spectator delay the public
stream (``start``, batches, races, the reveal) reaching spectators that many seconds late:
held back (:class:`DelayLine`) and released when due; a resumed host holds back again
what its journal says spectators were not due yet (the catch-up tail).

No I/O: frames go through the table's sender (:class:`StreamTable`).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.state import SPECTATOR
from netplay.batch import Batch
from netplay.hosting.beats import Heartbeats
from netplay.hosting.journal import HostJournal, WentOut
from netplay.hosting.seats import Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import Stage, TableState
from netplay.identity import peer_id
from netplay.topics import Topics
from netplay.wire import Outgoing, Sender

log = logging.getLogger("netplay.host")


@dataclass(frozen=True, slots=True)
class Held:
    """A public frame held back: its type and body, and when it is due."""

    due: float
    type: str
    body: dict[str, Any]


TO_SEATS_AT_ONCE = frozenset({"start", "race", "reveal"})
"""What the seats get on their own channel at once while spectators wait for it."""


class DelayLine:
    """What the spectator delay holds back, and how far spectators have been told."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        """Seconds the public stream reaches spectators late (0: not at all)."""
        self.held: deque[Held] = deque()
        self._released = 0
        """The last batch released to spectators (with a delay)."""
        self.restored = 0
        """Batches a resumed host released at once (they went out before it died)."""

    @property
    def delayed(self) -> bool:
        return self.delay > 0

    def released(self, batches: int) -> int:
        """Batches released to spectators, of ``batches``: all of them without a delay;
        with one, those published (late) so far, and a resumed host's at once."""
        if not self.delayed:
            return batches
        return max(self._released, self.restored)

    def hold(self, type_: str, body: dict[str, Any], now: float) -> None:
        self.held.append(Held(now + self.delay, type_, body))

    def next_deadline(self, now: float) -> float | None:
        return self.held[0].due if self.held else None

    def due(self, now: float) -> list[Held]:
        """Take what is due now, in order (released batches counted)."""
        out: list[Held] = []
        held = self.held
        while held and held[0].due <= now:
            item = held.popleft()
            if item.type == "events":
                self._released = max(self._released, int(item.body["n"]))
            out.append(item)
        return out

    def release_all(self, now: float) -> None:
        """Make everything held back due now (a host closing its ended table)."""
        self.held = deque(Held(min(h.due, now), h.type, h.body) for h in self.held)

    def tail_left(self, now: float) -> float:
        """Seconds until spectators have had everything held back (0: nothing is)."""
        return max(0.0, self.held[-1].due - now) if self.held else 0.0

    def hold_again(
        self, went_out: Sequence[WentOut], now: float, wall: float,
        public_of: Callable[[int], list[tuple[str, dict[str, Any]]]],
        end: dict[str, Any] | None,
    ) -> int | None:
        """A resumed host keeps the delay: from the first batch its journal says went to
        the players less than the delay before ``wall`` (the wall clock now), everything
        is held back again, due in order (a race as journaled, a batch as ``public_of``
        its number gives it), the game's ``end`` (a reveal's body) last. Returns that
        first batch (``None``: nothing is held back; journals without times release
        everything at once, as it was published before)."""
        delay = self.delay
        held: list[Held] = []
        due_last = now
        first: int | None = None
        for sent in went_out:
            if first is None:
                if sent.kind != "batch" or sent.wall is None or sent.wall + delay <= wall:
                    continue
                first = int(sent.value)
            # From the first batch not due yet on, everything waits its turn, in order.
            if sent.wall is not None:
                due_last = max(due_last, now + min(delay, sent.wall + delay - wall))
            if sent.kind == "batch":
                held.extend(Held(due_last, t, body) for t, body in public_of(int(sent.value)))
            else:
                held.append(Held(due_last, "race", sent.value))
        if first is None:
            return None
        if end is not None:
            held.append(Held(due_last, "reveal", end))
        self.held.extend(held)
        self.restored = first - 1
        return first


class StreamTable(Protocol):
    now: float
    settings: HostSettings
    seating: Seating
    state: TableState
    journal: HostJournal
    beats: Heartbeats
    sender: Sender
    topics: Topics
    resumed: bool
    batches: list[Batch]

    @property
    def batch_count(self) -> int: ...
    def deal_facts(self) -> dict[str, Any]: ...
    def reveal_body(self) -> dict[str, Any]: ...
    def announce(self) -> None: ...


class SpectatorStream:
    """Frames for everyone, and the public stream late by the spectator delay."""

    def __init__(self, table: StreamTable, delay: float) -> None:
        self.table = table
        self.line = DelayLine(delay)

    @property
    def delayed(self) -> bool:
        return self.line.delayed

    @property
    def released(self) -> int:
        """Batches released to spectators: all of them without a spectator delay; with
        one, those published (late) on ``events`` so far. A resumed host releases the
        batches of its journal at once (they went out before it died)."""
        return self.line.released(self.table.batch_count)

    @property
    def catching_up(self) -> bool:
        """The game is over for the players, and the spectator delay still holds part of
        it (its last batches, its outcome) back from spectators: the tail."""
        return self.table.state.over and bool(self.line.held)

    def next_deadline(self, now: float) -> float | None:
        return self.line.next_deadline(now)

    def tick(self, now: float) -> None:
        self.release()

    def _both_streams(self, type_: str, body: dict[str, Any], *, qos: int = 1) -> None:
        """One signed frame for the seats on ``table`` and, the same bytes, for the
        spectators on ``events``: only while a spectator is there. Nobody else reads
        ``events`` but a table listing, which hears a live host by its answer to the
        listing's query; a spectator who comes later gets what it needs from its
        ``welcome`` and its catch-up (docs/protocol.md, *Nobody watching*)."""
        table = self.table
        if not table.seating.spectators:
            table.sender.send(table.topics.table_stream, type_, body, qos=qos)
            return
        payload = table.sender.send(table.topics.events, type_, body, qos=qos)
        table.sender.outbox.append(Outgoing(table.topics.table_stream, payload, qos=qos))

    def to_everyone(self, type_: str, body: dict[str, Any], *, seats: bool = True) -> None:
        """A signed frame for everyone: on ``events`` for the spectators (while there are
        any), and the same frame on ``table`` for the seats (``seats``), but a batch: each
        seat has its own copy of those, sealed, and never hears the spectators' one. It
        stands for the next heartbeat (see ``Heartbeats.beat``) when every peer got it."""
        table = self.table
        if seats and type_ != "events":
            table.beats.everyone_heard(table.now)
            self._both_streams(type_, body)
        elif table.seating.spectators:
            table.sender.send(table.topics.events, type_, body)

    def publish(self, type_: str, body: dict[str, Any]) -> None:
        """Publish on ``events``: at once, or ``spectator_delay`` seconds late. With a delay
        the seated players get what they need of it (start, race, reveal) on their own
        channel at once: only spectators wait."""
        table = self.table
        if not self.delayed:
            self.to_everyone(type_, body)
            return
        if type_ in TO_SEATS_AT_ONCE:
            for key in table.seating.player_keys():
                if key is not None:
                    table.sender.send(table.topics.inbox(peer_id(key)), type_, body)
        self.line.hold(type_, body, table.now)

    def release(self) -> None:
        """Publish what the spectator delay held back and is now due."""
        table = self.table
        due = self.line.due(table.now)
        if not due:
            return
        for held in due:
            self.to_everyone(held.type, held.body, seats=False)  # they had theirs at once
            if held.type == "reveal":
                table.state.ended_publicly()
        if table.state.over and not self.line.held:
            table.announce()  # spectators have seen the end: no longer catching up

    def release_all(self) -> None:
        """Publish at once everything the spectator delay still holds back (a host that
        closes its ended table: the game is over, spectators get its end now)."""
        if self.line.held:
            self.line.release_all(self.table.now)
            self.release()

    def _public_of(self, n: int) -> list[tuple[str, dict[str, Any]]]:
        """What the public stream carried for batch ``n`` (the start with the first)."""
        batch = self.table.batches[n - 1]
        start = [("start", self.table.deal_facts())] if n == 1 else []
        return [*start, ("events", batch.redacted_for(SPECTATOR).to_body())]

    def hold_back(self, wall: float) -> None:
        """A resumed host keeps the spectator delay: what its journal says went to the
        players less than the delay before ``wall`` (the wall clock now) is held back
        again, released when it is due, in order, and the game's end after it. Journals
        without times release everything at once (as it was published before)."""
        table = self.table
        if not self.delayed or not table.resumed or not table.state.started:
            return
        over = table.state.over
        first = self.line.hold_again(table.journal.went_out, table.now, wall, self._public_of,
                                     table.reveal_body() if over else None)
        if first is None:
            return
        if over:
            table.state.move(Stage.OVER)  # its end goes to the spectators again, late
        log.info("table %s: batches %d-%d held back again for spectators (delay %g s)",
                 table.settings.table, first, table.batch_count, self.line.delay)
        table.announce()

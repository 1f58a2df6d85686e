"""The host's heartbeat (:class:`Heartbeats`): the longest the host stays silent to its peers,
skipped when a frame went to every peer since, rarer while its presence rests on the
broker (a broker probe found that it fires a silent client's last will in time:
``netplay.probe``), and what each beat says (how far the game got, whom the table waits
for). docs/protocol.md, *Presence*.

No I/O: the beat goes out through the table's sender (:class:`BeatTable`).
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from typing import Any, Protocol

from netplay.clock import Wait, next_beat
from netplay.hosting.seats import Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.probe import Probe
from netplay.topics import Topics
from netplay.wire import Sender

log = logging.getLogger("netplay.host")

REST_HEARTBEAT = 10.0
"""The longest the host stays silent to its seats while its presence rests on the broker
(:attr:`Heartbeats.resting`): a frozen host is found by its last will then, and a beat
only tells the seats how far the game got (a batch lost at the end of a silence)."""


class BeatTable(Protocol):
    now: float
    settings: HostSettings
    seating: Seating
    state: TableState
    sender: Sender
    topics: Topics

    @property
    def batch_count(self) -> int: ...
    @property
    def released(self) -> int: ...
    def waits(self) -> list[Wait]: ...


class Heartbeats:
    """When the next beat is due, what the last one said, and whether presence rests on
    the broker."""

    def __init__(self, table: BeatTable, now: float, before_beat: Callable[[], None]) -> None:
        self.table = table
        self.before_beat = before_beat
        """Run when a beat is due, before it (the spectator delay's release: the beat
        counts what was released)."""
        self.next_beat_at = now
        self.everyone_heard_at: float | None = None
        """When a frame last went to every peer (a batch: each seat its sealed copy, the
        spectators theirs; or a signed frame on ``table`` and ``events``), since the last
        heartbeat (sent or skipped): within the interval, it stands for the beat."""
        self.said_waits = True
        """The last heartbeat sent said whom the table waits for, in words."""
        self.said_rest = False
        """The last heartbeat sent told the seats presence rests on the broker."""
        self.skipped = 0
        """Beats skipped so far (a frame to everyone stood for them)."""
        self.resting = False
        """The host's presence rests on the broker: it was found to fire a silent client's
        last will in time (``netplay.probe``), so the host beats after
        :data:`REST_HEARTBEAT` of silence (docs/protocol.md, *Presence*)."""
        self.probe: Probe | None = None
        self.probe_until: float | None = None
        """The broker probe under way, and by when its will must come to be trusted."""

    def next_deadline(self, now: float) -> float | None:
        if self.probe_until is None:
            return self.next_beat_at
        return min(self.next_beat_at, self.probe_until)

    def tick(self, now: float) -> None:
        if self.probe_until is not None and now > self.probe_until:
            log.info("table %s: the broker did not fire a silent client's will in time: "
                     "heartbeats carry presence", self.table.settings.table)
            self.probe = self.probe_until = None
        if now >= self.next_beat_at:
            self.next_beat_at = next_beat(now, self.table.settings.heartbeat)
            self.before_beat()
            self.beat()

    def everyone_heard(self, now: float) -> None:
        """A frame went to every peer: it stands for the next beat."""
        self.everyone_heard_at = now

    def probe_started(self, probe: Probe, until: float) -> None:
        self.probe, self.probe_until = probe, until

    def probe_answers(self, topic: str, payload: bytes) -> bool:
        """Whether a message is the probe's will (then taken: presence may rest on the
        broker if it came in time)."""
        probe = self.probe
        if probe is None or topic != probe.topic or not hmac.compare_digest(payload, probe.will):
            return False
        now = self.table.now
        late = self.probe_until is None or now > self.probe_until
        self.probe = self.probe_until = None
        if late:
            log.info("table %s: the broker fired a silent client's will late: heartbeats "
                     "carry presence", self.table.settings.table)
            return True
        if not self.resting:
            log.info("table %s: the broker fires a silent client's will: presence rests "
                     "on it", self.table.settings.table)
        self.resting = True
        self.next_beat_at = min(self.next_beat_at, now)  # say so to the seats
        return True

    @property
    def rests_on_broker(self) -> bool:
        """Whether the host's presence rests on the broker now (``rest`` in the seats'
        beats: they wait longer for it): it was found to fire wills in time, and the game
        is not over."""
        return self.resting and not self.table.state.over

    def beat(self) -> None:
        """The heartbeat on ``table`` (and ``events`` while a spectator is there), unless
        a frame went to every peer less than an interval ago and the beat would tell
        nobody anything new: the next beat is then due an interval after that frame.

        So the host is never silent to a peer for longer than the interval, and beats
        only in the silences: since the last beat every peer has heard the host (a
        spectator the public frame, a seat its own sealed copy of the batch), and ``at``
        is the last batch published (a lost one shows as a gap at the next batch, or at
        the beat that ends the next silence). Never skipped with a spectator delay (the
        beat is then the only live word on ``events``), nor while the beat or the last
        one sent says whom the table waits for, in words (someone away, a turn clock, a
        Block window): a peer counts those down from the last beat and would show a
        stale line."""
        table = self.table
        now = table.now
        waits = table.waits()
        says = any(w.away is not None or w.left is not None for w in waits)
        delay = table.settings.spectator_delay > 0
        rest = self.rests_on_broker
        spectators = table.seating.spectators
        # The host's own pace: rare only while nobody needs it (a waiting line in words, a
        # turn clock counting down, a spectator timing the host out on ``events``).
        quiet = rest and not says and not self.said_waits and not spectators and not delay
        every = REST_HEARTBEAT if quiet else table.settings.heartbeat
        self.next_beat_at = next_beat(now, every)
        heard, self.everyone_heard_at = self.everyone_heard_at, None
        if heard is not None and not delay and not says and not self.said_waits \
                and rest == self.said_rest:
            due = next_beat(heard, every)
            if due > now:
                self.next_beat_at = due
                self.skipped += 1
                return
        self.said_waits = says
        self.said_rest = rest  # a change of pace is never skipped: the seats follow it
        body: dict[str, Any] = {"at": table.batch_count}
        if delay:
            body["public"] = table.released
        seats = body
        if rest:
            seats = {**body, "rest": True}
        if waits:
            seats = {**seats, "wait": [w.to_wire() for w in waits]}
            if not delay:
                # Whom the live table waits for is the live game: with a delay spectators,
                # who see it late, don't get it.
                body = seats
        if spectators:
            table.sender.send(table.topics.events, "heartbeat", body, qos=0)
        # The seats' beat: a box each, as their batches come (protocol 6). A box opens in
        # microseconds where a signature took a seat ~0.1 ms to check, and the host beat
        # for every seat of every table (docs/protocol.md, *Presence*).
        keys = table.seating.player_keys()
        if any(key is not None for key in keys):
            table.sender.send_boxes(table.topics.table_stream, keys, "heartbeat",
                                    [None if key is None else seats for key in keys], qos=0)

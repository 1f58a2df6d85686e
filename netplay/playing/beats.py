"""The peer's own heartbeats to the host: that it is there, and how far it got.

A seat the table waits for (its turn, a Block window it may answer, the deal's rounds, and
any spectator) beats every :data:`HEARTBEAT` seconds; one the table does not wait for
every :data:`IDLE_HEARTBEAT`. An action stands for a beat, and a beat that would tell the
host nothing (it answered the action on our own channel and we miss no batch) is not sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from engine.state import Seat
from netplay.clock import next_beat
from netplay.playing.follower import Follower

HEARTBEAT = 4.0
"""Seconds between a peer's heartbeats to the host. They tell the host the peer is there
and how far it got; the host counts a seat away after ``away_after`` (10 s) without one,
so a beat can be lost (jittered up to a fifth sooner, two beats span at most 8 s) before
a false "away", and a frozen peer is still found in 10 s (a peer killed or cut off is
found at once on a broker that fires its last will). Every second, an idle table of four
was sending its host four beats: more frames than its game (measured: 200 tables acting
every 2 s on one Mosquitto, frames 2,275 -> 1,843 a second, the peers' CPU 143% -> 122%,
action -> own view p99 124 -> 56 ms); every 2 s they were still 3.5 of the 9 frames an
action at a table acting every 2 s (issue #28)."""
IDLE_HEARTBEAT = 8.0
"""Seconds between a seated player's heartbeats while the table does not wait for it (not
its turn, no Block window it may still answer; protocol 8): the host counts such a seat
away only after ``idle_away_after`` (20 s) without one. The moment the table waits for it,
the seat beats every :data:`HEARTBEAT` again, the next beat within that much, and the host
counts it away after ``away_after`` (10 s) from the later of its last frame and the moment
it began to wait for it. At a table of four acting every 2 s a seat acts every 8 s, and
its actions stand for most of its beats: 1.6 beats an action went to 0.6 (issue #28;
docs/protocol.md, *Presence*)."""


class Member(Protocol):
    """What the beats read of the peer (its session)."""

    @property
    def seat(self) -> Seat | None: ...
    @property
    def joined(self) -> bool: ...


class OwnBeats:
    """When this peer next beats to the host, and whether that beat is needed.

    ``send`` sends a heartbeat's body to the host.
    """

    def __init__(self, peer: Member, follower: Follower, now: float, *,
                 send: Callable[[dict[str, Any]], None],
                 every: float = HEARTBEAT, idle_every: float | None = None) -> None:
        self.peer = peer
        self.follower = follower
        self._send = send
        self.every = every
        """Seconds between beats while the table waits for this peer."""
        self.idle_every = IDLE_HEARTBEAT * every / HEARTBEAT \
            if idle_every is None else idle_every
        """Beats while the table does not wait for this seat (:data:`IDLE_HEARTBEAT`; by
        default in the same proportion to ``every``)."""
        self.next_at = now
        """When the next beat is due (once joined)."""
        self.acted_at: float | None = None
        """When an action last went to the host, since the last beat."""
        self.answered_at: float | None = None
        """When the host last sent to this peer's own channel, since the last beat."""

    def waited(self) -> bool:
        """Whether the table may be waiting for this peer (see :meth:`interval`)."""
        seat, follower = self.peer.seat, self.follower
        view = follower.view
        return seat is None or view is None or follower.facts is None \
            or seat in follower.definition.to_move(view)

    def interval(self) -> float:
        """Seconds between this peer's heartbeats now: :data:`HEARTBEAT` while the table
        waits for this seat, has no game going yet (the deal's rounds wait for every seat)
        or for a spectator; :data:`IDLE_HEARTBEAT` while it waits for others."""
        return self.every if self.waited() else self.idle_every

    def acted(self, now: float) -> None:
        """An action went to the host: it stands for a beat, the next one a whole interval
        from now (sent then only if the host did not answer meanwhile)."""
        self.acted_at = now
        self.answered_at = None  # the answer to this action is still to come
        self.next_at = max(self.next_at, next_beat(now, self.interval()))

    def answered(self, now: float) -> None:
        """The host sent to this peer's own channel (it hears us)."""
        self.answered_at = now

    def progressed(self, now: float) -> None:
        """The view moved on. If the table waits for this seat now, its next beat comes
        within :data:`HEARTBEAT` (the host counts its silence from the later of its last
        frame and this moment)."""
        if self.peer.joined and self.waited():
            self.next_at = min(self.next_at, next_beat(now, self.every))

    def _answered_lately(self, now: float, every: float) -> bool:
        """Whether this beat would tell the host nothing: an action went to it since the
        last beat, within the interval, the host has answered on our own channel since
        (so it heard us, and we follow its stream), and we know of no batch we miss."""
        acted, answered = self.acted_at, self.answered_at
        return (acted is not None and answered is not None and answered >= acted
                and now - acted <= every and self.follower.in_step)

    def next_deadline(self, now: float) -> float | None:
        return self.next_at if self.peer.joined else None

    def tick(self, now: float) -> None:
        if now >= self.next_at and self.peer.joined:
            every = self.interval()
            self.next_at = next_beat(now, every)
            if not self._answered_lately(now, every):
                self._send({"at": self.follower.applied})
            self.acted_at = self.answered_at = None

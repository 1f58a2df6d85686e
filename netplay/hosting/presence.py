"""Who is there (:class:`Presence`): a seat is away when its player's connection ended (its
last will, ``presence`` ``online: false``) or when nothing was heard from it for a while;
how long depends on whether the table waits for it (protocol 8). Spectators are heard too,
so that the end of the game waits a moment for the verdicts of those watching.

No I/O: when a seat's presence changes, the table announces it (:class:`PresenceTable`).
"""

from __future__ import annotations

from typing import Protocol

from engine.state import Seat
from netplay.codec import Frame, ReplayGuard
from netplay.errors import FrameError
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.messages import CONN_LEN, key_bytes, required

SPECTATOR_HEARD = 8.5
"""Seconds after a spectator's last frame during which the host counts it as watching (it
beats every 4 s, ``netplay.player.HEARTBEAT``): at the end, the host waits a moment for
the verdicts of those."""


class PresenceTable(Protocol):
    now: float
    seating: Seating
    state: TableState
    settings: HostSettings

    def deciders(self) -> list[Seat]: ...
    def announce(self) -> None: ...


class Presence:
    """The seats' liveness and the spectators' last frames."""

    def __init__(self, table: PresenceTable) -> None:
        self.table = table
        self.waiting_since: dict[Seat, float] = {}
        """Since when the game waits for each seat it waits for (see :meth:`away_from`)."""
        self.spectator_heard: dict[bytes, float] = {}
        """When each spectator last sent the host anything."""
        self.guard = ReplayGuard()
        """The order of the ``online`` frames (a will is taken in any order)."""

    def away(self, info: SeatInfo) -> bool:
        return not info.online or self.table.now > self.away_from(info)

    def away_from(self, info: SeatInfo) -> float:
        """When a seat counts as away if nothing more is heard from it (protocol 8): with no
        game going (the deal's rounds), ``away_after`` after its last frame; in a game, a
        seat the table waits for ``away_after`` after the later of its last frame and the
        moment the waiting began (it beats every 4 s from then on), any other seat, and
        every seat once the game is over, ``idle_away_after`` after its last frame (it
        beats every 8 s)."""
        table = self.table
        settings = table.settings
        if not table.state.started:
            return info.last_seen + settings.away_after
        if table.state.over:
            return info.last_seen + settings.idle_away_after
        seat = next(seat for seat, held in enumerate(table.seating.seats) if held is info)
        if seat in table.deciders():
            since = self.waiting_since.setdefault(seat, table.now)
            return max(info.last_seen, since) + settings.away_after
        return info.last_seen + settings.idle_away_after

    def note_waiting(self) -> None:
        """After the game moved: the seats it now waits for keep the moment it began to wait
        for them, or take this one (see :meth:`away_from`)."""
        since, now = self.waiting_since, self.table.now
        self.waiting_since = {seat: since.get(seat, now) for seat in self.table.deciders()}

    def heard_from(self, key: bytes) -> None:
        """A frame of ``key`` came: a seat is present again (its stand-in steps back), a
        spectator still watching."""
        table = self.table
        seat = table.seating.seat_of(key)
        if seat is None:
            if key in table.seating.spectators:
                self.spectator_heard[key] = table.now
            return
        info = table.seating.seats[seat]
        assert info is not None
        was_away = info.standin is not None or self.away(info)
        info.last_seen = table.now
        info.online = True
        info.offline_at = None
        info.standin = None
        if was_away:
            table.announce()

    def note_conn(self, key: bytes, conn: bytes, seq: int) -> None:
        """A seat's connection, as its newest frame naming one says."""
        seating = self.table.seating
        seat = seating.seat_of(key)
        info = None if seat is None else seating.seats[seat]
        if info is not None and seq > info.conn_seq and conn not in info.ended:
            info.conn, info.conn_seq = conn, seq

    def frame(self, frame: Frame, topic: str) -> None:
        """A frame on a peer's ``presence`` topic (signed, decoded)."""
        if frame.type != "presence":
            raise FrameError(f"{frame.type!r} on a presence topic")
        online = required(frame.body, "online", bool)
        conn = key_bytes(frame.body, "conn", CONN_LEN)
        if online:
            self.guard.check(frame, topic)
        # "offline" is taken in any order (the last will was signed at connect time,
        # before the "online" that followed it), but only for the seat's connection
        # now: a will of an earlier connection, replayed, says nothing (protocol 7).
        self.presence(frame.sender, online, conn, frame.seq)

    def presence(self, key: bytes, online: bool, conn: bytes, seq: int) -> None:
        """A seat's ``presence`` frame: ``online`` (a connection began) or its last will.
        ``FrameError`` for a replayed one."""
        table = self.table
        seat = table.seating.seat_of(key)
        if seat is None:
            return
        info = table.seating.seats[seat]
        assert info is not None
        if online:
            if conn in info.ended:
                raise FrameError("an online of a connection whose will was taken")
            self.note_conn(key, conn, seq)
        else:
            # A will names the connection it was made for, and is signed as that connection
            # begins: one of a connection older than the newest the host knows is stale.
            if info.conn is not None and conn != info.conn and seq <= info.conn_seq:
                raise FrameError("an offline of an earlier connection (a stale will)")
            if conn not in info.ended:
                info.ended.append(conn)
        info.online = online
        if online:
            info.last_seen = table.now
            info.offline_at = None
        else:
            info.offline_at = table.now
        table.announce()

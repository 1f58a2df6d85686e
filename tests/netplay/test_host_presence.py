"""Who is there (``netplay.hosting.presence``): a seat is away when its connection's will
came or nothing was heard from it for a while, longer when the table does not wait for
it; a frame from it brings it back (its stand-in steps back)."""

from __future__ import annotations

import pytest

from engine.state import Seat
from netplay.errors import FrameError
from netplay.host import HostSettings
from netplay.hosting.presence import Presence
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.state import TableState

ANA, EVE = b"a" * 32, b"e" * 32
CONN, OLD = b"c" * 8, b"o" * 8


class _Table:
    def __init__(self) -> None:
        self.now = 100.0
        self.settings = HostSettings("presence", 2, away_after=10.0, idle_away_after=20.0)
        self.seating = Seating(2)
        self.seating.seats[0] = SeatInfo("ana", ANA, b"", last_seen=100.0)
        self.seating.spectators[EVE] = "eve"
        self.state = TableState()
        self.waiting_for: list[Seat] = []
        self.announced = 0

    def deciders(self) -> list[Seat]:
        return self.waiting_for

    def announce(self) -> None:
        self.announced += 1


def _presence() -> tuple[_Table, Presence, SeatInfo]:
    table = _Table()
    info = table.seating.seats[0]
    assert info is not None
    return table, Presence(table), info  # type: ignore[arg-type]


def test_before_the_game_a_seat_is_away_after_away_after_seconds_of_silence() -> None:
    table, presence, info = _presence()
    assert presence.away_from(info) == 110.0
    table.now = 110.5
    assert presence.away(info)


def test_in_the_game_a_seat_not_waited_for_has_the_idle_allowance() -> None:
    table, presence, info = _presence()
    table.state.started_game()
    assert presence.away_from(info) == 120.0


def test_a_seat_waited_for_counts_from_when_the_waiting_began() -> None:
    table, presence, info = _presence()
    table.state.started_game()
    table.waiting_for = [0]
    table.now = 105.0
    presence.note_waiting()
    assert presence.waiting_since == {0: 105.0}
    assert presence.away_from(info) == 115.0


def test_a_frame_from_an_away_seat_brings_it_back_and_the_table_announces_it() -> None:
    table, presence, info = _presence()
    info.standin = object()  # type: ignore[assignment]
    table.now = 130.0
    presence.heard_from(ANA)
    assert info.standin is None and info.last_seen == 130.0 and table.announced == 1
    presence.heard_from(EVE)
    assert presence.spectator_heard == {EVE: 130.0} and table.announced == 1


def test_a_will_takes_the_seat_offline_and_a_replayed_online_of_its_connection_is_refused(
) -> None:
    _table, presence, info = _presence()
    presence.presence(ANA, True, CONN, 5)
    assert info.conn == CONN and info.online
    presence.presence(ANA, False, CONN, 4)  # the will was signed before the online
    assert not info.online and info.offline_at == 100.0 and presence.away(info)
    with pytest.raises(FrameError, match="whose will was taken"):
        presence.presence(ANA, True, CONN, 6)


def test_a_will_of_an_earlier_connection_says_nothing() -> None:
    _table, presence, info = _presence()
    presence.presence(ANA, True, CONN, 5)
    with pytest.raises(FrameError, match="stale will"):
        presence.presence(ANA, False, OLD, 3)
    assert info.online

"""A busy machine is not a dead host. Before its welcome a peer cannot hear the host's
beats (they go to the seats, a box each), so the host's silence then says nothing of the
host: a join answered late (a held table's server starting its game, a rematch, a machine
at load 8) is no "host offline" nor "not responding". A host that never answers is still
found offline, later."""

from __future__ import annotations

from netplay.playing.joining import JOIN_RETRY
from netplay.playing.liveness import (
    HOST_SILENT,
    WELCOME_QUIET,
    WELCOME_SILENT,
    HostLiveness,
)
from netplay.playing.notices import HostOffline, Joined, Notice

from .harness import SHORT, Table
from .test_host_offline import freeze_host

SLOW = 2 * HOST_SILENT
"""When the host of the first test welcomes its peer."""


def test_a_host_not_yet_beating_to_the_peer_is_not_timed_by_its_beats() -> None:
    told: list[Notice] = []
    liveness = HostLiveness("t1", told.append)
    liveness.heard(0.0)  # its announcement
    for now in (HOST_SILENT, HOST_SILENT + 1.0, WELCOME_QUIET - 0.25):
        liveness.tick(now)
        assert liveness.late_for(now) is None, now
    assert told == [] and not liveness.offline
    liveness.welcomed(SLOW)  # heard, and it beats to us from now on
    assert liveness.next_deadline(SLOW) == SLOW + HOST_SILENT
    assert liveness.late_for(SLOW + 2.0) == 2.0
    liveness.tick(SLOW + HOST_SILENT)
    assert [n.reason for n in told if isinstance(n, HostOffline)] == ["silent"]


def test_a_host_that_never_answers_is_still_found_offline() -> None:
    told: list[Notice] = []
    liveness = HostLiveness("t1", told.append)
    liveness.heard(0.0)
    assert liveness.next_deadline(0.0) == WELCOME_SILENT
    liveness.tick(WELCOME_SILENT)
    assert told == [HostOffline("silent", WELCOME_SILENT, heard=True)]


def test_a_join_answered_late_is_no_host_offline_and_no_host_not_responding() -> None:
    table = Table(3, seed=91, rules=SHORT, join=False)
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    late_joins = table.drop("join", to=table.host, count=3)
    late = table.add_player("late")
    table.pump()
    began = table.clock
    worst = 0.0
    while not late.joined and table.clock - began < 3 * SLOW:
        table.advance(0.25)
        worst = max(worst, late.host_late_for(table.clock) or 0.0)
    # Its first three joins lost (or queued at a busy host): welcomed 9 s on.
    assert len(late_joins) == 3 and late.joined
    assert table.clock - began >= 3 * JOIN_RETRY > HOST_SILENT
    assert table.notices_of(late, HostOffline) == [] and worst == 0.0
    assert table.notices_of(late, Joined)
    # Once welcomed, the host's beats reach it, and a frozen host is found as before.
    for _ in range(2 * int(HOST_SILENT)):
        table.advance(0.5)
    assert not late.host_offline
    freeze_host(table)
    for _ in range(2 * int(HOST_SILENT) + 1):
        table.advance(0.5)
    assert [n.reason for n in table.notices_of(late, HostOffline)] == ["silent"]

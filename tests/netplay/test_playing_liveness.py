"""The host's liveness, driven alone with a fake clock: heard, silent too long, gone by
its will, back; a resting host is given longer; a closed table's host is not timed."""

from __future__ import annotations

from netplay.playing.liveness import (
    HOST_SILENT,
    REST_HOST_SILENT,
    REST_QUIET,
    HostLiveness,
    HostState,
)
from netplay.playing.notices import HostBack, HostOffline, Notice


def _liveness() -> tuple[HostLiveness, list[Notice]]:
    told: list[Notice] = []
    return HostLiveness("t", told.append), told


def test_an_unheard_host_is_not_timed_and_has_no_silence() -> None:
    liveness, told = _liveness()
    assert liveness.state is HostState.UNHEARD
    assert liveness.next_deadline(0.0) is None and liveness.silent_for(3.0) is None
    liveness.tick(1000.0)
    assert told == [] and not liveness.offline


def test_a_host_silent_for_the_limit_is_offline_once_and_back_when_heard() -> None:
    liveness, told = _liveness()
    liveness.welcomed(10.0)
    assert liveness.next_deadline(10.0) == 10.0 + HOST_SILENT
    liveness.tick(10.0 + HOST_SILENT - 0.01)
    assert told == []
    liveness.tick(10.0 + HOST_SILENT)
    assert liveness.state is HostState.OFFLINE and liveness.offline_at == 10.0 + HOST_SILENT
    assert told == [HostOffline("silent", HOST_SILENT, heard=True)]
    assert liveness.next_deadline(20.0) is None  # said once: not timed while offline
    liveness.tick(30.0)
    assert len(told) == 1
    liveness.heard(18.0)
    assert told[-1] == HostBack(18.0 - (10.0 + HOST_SILENT))
    assert liveness.state is HostState.HEARD and liveness.offline_at is None


def test_a_will_found_before_the_host_was_ever_heard_says_so() -> None:
    liveness, told = _liveness()
    liveness.gone(2.0, "will")
    assert told == [HostOffline("will", 0.0, heard=False)] and liveness.offline


def test_a_resting_host_is_given_longer_and_is_not_late_while_it_may_be_quiet() -> None:
    liveness, told = _liveness()
    liveness.welcomed(0.0)
    liveness.resting = True
    assert liveness.silent_limit == REST_HOST_SILENT
    assert liveness.late_for(REST_QUIET - 0.5) is None
    assert liveness.late_for(REST_QUIET + 0.5) == REST_QUIET + 0.5
    liveness.tick(HOST_SILENT + 1.0)
    assert told == []
    liveness.resting = False
    assert liveness.late_for(1.5) == 1.5


def test_a_closed_tables_host_is_not_timed_and_forgetting_starts_afresh() -> None:
    liveness, told = _liveness()
    liveness.welcomed(0.0)
    liveness.closed = True
    assert liveness.next_deadline(0.0) is None
    liveness.tick(100.0)
    assert told == []
    liveness.forget()
    assert liveness.state is HostState.UNHEARD and not liveness.closed
    assert not liveness.beats_to_us
    assert liveness.heard_at is None and liveness.offline_at is None

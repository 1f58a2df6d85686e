"""The host's heartbeat (``netplay.hosting.beats``): never silent longer than the interval,
skipped when a frame to everyone stood for it, rarer while presence rests on the broker,
and the broker probe that decides that."""

from __future__ import annotations

from netplay.clock import Wait
from netplay.host import HostSettings
from netplay.hosting.beats import REST_HEARTBEAT, Heartbeats
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.state import TableState
from netplay.probe import Probe
from netplay.topics import Topics
from netplay.wire import Sender

from .harness import identity_for, observe

TABLE = "beats"


class _Table:
    def __init__(self) -> None:
        self.now = 0.0
        self.settings = HostSettings(TABLE, 2, heartbeat=2.0)
        self.seating = Seating(2)
        self.seating.seats[0] = SeatInfo("ana", identity_for(5, "ana").key, b"")
        self.state = TableState()
        self.state.started_game()
        self.sender = Sender(identity_for(5, "host"), TABLE)
        self.topics = Topics(TABLE)
        self.batch_count = 3
        self.released = 3
        self.waiting: list[Wait] = []
        self.released_before_beat = 0

    def waits(self) -> list[Wait]:
        return self.waiting


def _beats() -> tuple[_Table, Heartbeats]:
    table = _Table()

    def release() -> None:
        table.released_before_beat += 1

    return table, Heartbeats(table, 0.0, before_beat=release)  # type: ignore[arg-type]


def _sent(table: _Table) -> list[str]:
    return [f"{out.topic.rsplit('/', 1)[-1]}:{observe(out.payload).type}"
            for out in table.sender.drain()]


def test_a_due_beat_releases_the_delayed_stream_first_then_goes_to_the_seats() -> None:
    table, beats = _beats()
    assert beats.next_deadline(0.0) == 0.0
    beats.tick(0.0)
    assert table.released_before_beat == 1 and _sent(table) == ["table:boxes"]
    assert 1.6 <= beats.next_deadline(0.0) <= 2.0  # jittered up to a fifth sooner


def test_a_frame_to_everyone_stands_for_the_next_beat() -> None:
    table, beats = _beats()
    beats.said_waits = False
    beats.everyone_heard(0.5)
    table.now = 1.0
    beats.beat()
    assert _sent(table) == [] and beats.skipped == 1 and beats.next_beat_at > 1.0


def test_a_beat_that_says_whom_the_table_waits_for_is_never_skipped() -> None:
    table, beats = _beats()
    table.waiting = [Wait(0, 12.0, None, None)]
    beats.everyone_heard(0.0)
    table.now = 0.5
    beats.beat()
    assert _sent(table) == ["table:boxes"] and beats.said_waits


def test_a_probe_answered_in_time_lets_presence_rest_on_the_broker() -> None:
    table, beats = _beats()
    probe = Probe("probe/topic", b"n" * 16, will=b"will")
    beats.probe_started(probe, until=5.0)
    assert beats.next_deadline(0.0) == 0.0 and beats.probe_until == 5.0
    assert not beats.probe_answers("probe/topic", b"other")
    table.now = 4.0
    assert beats.probe_answers("probe/topic", b"will")
    assert beats.resting and beats.rests_on_broker and beats.probe is None
    table.state.ended()
    assert not beats.rests_on_broker  # the game is over: heartbeats carry presence again


def test_a_probe_answered_late_leaves_presence_to_the_heartbeats() -> None:
    _table, beats = _beats()
    beats.probe_started(Probe("probe/topic", b"n" * 16, will=b"will"), until=5.0)
    beats.tick(6.0)
    assert beats.probe_until is None and not beats.resting


def test_a_resting_host_with_nothing_to_say_beats_at_the_resting_pace() -> None:
    table, beats = _beats()
    beats.resting, beats.said_waits = True, False
    beats.beat()
    assert beats.next_beat_at > table.settings.heartbeat
    assert beats.next_beat_at <= REST_HEARTBEAT

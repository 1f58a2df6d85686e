"""The public stream and the spectator delay (``netplay.hosting.stream``): what is held
back is released in order when due, a resumed host holds back again what spectators were
not due yet, and the seats never wait for it."""

from __future__ import annotations

from netplay.host import HostSession, HostSettings
from netplay.hosting.journal import WentOut
from netplay.hosting.stream import DelayLine, Held

from .harness import SHORT, identity_for, observe


def test_the_line_releases_what_is_due_in_order_and_counts_the_released_batches() -> None:
    line = DelayLine(5.0)
    line.hold("start", {}, 0.0)
    line.hold("events", {"n": 1}, 1.0)
    line.hold("events", {"n": 2}, 2.0)
    assert line.next_deadline(0.0) == 5.0 and line.released(2) == 0
    assert [h.type for h in line.due(6.0)] == ["start", "events"]
    assert line.released(2) == 1 and line.tail_left(6.0) == 1.0
    assert line.due(6.5) == []
    line.release_all(6.5)
    assert line.due(6.5) == [Held(6.5, "events", {"n": 2})]
    assert line.released(2) == 2 and line.next_deadline(7.0) is None


def test_without_a_delay_every_batch_counts_as_released() -> None:
    line = DelayLine(0.0)
    assert not line.delayed and line.released(7) == 7


def test_a_resumed_host_holds_back_from_the_first_batch_spectators_were_not_due() -> None:
    line = DelayLine(10.0)
    went_out = [WentOut("batch", 1, 100.0), WentOut("batch", 2, 108.0),
                WentOut("race", {"pile": 1}, 109.0), WentOut("batch", 3, None)]

    def public_of(n: int) -> list[tuple[str, dict[str, object]]]:
        return [("events", {"n": n})]

    first = line.hold_again(went_out, 0.0, 112.0, public_of, {"secret": b"s"})
    assert first == 2 and line.released(3) == 1
    # Batch 2 went out 4 s ago: due in 6 s; what follows waits its turn, the end last.
    assert [(h.due, h.type) for h in line.held] == [
        (6.0, "events"), (7.0, "race"), (7.0, "events"), (7.0, "reveal")]


def test_a_journal_without_times_holds_nothing_back() -> None:
    line = DelayLine(10.0)
    assert line.hold_again([WentOut("batch", 1, None)], 0.0, 50.0, lambda n: [], None) is None
    assert not line.held


def test_the_stream_holds_the_spectators_copy_and_releases_it_on_events_when_due() -> None:
    settings = HostSettings("t", 2, bots=("greedy", "greedy"), rules=SHORT,
                            spectator_delay=5.0)
    host = HostSession(identity_for(3, "host"), settings, 0.0)
    host.seating.spectators[identity_for(3, "eve").key] = "eve"
    host.data_to_send()
    assert host.stream.line.held and host.released == 0  # the start and the deal, held
    assert host.next_deadline() <= 5.0
    host.tick(5.0)
    released = [observe(out.payload).type for out in host.data_to_send()
                if out.topic == host.topics.events]
    assert released[:2] == ["start", "events"] and host.released >= 1

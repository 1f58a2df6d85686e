"""The figures of the cluster trials, from what the players and the eavesdropper saw
(no namespaces needed)."""

from __future__ import annotations

import argparse

import pytest

from stacks.bench.cluster.command import _figures, _kinds
from stacks.bench.cluster.eavesdrop import TableSeen, digest
from stacks.bench.cluster.trial import LeaseWatch, Outcome, player_pause


def test_a_players_longest_wait_counts_from_the_fault_and_through_a_reconnect() -> None:
    t = 1796660000
    log = (f"{t + 100}.000 CONNECT n1\r\n{t + 100}.500 SEATED 0\r\n{t + 101}.000 APPLIED 1\r\n"
           "\x1b[0mThis server is restarting: connect again\r\n"
           f"{t + 104}.000 CONNECT n2\r\n{t + 106}.500 SEATED 0\r\n{t + 106}.600 APPLIED 2\r\n"
           f"{t}.000 is no stamp of this log\r\n")
    assert player_pause(log, since=0) == pytest.approx(3.0)
    assert player_pause(log, since=t + 104.5) == pytest.approx(2.5)
    # The gap the fault struck in counts in full (from the line before it).
    assert player_pause(log, since=t + 102) == pytest.approx(3.0)
    assert player_pause("", since=0) == 0.0


def test_the_seats_longest_silence_ends_after_the_fault() -> None:
    seen = TableSeen(seats_stream=[1.0, 5.0, 6.0, 9.5, 10.0])
    assert seen.longest_silence() == 4.0
    assert seen.longest_silence(since=5.5) == 3.5


def test_a_batch_is_its_contents_not_its_frame() -> None:
    body = {"n": 3, "action": None, "proof": None, "events": [{"a": 1, "b": 2}],
            "hash": "0" * 32, "standin": False}
    same = {"epoch": 2, **dict(reversed(body.items())), "events": [{"b": 2, "a": 1}]}
    assert digest(body) == digest(same)
    assert digest(body) != digest({**body, "hash": "1" * 32})


def test_the_bench_reports_percentiles_per_kind() -> None:
    outcomes = [Outcome("kill", 2, takeover_s=[0.2, 0.4], pause_s=5.2, player_pause_s=6.0,
                        stored=2, verified=2),
                Outcome("kill", 2, takeover_s=[0.3, 9.0], pause_s=5.5, player_pause_s=7.5,
                        stored=2, verified=2, problems=["a game stored twice"])]
    fig = _figures("kill", outcomes)
    assert fig["takeover_p50_s"] == 0.4 and fig["takeover_p99_s"] == 9.0
    assert fig["pause_max_s"] == 5.5 and fig["player_wait_max_s"] == 7.5
    assert fig["failed_rounds"] == [{"round": 1, "problems": ["a game stored twice"]}]
    assert _kinds("kill,drain") == ["kill", "drain"]
    with pytest.raises(argparse.ArgumentTypeError, match="not a trial kind"):
        _kinds("kill,nap")


def test_a_lease_ends_when_it_runs_out_or_when_it_is_handed_over() -> None:
    leases = LeaseWatch("postgresql://nowhere/none")
    leases.seen["run"] = [(100.0, "n1", 1, 105.0, "held"), (101.0, "n1", 1, 106.0, "held"),
                          (107.0, "n2", 2, 112.0, "held")]
    leases.seen["handed"] = [(100.0, "n1", 1, 105.0, "held"),
                             (100.5, "n1", 1, 105.0, "handover"),
                             (100.9, "n2", 2, 105.9, "held")]
    assert leases.lease_end("run", 1) == 106.0  # the last renewal's end
    assert leases.lease_end("handed", 1) == 100.5  # handed over before it ran out
    # A hand-over taken within one read: its lease ended by the time the next epoch was
    # seen, not when its last renewal would have run out.
    leases.seen["quick"] = [(100.0, "n1", 1, 105.0, "held"), (100.2, "n2", 2, 105.2, "held")]
    assert leases.lease_end("quick", 1) == 100.2
    assert leases.epochs("run") == [("n1", 1), ("n2", 2)]
    assert leases.lease_end("run", 3) is None

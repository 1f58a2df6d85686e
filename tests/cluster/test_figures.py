"""The figures of the cluster trials, from what the players and the eavesdropper saw
(no namespaces needed)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from stacks.bench.cluster.command import _figures, _kinds
from stacks.bench.cluster.eavesdrop import TableSeen, digest
from stacks.bench.cluster.trial import DRAIN_WORDS, MOVED_WORDS, LeaseWatch, Outcome, player_pause
from stacks.bench.cluster.watcher import Screen, Watcher


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


def test_the_seats_longest_silence_stops_at_the_game_over() -> None:
    # Batches 1 and 2 (the game over at 2.5), then the host's beats while players verify.
    seen = TableSeen(seats_stream=[1.0, 2.0, 2.5, 4.5, 6.5], first_seen={1: 1.0, 2: 2.5})
    assert seen.last_batch_at() == 2.5
    assert seen.longest_silence(since=0, until=2.5) == 1.0
    assert seen.longest_silence() == 2.0
    assert TableSeen().last_batch_at() is None


def _watcher(tmp_path: Path, screens: list[tuple[float, str, int]],
             nodes: list[str]) -> Watcher:
    watcher = Watcher("w0", "q0t0", tmp_path / "sock", tmp_path / "w0.log",
                      lambda node: ["ssh", node], lambda *args: None)
    watcher.screens = [Screen(at, text, connection) for at, text, connection in screens]
    watcher.nodes = nodes
    return watcher


def test_the_spectators_screen_is_read_against_the_fault(tmp_path: Path) -> None:
    status = "q0t0 · turn {} · Bo's turn · play goes"
    moved = "▌ The server moved the table to another of its machines:    ▔▎"
    kill = [(1.0, status.format(3), 0), (6.0, status.format(4) + "\n" + moved, 0),
            (7.0, "║ Game over — p0a wins  after 20 turns ║", 0)]
    assert _watcher(tmp_path, kill, ["n2"]).problems(5.0, moved=MOVED_WORDS,
                                                     reconnect=None) == []
    # The fault struck before the table was drawn; nor did the move's words show.
    late = _watcher(tmp_path, kill, ["n2"]).problems(0.5, moved=MOVED_WORDS, reconnect=None)
    assert any("not drawn" in problem for problem in late)
    assert not any("never showed 'The server" in problem for problem in late)
    stuck = _watcher(tmp_path, [kill[0], (6.0, status.format(3), 0)], ["n2", "n2"])
    found = stuck.problems(5.0, moved=MOVED_WORDS, reconnect=None)
    assert len(found) == 4  # no move's words, a lost connection, no new turn, no game over
    drain = [(1.0, status.format(3), 0),
             (5.5, "This server is restarting: connect again (the same ssh command)", 0),
             (8.0, status.format(9), 1), (9.0, "Game over", 1)]
    assert _watcher(tmp_path, drain, ["n1", "n2"]).problems(
        5.0, moved=None, reconnect=DRAIN_WORDS) == []
    gone = _watcher(tmp_path, drain[:2], ["n1"]).problems(5.0, moved=None,
                                                         reconnect=DRAIN_WORDS)
    assert any("never connected again" in problem for problem in gone)
    assert any("game over" in problem for problem in gone)
    # Back after the game ended (the interface starting on a loaded machine): its
    # game-over screen is the table again, its turns past the fault's.
    ended = [*drain[:2], (8.0, "║ Game over — p0a wins  after 12 turns ║", 1)]
    assert _watcher(tmp_path, ended, ["n1", "n2"]).problems(
        5.0, moved=None, reconnect=DRAIN_WORDS) == []
    still = [*drain[:2], (8.0, "║ Game over — p0a wins  after 3 turns ║", 1)]
    assert [problem for problem in _watcher(tmp_path, still, ["n1", "n2"]).problems(
        5.0, moved=None, reconnect=DRAIN_WORDS) if "did not go on" in problem]

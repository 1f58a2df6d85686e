"""Budgets: a token bucket per peer for everything that costs the host work; a flood costs
the flooder its own budget (and, for everyone unseated, the one bucket they share), never a
seated player's, and is logged once, not per message nor per key."""

from __future__ import annotations

import logging

import pytest

from netplay.budget import (
    LOG_PEERS,
    SNAPSHOT_COST,
    Bucket,
    Budget,
    HostBudgets,
    HostLimits,
    Limit,
)
from netplay.identity import Identity
from netplay.playing.chat import CHAT_OTHERS
from netplay.playing.notices import ChatLine

from .harness import SHORT, Table, forge, observe, opened


def test_a_bucket_spends_its_burst_then_refills_at_its_rate() -> None:
    bucket = Bucket(Limit(burst=3, rate=2), now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(0.4)  # 0.8 tokens back: not enough for one
    assert bucket.take(0.5)
    assert bucket.level(100.0) == 3  # never above the burst
    assert bucket.take(100.0, cost=3) and not bucket.take(100.0)
    assert not bucket.take(99.0)  # a clock going back refills nothing


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError):
        Limit(0, 1)
    with pytest.raises(ValueError):
        Limit(1, -1)


def test_an_overrun_is_logged_once_per_peer_not_per_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    budget = Budget("resend", Limit(2, 1))
    with caplog.at_level(logging.WARNING, logger="netplay.budget"):
        granted = [budget.allow("a", 0.0) for _ in range(1000)]
        granted += [budget.allow("b", 0.0) for _ in range(1000)]
    assert granted.count(True) == 4
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "peer a is over its resend budget" in lines[0] and "peer b" in lines[1]
    assert budget.dropped("a") == budget.dropped("b") == 998
    with caplog.at_level(logging.WARNING, logger="netplay.budget"):
        budget.allow("a", 61.0, cost=5)  # burst 2: asks for a full bucket
        assert budget.allow("a", 61.0) is False
    assert "still over its resend budget: 999 requests dropped" in caplog.records[-1].getMessage()


def test_a_cost_over_the_burst_needs_a_full_bucket() -> None:
    budget = Budget("resend", Limit(10, 1))
    assert budget.allow("a", 0.0, cost=64)
    assert not budget.allow("a", 5.0, cost=64)
    assert budget.allow("a", 10.0, cost=64)


def test_after_the_end_a_fixed_allowance_without_refill() -> None:
    budgets = HostBudgets(HostLimits(ended_histories=2))
    budgets.game_over(batches=50, now=0.0)
    assert budgets.resend("a", "spectator", 50, 0.0)
    assert budgets.resend("a", "spectator", 50 + 2 * SNAPSHOT_COST, 1.0)
    assert not budgets.resend("a", "spectator", 1, 10_000.0)
    assert budgets.resend("b", "seat", 50, 10_000.0)  # each peer its own


def test_after_the_end_joins_get_a_fixed_cap_per_key_and_for_all_unseated_keys() -> None:
    budgets = HostBudgets(HostLimits(ended_joins=2, ended_unseated_joins=5))
    assert sum(budgets.join("a", 2.0 * t) for t in range(10)) == 10  # refills before the end
    budgets.game_over(batches=50, now=0.0)
    assert [budgets.join("a", 1000.0 * t) for t in range(4)] == [True, True, False, False]
    granted = sum(budgets.join(f"k{i}", 1000.0 * i) for i in range(100))
    assert granted == 3  # 5 for every unseated key together, "a" took 2 of them
    assert budgets.join("p0", 10**6, seated=True)  # a seat's own allowance is intact
    assert budgets.join("p0", 10**6, seated=True)
    assert not budgets.join("p0", 10**6, seated=True)


def test_the_gate_shares_one_bucket_among_strangers_and_one_per_known_peer() -> None:
    budgets = HostBudgets(HostLimits(stranger_frames=Limit(5, 0), seat_frames=Limit(3, 0)))
    assert sum(budgets.gate(f"fresh{i}", "stranger", 0.0) for i in range(100)) == 5
    assert sum(budgets.gate("p1", "seat", 0.0) for _ in range(10)) == 3
    assert sum(budgets.gate("p2", "seat", 0.0) for _ in range(10)) == 3


# -- the host under a flood (synchronous, fake clock: no bucket refills while it lasts) ------


def _inbox_frames(table: Table, peer_id: str, since: int) -> int:
    topic = table.topics.inbox(peer_id)
    return sum(1 for t, _ in table.broker.log[since:] if t == topic)


def _playing_table() -> Table:
    table = Table(3, seed=3)
    table.run(lambda: len(table.host.batches) >= 70 or table.host.over)
    assert not table.host.over
    return table


def test_a_spectators_heartbeat_flood_costs_at_most_its_budget() -> None:
    table = _playing_table()
    spy = table.add_player("spy", watch=True)
    table.pump()
    assert spy.joined
    mark = len(table.broker.log)
    identity = spy.identity
    for _ in range(500):
        table.to_host(forge(identity, "heartbeat", {"at": 0}), table.out_topic(spy))
        table.to_host(forge(identity, "resync", {"from": 1, "snapshot": False,
                                                 "reason": "gap"}), table.out_topic(spy))
    sent = _inbox_frames(table, spy.peer_id, mark)
    # 1,000 requests that would each cost a chunk of 64 batches (a spectator catches up
    # chunk by chunk, never by snapshot): the spectator's gate lets 60 through and its
    # work budget answers at most 256 frames of them.
    limits = table.host.budgets.limits
    assert sent <= limits.spectator_work.burst
    assert table.host.budgets.frames["spectator"].dropped(spy.peer_id) > 900
    # A seated player behind still gets its batches at once.
    player = table.at_seat(0)
    mark = len(table.broker.log)
    table.to_host(forge(player.identity, "resync", {"from": player.applied - 3,
                                                    "snapshot": False, "reason": "gap"}),
                  table.out_topic(player))
    assert _inbox_frames(table, player.peer_id, mark) == 4
    table.run_to_end()
    table.assert_in_step([p for p in table.players if not p.watch])


def test_a_flood_of_joins_from_fresh_keys_never_reaches_a_seated_player() -> None:
    table = _playing_table()
    host = table.host
    topic = table.topics.outbox
    for i in range(2000):
        stranger = Identity.from_seed(i.to_bytes(32, "big"))
        host.receive(topic(stranger.peer_id), forge(stranger, "join", {
            "name": f"s{i}", "entropy": bytes(32), "password": None, "watch": True,
        }), table.clock)
    assert len(host.spectators) <= host.budgets.limits.stranger_frames.burst
    assert host.budgets.frames["stranger"].dropped("(strangers)") >= 1700
    table.pump()
    table.run_to_end()
    table.assert_in_step([p for p in table.players if not p.watch])


def test_after_the_end_twenty_resyncs_get_a_few_histories_not_twenty() -> None:
    table = Table(2, seed=3, rules=SHORT)
    table.run_to_end()
    total = len(table.host.batches)
    player = table.at_seat(1)
    mark = len(table.broker.log)
    table.clock += 1000.0  # long after: a refilling bucket would be full again
    for _ in range(20):
        table.to_host(forge(player.identity, "resync", {"from": 1, "snapshot": False,
                                                        "reason": "history"}),
                      table.out_topic(player))
    events = 0
    for t, payload in table.broker.log[mark:]:
        if t == table.topics.inbox(player.peer_id) and observe(payload).type == "sealed":
            events += 1
    histories = table.host.budgets.limits.ended_histories
    assert total * (histories - 1) <= events <= histories * (total + 1)


def test_after_the_end_joins_from_fresh_keys_get_a_small_fixed_number_of_answers() -> None:
    table = Table(2, seed=3, rules=SHORT)
    table.run_to_end()
    host = table.host
    limits = host.budgets.limits
    mark = len(table.broker.log)
    keys = [Identity.from_seed(i.to_bytes(32, "big")) for i in range(200)]
    for key in keys:  # paced well within the strangers' gate: only the join cap counts
        table.clock += 1.0
        host.receive(table.topics.outbox(key.peer_id), forge(key, "join", {
            "name": "k", "entropy_commit": bytes(32), "password": None, "watch": True,
            "at": 0}), table.clock)
    table.pump()
    welcomed = {t for t, payload in table.broker.log[mark:]
                if t.endswith("/in") and observe(payload).type == "welcome"}
    assert len(welcomed) == limits.ended_unseated_joins
    # One key joining again and again, long after: a few answers, never a steady stream.
    spy = keys[0]
    mark = len(table.broker.log)
    for _ in range(50):
        table.clock += 100.0
        host.receive(table.topics.outbox(spy.peer_id), forge(spy, "join", {
            "name": "k", "entropy_commit": bytes(32), "password": None, "watch": True,
            "at": 0}), table.clock)
    assert _inbox_frames(table, spy.peer_id, mark) == 0  # its allowance went on its first
    # A seated player coming back after the end still gets its welcome and the reveal.
    player = table.at_seat(1)
    mark = len(table.broker.log)
    table.to_host(forge(player.identity, "join", {
        "name": "p1", "entropy_commit": bytes(32), "password": None, "watch": False,
        "at": len(host.batches)}), table.out_topic(player))
    kinds = [opened(player.identity, observe(payload))[0]
             for t, payload in table.broker.log[mark:]
             if t == table.topics.inbox(player.peer_id)]
    assert kinds[:2] == ["welcome", "reveal"]


def test_a_chat_flood_shows_a_few_lines_and_a_seated_players_line_still_shows() -> None:
    table = Table(2, seed=4)
    spy = Identity.from_seed(bytes(32))
    for i in range(300):
        table.broker.publish(table.topics.chat, forge(spy, "chat", {"text": f"spam {i}",
                                                                    "name": "spy"}))
    table.pump()
    speaker = table.at_seat(0)
    speaker.chat("hello")
    table.pump()
    listener = table.at_seat(1)
    lines = table.notices_of(listener, ChatLine)
    assert len([line for line in lines if "spam" in line.text]) == CHAT_OTHERS.burst
    assert lines[-1] == ChatLine("p0", "hello")


def test_an_honest_spectator_joins_after_a_flood_of_strangers() -> None:
    table = _playing_table()
    host = table.host
    for i in range(500):  # the strangers' shared gate is empty
        stranger = Identity.from_seed(i.to_bytes(32, "big"))
        host.receive(table.topics.outbox(stranger.peer_id), forge(stranger, "join", {
            "name": f"s{i}", "entropy_commit": bytes(32), "password": None, "watch": True,
        }), table.clock)
    table.pump()
    late = table.add_player("late", watch=True)
    table.pump()
    assert not late.joined  # its join was dropped with the flood
    table.advance(4.0)  # the gate refills; the unanswered join goes again
    assert late.joined and late.view is not None
    table.run_to_end()
    assert late.verdict is not None and late.verdict.ok


# -- many keys: everyone unseated shares one bucket on top of their own --------------------


def test_spectators_and_strangers_share_one_bucket_on_top_of_their_own() -> None:
    budgets = HostBudgets(HostLimits(spectator_work=Limit(50, 0), unseated_work=Limit(100, 0),
                                     spectator_frames=Limit(5, 0), stranger_frames=Limit(5, 0),
                                     unseated_frames=Limit(12, 0)))
    granted = [budgets.resend(f"k{i}", "spectator", 20, 0.0) for i in range(10)]
    assert granted == [True] * 5 + [False] * 5  # 100 frames for all of them
    assert budgets.resend("seat", "seat", 20, 0.0)  # a seat has its own budget only
    # Frames: 12 for every spectator and stranger together, each key also within its own.
    gated = [budgets.gate(f"k{i}", "spectator", 0.0) for i in range(10)]
    gated += [budgets.gate(f"fresh{i}", "stranger", 0.0) for i in range(10)]
    assert sum(gated) == 12
    assert budgets.gate("p0", "seat", 0.0)


def test_a_request_its_own_bucket_refuses_costs_the_shared_one_nothing() -> None:
    budgets = HostBudgets(HostLimits(spectator_work=Limit(10, 0), unseated_work=Limit(30, 0)))
    assert budgets.resend("greedy", "spectator", 10, 0.0)
    for _ in range(100):
        assert not budgets.resend("greedy", "spectator", 10, 0.0)
    assert budgets.resend("a", "spectator", 10, 0.0) and budgets.resend("b", "spectator", 10, 0.0)
    assert not budgets.resend("c", "spectator", 10, 0.0)


def test_thousands_of_keys_over_budget_log_a_few_lines(caplog: pytest.LogCaptureFixture) -> None:
    budgets = HostBudgets(HostLimits(spectator_work=Limit(1, 0), unseated_work=Limit(100, 0)))
    with caplog.at_level(logging.WARNING, logger="netplay.budget"):
        for i in range(5000):
            for _ in range(3):
                budgets.resend(f"k{i}", "spectator", 1, 0.0)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) <= LOG_PEERS + 3, lines
    assert any("every spectator together is over its resend budget" in line for line in lines)
    assert budgets.work["spectator"].dropped("k50") == 2  # counted, though not logged


def test_after_the_end_a_small_fixed_cap_holds_across_all_keys() -> None:
    limits = HostLimits()
    budgets = HostBudgets(limits)
    budgets.game_over(batches=50, now=0.0)
    sent = sum(50 for i in range(5000) if budgets.resend(f"k{i}", "spectator", 50, float(i)))
    assert sent <= limits.ended_unseated_histories * (50 + SNAPSHOT_COST)
    assert budgets.resend("p0", "seat", 50, 10_000.0)  # a seat's own allowance is intact


def test_a_thousand_keys_joined_as_spectators_get_one_bucket_of_the_hosts_work() -> None:
    table = _playing_table()
    host = table.host
    keys = [Identity.from_seed(i.to_bytes(32, "big")) for i in range(1000)]
    for key in keys:  # paced: every join passes the gates
        table.clock += 0.03
        host.receive(table.topics.outbox(key.peer_id), forge(key, "join", {
            "name": "k", "entropy_commit": bytes(32), "password": None, "watch": True,
            "at": 0}), table.clock)
    assert len(host.spectators) == host.budgets.limits.max_spectators
    table.pump()
    mark = len(table.broker.log)
    for key in keys:
        topic = table.topics.outbox(key.peer_id)
        host.receive(topic, forge(key, "heartbeat", {"at": 0}), table.clock)
        host.receive(topic, forge(key, "resync", {"from": 1, "snapshot": False,
                                                  "reason": "gap"}), table.clock)
    table.pump()
    inboxes = {table.topics.inbox(key.peer_id) for key in keys}
    sent = sum(1 for t, _ in table.broker.log[mark:] if t in inboxes)
    # Each of 256 spectators could have had a snapshot and 64 batches on its own budget
    # (16,640 frames): they share one bucket.
    assert sent <= host.budgets.limits.unseated_work.burst < 1000
    player = table.at_seat(0)
    mark = len(table.broker.log)
    table.to_host(forge(player.identity, "resync", {"from": player.applied - 3,
                                                    "snapshot": False, "reason": "gap"}),
                  table.out_topic(player))
    assert _inbox_frames(table, player.peer_id, mark) == 4
    table.run_to_end()
    table.assert_in_step([p for p in table.players if not p.watch])

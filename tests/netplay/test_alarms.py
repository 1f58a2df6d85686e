"""Alarms: the peers' deadlines of one event loop on one asyncio timer; each alarm still
rings when it is due, in the order of their times, and a moved or cleared one only where
it was moved to."""

from __future__ import annotations

import asyncio

import pytest

from netplay.aio import COMPACT_AT, INF, Alarms


@pytest.mark.asyncio
async def test_alarms_ring_at_their_times_in_order_and_moved_ones_only_at_their_new_time(
) -> None:
    loop = asyncio.get_running_loop()
    alarms = Alarms.of(loop)
    assert Alarms.of(loop) is alarms
    rung: list[tuple[str, float]] = []
    last = asyncio.Event()

    def ring(name: str) -> None:
        rung.append((name, loop.time()))
        if name == "last":
            last.set()

    start = loop.time()
    times = {"c": start + 0.03, "a": start + 0.01, "b": start + 0.02, "last": start + 0.06}
    made = {name: alarms.alarm(lambda name=name: ring(name)) for name in
            ("a", "b", "c", "moved", "cleared", "last")}
    for name, when in times.items():
        made[name].set(when)
    made["moved"].set(start + 0.005)
    made["moved"].set(start + 0.04)  # later: its first time passes without it
    made["cleared"].set(start + 0.015)
    made["cleared"].set(INF)
    await asyncio.wait_for(last.wait(), 5)
    assert [name for name, _ in rung] == ["a", "b", "c", "moved", "last"]
    times["moved"] = start + 0.04
    for name, at in rung:
        assert at >= times[name]
        assert made[name].when == INF  # rung: off until set again
    # Set again, it rings again.
    again = asyncio.Event()
    made["a"] = alarms.alarm(again.set)
    made["a"].set(loop.time())
    await asyncio.wait_for(again.wait(), 5)


@pytest.mark.asyncio
async def test_an_earlier_alarm_moves_the_one_timer_forward() -> None:
    loop = asyncio.get_running_loop()
    alarms = Alarms.of(loop)
    late, soon = asyncio.Event(), asyncio.Event()
    alarms.alarm(late.set).set(loop.time() + 60)
    alarms.alarm(soon.set).set(loop.time() + 0.01)
    await asyncio.wait_for(soon.wait(), 5)
    assert not late.is_set()
    assert alarms.armed == alarms.heap[0][0]  # waiting for the late one now


@pytest.mark.asyncio
async def test_moved_alarms_do_not_pile_up_in_the_heap() -> None:
    loop = asyncio.get_running_loop()
    alarms = Alarms.of(loop)
    peers = [alarms.alarm(lambda: None) for _ in range(10)]
    for step in range(1000):
        for alarm in peers:
            alarm.set(loop.time() + 100 + step)
    assert len(alarms.heap) <= len(peers) + 2 * COMPACT_AT + 2
    assert sorted(e[2].when for e in alarms.heap if e[2]._seq == e[1]) == sorted(
        a.when for a in peers)

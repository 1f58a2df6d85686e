"""Heartbeats come at most one interval apart, and peers started together drift apart."""

from __future__ import annotations

import random

from netplay.clock import BEAT_JITTER, next_beat


def test_a_heartbeat_is_never_later_than_its_interval() -> None:
    random.seed(5)
    now = 100.0
    for _ in range(2000):
        due = next_beat(now, 1.0)
        assert now + 1.0 - BEAT_JITTER <= due <= now + 1.0
        now = due


def test_peers_started_in_the_same_instant_do_not_beat_in_step() -> None:
    random.seed(6)
    beats = [0.0] * 200  # 200 peers of one process, all started at 0
    for _ in range(20):
        beats = [next_beat(at, 1.0) for at in beats]
    # After 20 beats they are spread over more than a fifth of a second, not one burst.
    assert max(beats) - min(beats) > 0.2
    phases = sorted(at % 1.0 for at in beats)
    crowded = max(sum(1 for p in phases if lo <= p < lo + 0.05) for lo in phases)
    assert crowded < 60  # no 50 ms slot holds most of them

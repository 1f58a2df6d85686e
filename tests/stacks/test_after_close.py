"""How long a headless peer still waits after its host closed an ended table."""

from __future__ import annotations

from stacks.commands.peer import CLOSED_GRACE, AfterClose


def test_with_nothing_coming_the_grace_runs_out_after_the_close() -> None:
    grace = AfterClose(100.0, applied=40)
    assert not grace.over(100.0 + CLOSED_GRACE - 0.01, 40)
    assert grace.over(100.0 + CLOSED_GRACE + 0.01, 40)


def test_a_peer_still_receiving_the_game_is_not_cut_off() -> None:
    # On a busy machine the tail comes slowly: each batch applied starts the grace anew.
    grace = AfterClose(100.0, applied=40)
    now = 100.0
    for applied in range(41, 60):
        now += 0.9 * CLOSED_GRACE
        assert not grace.over(now, applied), (now, applied)
    assert not grace.over(now + CLOSED_GRACE - 0.01, 59)
    assert grace.over(now + CLOSED_GRACE + 0.01, 59)

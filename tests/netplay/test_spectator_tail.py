"""The end of a game with a spectator delay: the host keeps the public stream going
until spectators have had every held-back batch and the outcome, says so in its
announcement, never hands a spectator the end early, and a resumed host keeps the delay
for what it had not released."""

from __future__ import annotations

from netplay.codec import decode
from netplay.host import HostSession
from netplay.lobby import table_from_announcement
from netplay.playing.notices import Applied, GameEnded, Verified

from .harness import SHORT, Table, frames, seat_heartbeats
from .test_journal import _crash_and_resume, _journaled

DELAY = 3.0


def _announced(table: Table) -> dict[str, object]:
    body: dict[str, object] = decode(table.broker.retained[table.topics.announce]).body
    return body


def _until_released(table: Table, host: HostSession, step: float = 0.25) -> None:
    for _ in range(int(4 * DELAY / step) + 8):
        if not host.catching_up:
            break
        table.advance(step)
    table.advance(step)


def test_the_table_says_spectators_are_catching_up_until_the_end_is_out() -> None:
    table = Table(2, seed=71, rules=SHORT, spectator_delay=DELAY, join=False)
    watcher = table.add_player("watcher", watch=True)
    for index in range(2):
        table.add_player(f"p{index}")
    table.pump()
    table.run_to_end()
    host = table.host
    assert host.over and host.catching_up
    assert 0 < host.tail_left(table.clock) <= DELAY
    said = _announced(table)
    assert said["status"] == "over" and said["catching_up"] is True
    assert watcher.applied < len(host.batches)  # not seen yet
    assert watcher.secret is None  # nor the reveal: the outcome is in it
    _until_released(table, host)
    assert not host.catching_up and host.released == len(host.batches)
    said = _announced(table)
    assert said["status"] == "over" and "catching_up" not in said
    assert [n.n for n in table.notices_of(watcher, Applied)] == list(
        range(1, len(host.batches) + 1))
    assert table.notices_of(watcher, GameEnded)
    (verified,) = table.notices_of(watcher, Verified)
    assert verified.verdict.ok
    assert host.spectators_unverified(table.clock) == 0


def test_a_spectator_that_comes_during_the_tail_gets_the_end_no_sooner() -> None:
    table = Table(2, seed=72, rules=SHORT, spectator_delay=DELAY)
    table.run_to_end()
    host = table.host
    assert host.catching_up
    late = table.add_player("late", watch=True)
    table.pump()
    # It catches up as far as the delay allows, and no further: no reveal, no outcome.
    assert late.applied == host.released < len(host.batches)
    assert late.secret is None and (late.view is None or late.view.outcome is None)
    assert host.spectators_unverified(table.clock) == 1
    _until_released(table, host)
    assert late.applied == len(host.batches)
    assert late.verdict is not None and late.verdict.ok


def test_a_host_that_releases_it_all_at_once_gives_spectators_the_end() -> None:
    table = Table(2, seed=73, rules=SHORT, spectator_delay=30.0, join=False)
    watcher = table.add_player("watcher", watch=True)
    for index in range(2):
        table.add_player(f"p{index}")
    table.pump()
    table.run_to_end()
    host = table.host
    assert host.catching_up and watcher.applied < len(host.batches)
    host.release_all()  # what a host closing its ended table does
    table.flush()
    table.pump()
    assert not host.catching_up and "catching_up" not in _announced(table)
    assert watcher.applied == len(host.batches)
    assert watcher.verdict is not None and watcher.verdict.ok


def test_spectators_do_not_hear_whom_the_live_table_waits_for() -> None:
    """Whose turn it is now is the live game: with a delay it stays off ``events``."""
    table = Table(2, seed=74, rules=SHORT, spectator_delay=DELAY, turn_clock=30.0)
    table.add_player("fan", watch=True)
    table.run(lambda: len(table.host.batches) >= 4)
    for player in table.players:
        table.peer(player).auto = False
    for _ in range(3):
        table.advance(1.0)
    public = [f for _, f in frames(table.broker.log, "/events") if f.type == "heartbeat"]
    seats = seat_heartbeats(table)
    assert public and all("wait" not in f.body for f in public)
    assert any(f.body.get("wait") for f in seats)
    assert all("public" in f.body for f in public)


def _stamped_table(seed: int) -> Table:
    table = Table(2, seed=seed, rules=SHORT, spectator_delay=DELAY, join=False)
    table.host.wall_offset = 0.0  # its wall clock is the table's clock
    return table


def _seat_two(table: Table) -> None:
    for index in range(2):
        table.add_player(f"p{index}")
    table.pump()


def test_a_resumed_host_holds_back_again_what_spectators_were_not_due() -> None:
    table = _stamped_table(75)
    entries = _journaled(table)
    _seat_two(table)
    table.run(lambda: len(table.host.batches) >= 10)
    table.host.tick(table.clock)  # what is due now went out before the crash
    released = table.host.released
    assert released < len(table.host.batches)
    new = _crash_and_resume(table, entries)
    new.hold_back(table.clock)
    assert new.released == released  # what was not due yet stays held
    late = table.add_player("late", watch=True)
    table.flush()
    table.pump()
    assert late.applied == released
    table.advance(DELAY)
    table.advance(0.5)
    assert new.released > released and late.applied == new.released


def test_a_host_resumed_during_the_tail_releases_the_rest_in_its_time() -> None:
    table = _stamped_table(76)
    entries = _journaled(table)
    _seat_two(table)
    table.run_to_end()
    assert table.host.catching_up
    new = _crash_and_resume(table, entries)
    assert new.over and new.released == len(new.batches)  # without times: all at once
    new.hold_back(table.clock)
    assert new.catching_up and new.released < len(new.batches)
    table.flush()
    assert _announced(table)["catching_up"] is True
    late = table.add_player("late", watch=True)
    table.flush()
    table.pump()
    assert late.secret is None and (late.view is None or late.view.outcome is None)
    _until_released(table, new)
    assert late.applied == len(new.batches)
    assert late.verdict is not None and late.verdict.ok


def test_a_listing_shows_the_tail_and_takes_nothing_else_for_it() -> None:
    table = Table(2, seed=77, rules=SHORT, spectator_delay=DELAY)
    table.run_to_end()
    topic = table.topics.announce
    body = dict(_announced(table))
    info = table_from_announcement(topic, table.broker.retained[topic], "mqtt://x")
    assert info is not None and info.catching_up and info.status == "over"
    assert ": game over, spectators catching up, 0 of 2 seats free" in info.line()
    # A value other than true, or on a table still playing, is not the tail.
    for odd in ({"catching_up": "yes"}, {"catching_up": 1},
                {"catching_up": True, "status": "playing"}):
        payload = table.host.sender.frame("announce", {**body, **odd})
        info = table_from_announcement(topic, payload, "mqtt://x")
        assert info is not None and not info.catching_up, odd
        assert "catching up" not in info.line()

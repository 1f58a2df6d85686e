"""A peer's next deadline is a time at which its tick has something to do: never one
already past (the driver would wake at once, again and again, a core spinning while it
waits), and a spectator whose last batches were lost still asks for them."""

from __future__ import annotations

from netplay.player import PlayerSession

from .harness import SHORT, Session, Table, observe


def _ticks_checked(table: Table) -> list[tuple[str, float, float]]:
    """Wrap the table's tick: after each, every session's next deadline is noted where it
    is not in the future. Returns the list that collects them (who, now, deadline)."""
    past: list[tuple[str, float, float]] = []
    tick = table.tick

    def checked() -> None:
        tick()
        for peer in table.peers:
            session = peer.session
            deadline = session.next_deadline()
            if deadline <= table.clock:
                past.append((session.name, table.clock, deadline))

    table.tick = checked  # type: ignore[method-assign]
    return past


def test_no_peer_names_a_deadline_it_has_already_passed() -> None:
    table = Table(3, seed=17, rules=SHORT)
    table.add_player("watcher", watch=True)
    past = _ticks_checked(table)
    table.run_to_end()
    table.advance(5.0)
    assert past == []


def test_a_peer_not_yet_seated_does_not_wake_for_heartbeats_it_will_not_send() -> None:
    table = Table(2, seed=18, rules=SHORT)
    late = table.add_player("late", watch=True)
    paused = table.peer(late)
    paused.paused = True  # its join is not answered: it stays unjoined
    table.clock += 10.0
    late.tick(table.clock)
    assert not late.joined
    assert late.next_deadline() > table.clock


def test_a_spectator_that_lost_the_last_batches_asks_for_them_and_verifies() -> None:
    table = Table(2, seed=19, rules=SHORT)
    watcher = table.add_player("watcher", watch=True)
    table.pump()
    lost: list[int] = []

    def lose_the_end(receiver: Session, topic: str, payload: bytes) -> bool:
        if receiver is not watcher or not table.host.over:
            return False
        frame = observe(payload)
        if frame.type == "events" and not frame.sealed:
            lost.append(int(frame.body["n"]))
            return True
        return False

    table.filters.append(lose_the_end)
    table.run(lambda: table.host.over)
    table.filters.remove(lose_the_end)
    table.run(lambda: watcher.verdict is not None, max_seconds=60.0)
    assert lost, "the test lost no batch: it proves nothing"
    assert isinstance(watcher, PlayerSession) and watcher.verdict is not None
    assert watcher.verdict.ok, watcher.verdict

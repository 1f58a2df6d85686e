"""Putting a peer right (``netplay.hosting.repair``): batches sent again to a seat sealed, a
spectator's history in bulk, a heartbeat that crossed a batch answered with nothing, a
rejection kept to be sent again."""

from __future__ import annotations

from engine.actions import Discard
from netplay.hosting.repair import IN_FLIGHT
from netplay.identity import peer_id

from .harness import SHORT, Table, observe


def _table() -> Table:
    table = Table(2, seed=41, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 6)
    table.host.data_to_send()
    return table


def _to(table: Table, key: bytes) -> list[str]:
    """The types of the frames the host has for ``key``'s inbox (``sealed``: to it)."""
    inbox = table.topics.inbox(peer_id(key))
    return [observe(out.payload).type for out in table.host.data_to_send()
            if out.topic == inbox]


def test_a_seat_gets_the_batches_it_missed_sealed_to_it() -> None:
    table = _table()
    player = table.players[0]
    table.host.repair.resend(player.identity.key, 2)
    sent = _to(table, player.identity.key)
    assert sent and set(sent) == {"sealed"}
    assert len(sent) == len(table.host.batches) - 1


def test_a_spectator_gets_its_history_in_bulk_up_to_what_the_delay_released() -> None:
    table = _table()
    eve = table.add_player("eve", watch=True)
    table.pump()
    table.host.data_to_send()
    table.host.repair.resend(eve.identity.key, 1)
    assert _to(table, eve.identity.key) == ["history"]


def test_a_heartbeat_that_crossed_the_last_batch_is_answered_with_nothing() -> None:
    table = _table()
    host, key = table.host, table.players[0].identity.key
    last = host.batches[-1]
    host.repair.published(last, host.now)
    host.repair.heartbeat(key, last.n - 1)
    assert _to(table, key) == []
    host.now += IN_FLIGHT + 0.1
    host.repair.heartbeat(key, last.n - 1)
    assert _to(table, key) == ["sealed"]


def test_a_rejection_is_kept_by_the_actions_seq_for_a_few_actions() -> None:
    table = _table()
    host, key = table.host, table.players[0].identity.key
    for seq in range(1, 7):
        host.repair.reject(key, Discard(0, seq), f"no {seq}", seq)
    assert host.repair.rejection(key, 1) is None  # only the last few are kept
    kept = host.repair.rejection(key, 6)
    assert kept is not None and kept["reason"] == "no 6"
    host.repair.reject(key, Discard(0, 7), "unkept", None)
    assert host.repair.rejection(key, 7) is None
    assert _to(table, key).count("sealed") == 7


def test_a_snapshot_goes_to_a_seat_sealed_and_to_a_spectator_signed() -> None:
    table = _table()
    host = table.host
    player = table.players[0]
    host.repair.snapshot(player.identity.key, table.players[0].seat)
    assert _to(table, player.identity.key) == ["sealed"]
    eve = table.add_player("eve", watch=True)
    table.pump()
    host.data_to_send()
    host.repair.snapshot(eve.identity.key, None)
    assert _to(table, eve.identity.key) == ["snapshot"]

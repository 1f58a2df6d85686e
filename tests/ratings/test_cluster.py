"""The shared database of several servers: leases, epochs, journals, identities."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import pytest
from sqlalchemy import insert

from netplay.journal import JournalError, JournalFenced
from ratings.cluster import ClusterStore, DbJournal, HeldRow
from ratings.models import journal_entries
from ratings.store import Store

SHORT = 0.6
"""A lease short enough to run out within a test."""


def _store(url: str, node: str, lease: float = 5.0) -> ClusterStore:
    return ClusterStore(url, node, lease=lease, fence_margin=min(2.0, lease / 3))


@pytest.fixture
def url(database: str) -> str:
    async def migrate() -> None:
        store = await Store.open(database)
        await store.close()

    asyncio.run(migrate())
    return database


def _expire(store: ClusterStore, lease_s: float) -> None:
    deadline = time.monotonic() + lease_s + 5
    while not store.free():
        assert time.monotonic() < deadline, "the lease never ran out"
        time.sleep(0.05)


def test_a_table_name_is_held_by_one_node_at_a_time(url: str) -> None:
    a, b = _store(url, "a"), _store(url, "b")
    try:
        assert a.claim("friday", creator="ssh-1", creator_name="Ann") is not None
        assert b.claim("friday", creator="ssh-2", creator_name="Bob") is None
        assert [row.table for row in b.listed()] == ["friday"]
        assert b.listed()[0].node == "a"
    finally:
        a.close()
        b.close()


def test_two_nodes_racing_for_a_free_table_exactly_one_wins(url: str) -> None:
    dead = _store(url, "dead", lease=SHORT)
    racers = [_store(url, f"n{i}") for i in range(4)]
    try:
        for round_ in range(3):
            lease = dead.claim(f"t{round_}", creator="c", creator_name="C")
            assert lease is not None
            _expire(dead, SHORT)
            row = next(r for r in dead.free() if r.table == f"t{round_}")
            won: list[str] = []
            start = threading.Barrier(len(racers))
            threads = [threading.Thread(target=_race, args=(s, row, start, won))
                       for s in racers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert len(won) == 1, won
            held = next(r for r in dead.listed() if r.table == f"t{round_}")
            assert (held.node, held.epoch) == (won[0], 2)
            assert not dead.renew(lease), "the old holder's renewal must fail"
    finally:
        dead.close()
        for store in racers:
            store.close()


def _race(store: ClusterStore, row: HeldRow, start: threading.Barrier,
          won: list[str]) -> None:
    start.wait()
    if store.take_over(row) is not None:
        won.append(store.node)


def test_a_live_lease_is_not_taken_and_renewing_keeps_it(url: str) -> None:
    a, b = _store(url, "a", lease=SHORT), _store(url, "b")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None
        for _ in range(4):
            assert a.renew(lease)
            assert not [r for r in b.free() if r.table == "t"]
            time.sleep(SHORT / 3)
    finally:
        a.close()
        b.close()


def test_the_journal_round_trips_in_order(url: str) -> None:
    a = _store(url, "a")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None
        journal = DbJournal.create(a, lease, creator="c")
        journal.write([{"t": "table", "x": b"\x00\x01"}, {"t": "seat", "seat": 0}])
        # Written is not committed: another node reading now sees only the first entry.
        assert [e["t"] for e in a.entries(lease.held_id)] == ["journal"]
        assert journal.unsynced
        journal.mark_synced(journal.sync_written())
        assert not journal.unsynced
        journal.append([{"t": "batch", "n": 1}])
        entries = a.entries(lease.held_id)
        assert [e["t"] for e in entries] == ["journal", "table", "seat", "batch"]
        assert entries[1]["x"] == b"\x00\x01"
    finally:
        a.close()


def test_a_node_that_lost_its_lease_can_not_add_to_the_journal(url: str) -> None:
    a, b = _store(url, "a", lease=SHORT), _store(url, "b")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None
        journal = DbJournal.create(a, lease)
        _expire(b, SHORT)
        row = next(r for r in b.free() if r.table == "t")
        assert b.take_over(row) is not None
        journal.valid_until = time.monotonic() + 5  # its own deadline not passed yet
        journal.write([{"t": "batch", "n": 1}])
        with pytest.raises(JournalFenced):
            journal.sync_written()
        assert [e["t"] for e in b.entries(lease.held_id)] == ["journal"]
    finally:
        a.close()
        b.close()


def test_a_journal_past_its_own_deadline_commits_nothing(url: str) -> None:
    a = _store(url, "a")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None
        journal = DbJournal.create(a, lease)
        journal.valid_until = time.monotonic() - 0.1
        journal.write([{"t": "batch", "n": 1}])
        with pytest.raises(JournalFenced):
            journal.sync_written()
        assert [e["t"] for e in a.entries(lease.held_id)] == ["journal"]
    finally:
        a.close()


def test_a_handed_over_table_is_free_at_once_and_an_ended_one_never(url: str) -> None:
    a, b = _store(url, "a"), _store(url, "b")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        other = a.claim("u", creator="c", creator_name="C")
        assert lease is not None and other is not None
        assert a.hand_over(lease)
        free = b.free()
        assert [r.table for r in free] == ["t"] and free[0].state == "handover"
        assert a.end(other, "its game is over")
        assert a.claim("u", creator="c", creator_name="C") is not None  # the name is free
    finally:
        a.close()
        b.close()


def test_a_profile_has_one_identity_on_every_node(url: str) -> None:
    a, b = _store(url, "a"), _store(url, "b")
    try:
        assert a.profile_seed("ssh-1", b"A" * 32) == b"A" * 32
        assert b.profile_seed("ssh-1", b"B" * 32) == b"A" * 32
        a.heartbeat()
        b.heartbeat()
        assert a.alive_nodes() == ["b"]
        b.heartbeat("draining")
        assert a.alive_nodes() == []
    finally:
        a.close()
        b.close()


def test_a_commit_made_again_after_its_answer_was_lost_counts_once(url: str) -> None:
    a = _store(url, "a")
    try:
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None
        journal = DbJournal.create(a, lease)
        a.append(lease, 1, [b'{"t":"seat"}\n'])
        a.append(lease, 1, [b'{"t":"seat"}\n'])  # the same commit, tried again
        with pytest.raises(JournalFenced):
            a.append(lease, 1, [b'{"t":"other"}\n'])
        assert [e["t"] for e in a.entries(lease.held_id)] == ["journal", "seat"]
        journal.close()
    finally:
        a.close()


def test_renewing_every_lease_at_once_keeps_only_this_nodes(url: str) -> None:
    a, b = _store(url, "a", lease=SHORT), _store(url, "b")
    try:
        kept = a.claim("kept", creator="c", creator_name="C")
        lost = a.claim("lost", creator="c", creator_name="C")
        assert kept is not None and lost is not None
        assert a.renew_all([kept, lost]) == {kept.held_id, lost.held_id}
        assert a.hand_over(lost)
        row = next(r for r in b.free() if r.table == "lost")
        assert b.take_over(row) is not None
        assert a.renew_all([kept, lost]) == {kept.held_id}
        assert a.renew_all([]) == set()
        # An ended table's journal goes with it; its name is free again.
        journal = DbJournal.create(a, kept)
        assert a.end(kept, "its game is over")
        with pytest.raises(JournalError, match="has no journal"):
            a.entries(kept.held_id)
        journal.close()
    finally:
        a.close()
        b.close()


def test_a_node_cut_off_inside_a_transaction_does_not_hold_up_the_takeover(url: str) -> None:
    """A node whose link went down after its journal's ``INSERT`` (its ``COMMIT`` lost):
    PostgreSQL sees its session idle in the transaction, holding the table's row lock.
    The lease runs out, and another node takes the table over soon after (far within the
    lease), each try never waiting on the lock."""
    if url.startswith("sqlite"):
        pytest.skip("row locks and idle sessions are PostgreSQL's")
    dead, taker = _store(url, "dead", lease=SHORT), _store(url, "taker")
    try:
        lease = dead.claim("t", creator="c", creator_name="C")
        assert lease is not None
        journal = DbJournal.create(dead, lease, node="dead")
        # The dead node's last transaction, never committed: its connection is one of
        # the node's own (with the node's settings), and it says nothing more.
        stuck = dead.engine.connect()
        stuck.begin()
        assert stuck.execute(dead._renewing(lease)).rowcount == 1
        stuck.execute(insert(journal_entries).values(held_id=lease.held_id, seq=1,
                                                      epoch=lease.epoch, entry=b"{}"))
        _expire(taker, SHORT)
        ended = time.monotonic()
        taken = None
        longest_try = 0.0
        while taken is None:
            assert time.monotonic() - ended < 3.5, "the takeover waited on the dead node"
            row = next(r for r in taker.free() if r.table == "t")
            tried = time.monotonic()
            taken = taker.take_over(row)
            longest_try = max(longest_try, time.monotonic() - tried)
        assert longest_try < 1.0, f"a takeover waited {longest_try:.2f} s on a row lock"
        assert taken.epoch == 2
        assert [e["t"] for e in taker.entries(lease.held_id)] == ["journal"]
        assert journal.lease.epoch == 1 and not dead.renew(lease)
        with contextlib.suppress(Exception):
            stuck.close()
    finally:
        dead.close()
        taker.close()


def test_a_hand_over_wakes_the_other_nodes_at_once(url: str) -> None:
    """A draining node's hand-over is announced (PostgreSQL's ``NOTIFY``): a node
    listening looks for free tables at once, not at its next poll."""
    if url.startswith("sqlite"):
        pytest.skip("NOTIFY is PostgreSQL's")
    a, b = _store(url, "a"), _store(url, "b")
    woken = threading.Event()
    listening = threading.Event()
    stop = threading.Event()

    def wake() -> None:
        if listening.is_set():
            woken.set()
        listening.set()  # the first call: listening now

    thread = threading.Thread(target=b.listen_handovers, args=(wake, stop), daemon=True)
    thread.start()
    try:
        assert listening.wait(10), "the node never listened"
        lease = a.claim("t", creator="c", creator_name="C")
        assert lease is not None and not woken.is_set()
        assert a.hand_over(lease)
        assert woken.wait(5), "the hand-over woke no one"
    finally:
        stop.set()
        thread.join(5)
        a.close()
        b.close()

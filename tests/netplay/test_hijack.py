"""The host guards its announcement: whatever else lands on its announce topic is replaced
at once by its own, and its players hear that someone impersonates the table."""

from __future__ import annotations

from netplay.codec import TABLE_PROTOCOL, decode
from netplay.hosts import AnnounceWatch, HostTrust, Trust, check_pin, fingerprint, split_pin
from netplay.identity import Identity
from netplay.playing.notices import HostConflict, Impostor, TableClosed

from .harness import Table, forge


def _retained_host(table: Table) -> bytes:
    """The key that signed the retained announcement now on the broker."""
    return decode(table.broker.retained[table.topics.announce]).sender


def _rogue_announcement(table: Table) -> tuple[Identity, bytes]:
    rogue = Identity.from_seed(b"r" * 32)
    body = {"name": "t1", "game": "sequence-stacks", "protocol": TABLE_PROTOCOL, "host": rogue.key,
            "players": 2, "seats": [None, None], "status": "lobby", "commit": bytes(32),
            "password": False, "block_window": 3.0, "rules": {}}
    return rogue, forge(rogue, "announce", body)


def test_a_rogue_announcement_is_replaced_at_once_and_the_players_are_told() -> None:
    table = Table(2, seed=5)
    table.run(lambda: len(table.host.batches) >= 5)
    rogue, payload = _rogue_announcement(table)
    table.inject(table.topics.announce, payload, retain=True)
    assert _retained_host(table) == table.host_identity.key
    for player in table.players:
        (warning,) = table.notices_of(player, Impostor)
        assert warning.key == rogue.key and fingerprint(rogue.key) in warning.what
        assert player.host_key == table.host_identity.key
    # A late spectator and a returning player (a new process) find the real host.
    watcher = table.add_player("late", watch=True)
    table.pump()
    assert watcher.joined and watcher.host_key == table.host_identity.key
    original = table.at_seat(0)
    table.remove(original)
    back = table.add_player("p0", identity=original.identity)
    table.pump()
    assert back.joined and back.seat == 0 and back.host_key == table.host_identity.key
    table.run_to_end()
    table.assert_in_step([back, table.at_seat(1)])


def test_an_empty_announcement_closes_nothing_and_is_replaced() -> None:
    table = Table(2, seed=5)
    table.run(lambda: len(table.host.batches) >= 3)
    table.inject(table.topics.announce, b"", retain=True)
    assert _retained_host(table) == table.host_identity.key
    for player in table.players:
        assert not table.notices_of(player, TableClosed)
        (warning,) = table.notices_of(player, Impostor)
        assert "empty" in warning.what and warning.key is None
    table.run_to_end()
    table.assert_in_step()


def test_the_hosts_own_older_frames_are_restored_without_a_warning() -> None:
    table = Table(2, seed=5)
    host = table.host
    older = forge(table.host_identity, "announce", {"host": table.host_identity.key,
                                                    "status": "offline"})
    mark = len(table.broker.log)
    table.inject(table.topics.announce, older, retain=True)
    assert table.broker.retained[table.topics.announce] == host.watch.current
    assert not any(t == table.topics.table_stream for t, _ in table.broker.log[mark:])
    # Its own current announcement coming back is no intrusion at all.
    mark = len(table.broker.log)
    assert host.watch.current is not None
    table.inject(table.topics.announce, host.watch.current, retain=True)
    assert len(table.broker.log) == mark + 1  # just the echo, nothing answered


def test_a_flood_of_intrusions_costs_a_bounded_number_of_restorations() -> None:
    table = Table(2, seed=5)
    host = table.host
    mark = len(table.broker.log)
    for _ in range(500):
        host.receive(table.topics.announce, b"", table.clock)
    table.flush()
    restores = [p for t, p in table.broker.log[mark:] if t == table.topics.announce]
    warnings = [p for t, p in table.broker.log[mark:] if t == table.topics.table_stream]
    assert len(restores) == AnnounceWatch.RESTORES.burst and len(warnings) == 1
    # The last word is the host's: a held-back restoration goes out when its time comes.
    table.broker.publish(table.topics.announce, b"", retain=True)
    assert host.watch.due is not None
    table.advance(1.0)
    assert _retained_host(table) == host.identity.key


def test_the_signed_close_stays_retained_and_closes_the_table_for_its_players() -> None:
    table = Table(2, seed=5)
    table.host.close_table()
    table.pump()
    frame = decode(table.broker.retained[table.topics.announce])
    assert frame.sender == table.host_identity.key and frame.body["status"] == "closed"
    for player in table.players:
        assert table.notices_of(player, TableClosed)
    assert not table.notices_of(table.players[0], Impostor)


def test_pins_and_fingerprints() -> None:
    key = Identity.from_seed(b"k" * 32).key
    fp = fingerprint(key)
    assert len(fp) == 19 and fp.count("-") == 3
    assert split_pin("t1") == ("t1", None)
    assert split_pin(f"t1@{fp}") == ("t1", fp.replace("-", ""))
    assert split_pin(f"t1@{fp.upper().replace('-', '')}")[1] == fp.replace("-", "")
    for bad in ("t1@", "t1@abc", "t1@" + "z" * 16, "T1@" + fp):
        try:
            split_pin(bad)
        except ValueError:
            continue
        raise AssertionError(f"{bad!r} accepted")
    assert check_pin(Identity.from_seed(b"k" * 32).peer_id) == Identity.from_seed(
        b"k" * 32).peer_id
    trust = HostTrust(fp)
    other = Identity.from_seed(b"o" * 32).key
    assert trust.consider(other, {"status": "lobby"}) is Trust.IGNORE
    assert trust.consider(key, {"status": "lobby"}) is Trust.FOLLOW


def test_a_conflict_is_reported_once_per_other_key() -> None:
    table = Table(2, seed=5)
    _rogue, payload = _rogue_announcement(table)
    table.inject(table.topics.announce, payload, retain=True)
    table.inject(table.topics.announce, payload, retain=True)
    player = table.players[0]
    assert len(table.notices_of(player, HostConflict)) == 1

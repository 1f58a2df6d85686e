"""A bare table name (no pin, no remembered host) listens to the table's announcements for
SETTLE seconds before its first join, and two host keys before a welcome make it follow
neither: the user pins one. Once welcomed, another key is only a conflict it is told of."""

from __future__ import annotations

from netplay.codec import TABLE_PROTOCOL
from netplay.hosts import HostTrust, Trust, fingerprint
from netplay.identity import Identity
from netplay.player import PlayerSession
from netplay.playing.joining import SETTLE
from netplay.playing.notices import HostConflict, HostsDisagree, Joined, TableSeen

from .harness import TABLE, Table, forge

ROGUE = Identity.from_seed(b"r" * 32)


def _rogue_announcement(identity: Identity = ROGUE) -> bytes:
    body = {"name": TABLE, "game": "sequence-stacks", "protocol": TABLE_PROTOCOL,
            "host": identity.key, "players": 2, "seats": [None, None], "status": "lobby",
            "commit": bytes(32), "password": False, "block_window": 3.0, "rules": {},
            "boot": b"b" * 8}
    return forge(identity, "announce", body)


def _joins(table: Table, since: int, peer_id: str) -> int:
    return sum(1 for topic, _ in table.broker.log[since:] if topic == table.topics.outbox(peer_id))


def test_a_bare_name_joins_its_only_host_after_the_settle_time() -> None:
    table = Table(2, seed=3, join=False)
    mark = len(table.broker.log)
    player = table.add_player("p0", settle=SETTLE)
    table.pump()
    seen_at = table.clock
    assert table.notices_of(player, TableSeen) and player.host_key == table.host_identity.key
    assert not player.joined and _joins(table, mark, player.peer_id) == 0
    assert player.next_deadline() == seen_at + SETTLE
    table.advance(SETTLE / 2)
    assert not player.joined and _joins(table, mark, player.peer_id) == 0
    table.advance(SETTLE / 2)
    assert player.joined and player.seat == 0
    assert not table.notices_of(player, HostsDisagree)


def test_a_rogue_heard_in_the_settle_time_means_no_join_to_either() -> None:
    table = Table(2, seed=3, join=False)
    mark = len(table.broker.log)
    player = table.add_player("p0", settle=SETTLE)
    table.pump()
    table.advance(SETTLE / 4)
    # A rogue re-publishes its own announcement of the table (the host puts its own back).
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    (asked,) = table.notices_of(player, HostsDisagree)
    assert [c.key for c in asked.claims] == [table.host_identity.key, ROGUE.key]
    assert asked.pins() == [f"{TABLE}@{fingerprint(table.host_identity.key)}",
                            f"{TABLE}@{fingerprint(ROGUE.key)}"]
    assert player.host_key is None
    # Neither is followed, however long it waits and whoever announces again.
    for _ in range(5):
        table.inject(table.topics.announce, _rogue_announcement(), retain=True)
        table.advance(SETTLE)
    assert not player.joined and player.host_key is None
    assert _joins(table, mark, player.peer_id) == 0
    assert len(table.notices_of(player, HostsDisagree)) == 1  # said once per new key
    third = Identity.from_seed(b"3" * 32)
    table.inject(table.topics.announce, _rogue_announcement(third), retain=True)
    assert [c.key for c in table.notices_of(player, HostsDisagree)[-1].claims] == [
        table.host_identity.key, ROGUE.key, third.key]


def test_the_users_pick_is_a_pin() -> None:
    table = Table(2, seed=3, join=False)
    player = table.add_player("p0", settle=SETTLE)
    table.pump()
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    assert table.notices_of(player, HostsDisagree)
    player.follow(b"x" * 32)  # nobody's key: nothing happens
    assert player.host_key is None
    player.follow(table.host_identity.key)
    table.pump()
    assert player.joined and player.host_key == table.host_identity.key
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    assert player.host_key == table.host_identity.key
    assert not table.notices_of(player, HostConflict)  # a pin: the rogue is simply dropped


def test_a_pinned_name_joins_at_once() -> None:
    table = Table(2, seed=3, join=False)
    pinned = f"{TABLE}@{fingerprint(table.host_identity.key)}"
    session = PlayerSession(Identity.generate(), pinned, "p0", table.clock)
    assert session.joining.settle == SETTLE and not session.trust.bare
    session.start(table.clock)
    session.data_to_send()  # its presence
    table.broker.subscribe(session, table.topics.announce,
                           lambda t, p: session.receive(t, p, table.clock))
    assert session.host_key == table.host_identity.key
    (join,) = session.data_to_send()  # with the first announcement: nothing to wait for
    assert join.topic == table.topics.outbox(session.peer_id)


def test_once_welcomed_another_key_is_a_conflict_and_the_peer_stays() -> None:
    table = Table(2, seed=3, join=False)
    player = table.add_player("p0", settle=SETTLE)
    table.pump()
    table.advance(SETTLE)
    assert table.notices_of(player, Joined)
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    assert player.host_key == table.host_identity.key and player.joined
    (conflict,) = table.notices_of(player, HostConflict)
    assert conflict.joined and conflict.other.key == ROGUE.key
    assert not table.notices_of(player, HostsDisagree)


def test_trust_of_a_bare_name() -> None:
    a, b, c = (Identity.from_seed(bytes([n]) * 32).key for n in (1, 2, 3))
    lobby = {"status": "lobby"}
    trust = HostTrust()
    assert trust.bare
    assert trust.consider(a, lobby) is Trust.FOLLOW
    assert trust.consider(b, {"status": "closed"}) is Trust.IGNORE  # a goodbye claims nothing
    assert trust.consider(b, lobby) is Trust.AMBIGUOUS and trust.undecided
    assert trust.consider(b, lobby) is Trust.IGNORE  # said once
    assert trust.consider(a, lobby) is Trust.IGNORE  # not followed back
    assert trust.consider(c, lobby) is Trust.AMBIGUOUS
    assert [claim.key for claim in trust.claims()] == [a, b, c]
    trust.choose(b)
    assert not trust.undecided and not trust.bare and trust.key == b
    assert trust.consider(a, lobby) is Trust.IGNORE
    assert trust.consider(b, lobby) is Trust.FOLLOW
    # Welcomed first: another key is a conflict, the peer stays.
    trust = HostTrust()
    assert trust.consider(a, lobby) is Trust.FOLLOW
    assert trust.consider(b, lobby, joined=True) is Trust.CONFLICT and not trust.undecided
    # A pinned or remembered name is never undecided.
    assert HostTrust(remembered=a).consider(b, lobby) is Trust.UNEXPECTED
    pinned = HostTrust(fingerprint(a))
    assert pinned.consider(a, lobby) is Trust.FOLLOW
    assert pinned.consider(b, lobby) is Trust.IGNORE and not pinned.undecided


def test_a_new_key_opening_the_table_after_our_game_ended_is_its_next_game() -> None:
    a, b, c = (Identity.from_seed(bytes([n]) * 32).key for n in (1, 2, 3))
    trust = HostTrust()
    assert trust.consider(a, {"status": "playing"}) is Trust.FOLLOW
    # While our game is on, another key is a conflict (a rogue's claim): said, stayed.
    assert trust.consider(b, {"status": "lobby"}, joined=True) is Trust.CONFLICT
    trust = HostTrust()
    assert trust.consider(a, {"status": "over"}) is Trust.FOLLOW
    # Our game over: a rematch's new host key is the table's next game, said once.
    assert trust.consider(b, {"status": "lobby"}, joined=True, ended=True) is Trust.NEXT_GAME
    assert trust.consider(b, {"status": "lobby"}, joined=True, ended=True) is Trust.IGNORE
    # Its game starts (or ends) later: still the next game, never "another host claims it".
    assert trust.consider(b, {"status": "playing"}, joined=True, ended=True) is Trust.IGNORE
    assert trust.consider(b, {"status": "over"}, joined=True, ended=True) is Trust.IGNORE
    assert trust.key == a  # never followed without the user
    assert trust.consider(c, {"status": "closed"}, joined=True, ended=True) is Trust.IGNORE
    # A pinned peer follows only its pin, next game or not.
    pinned = HostTrust(fingerprint(a))
    assert pinned.consider(a, {"status": "over"}) is Trust.FOLLOW
    assert pinned.consider(b, {"status": "lobby"}, joined=True, ended=True) is Trust.IGNORE


def test_a_rematch_under_a_new_host_key_is_the_next_game_not_a_hijack() -> None:
    from netplay.playing.notices import NextGame

    from .harness import SHORT

    table = Table(2, seed=5, rules=SHORT)
    spectator = table.add_player("watcher", watch=True)
    table.pump()
    table.run_to_end()
    assert spectator.view is not None and spectator.view.outcome is not None
    # The host rematches: its next game is announced under a key of its own.
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    for peer in (spectator, table.players[0]):
        assert not table.notices_of(peer, HostConflict), peer.name  # no hijack warning
        (news,) = table.notices_of(peer, NextGame)
        assert news.host.key == ROGUE.key and news.table == TABLE
        assert peer.host_key == table.host_identity.key  # stays with its ended game
    table.inject(table.topics.announce, _rogue_announcement(), retain=True)
    assert len(table.notices_of(spectator, NextGame)) == 1  # said once

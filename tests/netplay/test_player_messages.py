"""The player's handling of what arrives: frames not from the host, misplaced frames and
odd host frames are dropped; nothing is an internal error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import netplay.hosting.listing
import netplay.player
import netplay.playing.following
from engine.config import RulesConfig
from engine.state import Phase
from netplay.player import PlayerSession
from netplay.playing.notices import ChatLine, HostMoved, Refused

from .harness import SHORT, Table, forge, forge_sealed, identity_for

INTERNAL = "internal error (logged)"


def game(seed: int = 71) -> Table:
    table = Table(2, seed=seed, rules=SHORT)
    table.add_player("watcher", watch=True)
    table.run(lambda: len(table.host.batches) >= 5 and table.state.phase == Phase.PLAY)
    for peer in table.peers:
        peer.auto = False
    return table


def test_frames_not_from_the_host_are_dropped() -> None:
    table = game()
    me = table.at_seat(0)
    impostor = identity_for(71, "impostor")
    batch = table.host.batches[-1].redacted_for(0).to_body()
    inbox = table.topics.inbox(me.peer_id)
    before = (me.applied, list(me.dropped))
    table.inject(inbox, forge_sealed(impostor, me.identity.key, "events", batch))
    table.inject(table.topics.table_stream, forge(impostor, "heartbeat", {"at": 999}))
    body = {"host": impostor.key, "game": "sequence-stacks", "players": 2}
    table.inject(table.topics.announce, forge(impostor, "announce", body))
    assert me.applied == before[0]
    assert me.dropped[len(before[1]):] == [
        "a frame not from this table's host",
        "a frame not from this table's host",
        "an announcement from a different host key",
    ]
    assert me.host_key == table.host_identity.key


def test_unsealed_batches_for_a_seated_player_are_dropped() -> None:
    table = game()
    me = table.at_seat(0)
    host = table.host_identity
    body = table.host.batches[-1].redacted_for(0).to_body()
    table.inject(table.topics.inbox(me.peer_id), forge(host, "events", body))
    assert me.dropped[-1] == "an unsealed 'events' for a seated player"


def test_a_spectator_cannot_be_given_a_seat() -> None:
    table = game()
    watcher = next(s for s in table.players if s.watch)
    welcome = {"seat": 0, "players": 2, "rules": SHORT.to_wire(), "commit": b"\0" * 32,
               "status": "playing", "facts": None}
    table.inject(table.topics.inbox(watcher.peer_id), forge(table.host_identity, "welcome",
                                                            welcome))
    assert watcher.seat is None and watcher.dropped[-1] == "a spectator was given a seat"


def test_chat_lines_are_cleaned() -> None:
    table = game()
    me = table.at_seat(1)
    other = table.at_seat(0)
    other.chat("hello\x1b[31m red\x07 world\n")
    table.pump()
    assert table.notices_of(me, ChatLine)[-1] == ChatLine("p0", "hello[31m red world")
    table.inject(table.topics.chat, forge(identity_for(1, "x"), "chat", {"text": "x",
                                                                          "name": 5}))
    assert "must be str" in me.dropped[-1]


_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-3, max_value=300)
    | st.text(max_size=6) | st.binary(min_size=0, max_size=33)
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "seat", "card", "cards", "n", "x"]), inner,
                      max_size=3),
    max_leaves=8,
)
_field = st.sampled_from(
    ["seat", "players", "rules", "commit", "status", "facts", "reason", "n", "action",
     "proof", "events", "hash", "state", "secret", "total", "termination", "winner", "at",
     "pile", "presses", "entropies", "names", "keys", "host", "text", "name"]
)


def _rules() -> st.SearchStrategy[Any]:
    return st.sampled_from([
        SHORT.to_wire(), {"first_player": 5}, {"hand_size": 0}, {"nope": 1}, {},
        RulesConfig(first_player=1).to_wire(),
    ])


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    st.sampled_from(["welcome", "refused", "events", "snapshot", "rejected", "reveal",
                     "start", "heartbeat", "race", "x"]),
    st.dictionaries(_field, _values, max_size=7),
    st.sampled_from(["events", "inbox", "sealed"]),
    st.sampled_from(["watcher", "seated"]),
    _rules(),
)
def test_fuzz_host_frames_never_cause_an_internal_error(
    type_: str, body: dict[str, Any], where: str, who: str, rules: dict[str, Any]
) -> None:
    table = Table(2, seed=72, rules=SHORT, join=False)
    session: PlayerSession = table.add_player(who, watch=who == "watcher")
    table.pump()
    if "rules" in body:
        body["rules"] = rules
    host = table.host_identity
    if where == "events":  # the table's public stream as this peer follows it
        stream = table.topics.events if session.watch else table.topics.table_stream
        topic, payload = stream, forge(host, type_, body)
    elif where == "inbox":
        topic, payload = table.topics.inbox(session.peer_id), forge(host, type_, body)
    else:
        topic = table.topics.inbox(session.peer_id)
        payload = forge_sealed(host, session.identity.key, type_, body)
    session.receive(topic, payload, table.clock)
    session.tick(table.clock + 1)
    assert INTERNAL not in session.dropped


@pytest.mark.parametrize("first_player", [2, 5])
def test_a_start_with_impossible_rules_is_dropped(first_player: int) -> None:
    table = Table(2, seed=73, rules=SHORT, join=False)
    me = table.add_player("me")
    table.pump()
    facts = {
        "players": 2, "rules": RulesConfig(first_player=first_player).to_wire(),
        "names": ["a", "b"], "keys": [None, None], "entropies": [b"\0" * 32] * 2,
        "commit": b"\0" * 32,
    }
    me.receive(table.topics.table_stream, forge(table.host_identity, "start", facts),
               table.clock)
    assert me.facts is None and me.view is None
    assert me.dropped and INTERNAL not in me.dropped


def test_a_replayed_chat_line_is_dropped() -> None:
    table = game()
    me = table.at_seat(1)
    table.at_seat(0).chat("gg")
    table.pump()
    payload = next(p for t, p in reversed(table.broker.log) if t == table.topics.chat)
    table.inject(table.topics.chat, payload)
    assert table.notices_of(me, ChatLine) == [ChatLine("p0", "gg")]


@pytest.mark.parametrize("host, peer", [(6, 7), (7, 6), (5, 6), (6, 5), (4, 5), (5, 4),
                                        (3, 4), (4, 3), (2, 4)])
def test_a_host_of_another_protocol_is_named_and_no_seat_is_taken(
    host: int, peer: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A host built before presence could rest on the broker's wills (6: it would count a
    # resting seat of 7 away between its rare beats, and take a replayed will), a peer built
    # before (it would beat as before, but take a stale will of its host), a host built
    # before its heartbeats came to the seats in a box each (5: its seats of
    # 6 would drop its signed beats and find it silent), a peer built before (it would drop
    # the boxed beats, the same), a host built before a batch came to the seats in one
    # frame on ``table`` (4: its seats
    # would wait on their own channel, and be counted away between 4 s beats), a peer
    # built before (it would never open the seats' frame), a host built before a
    # spectator's catch-up came in bulk (3: a spectator of it would
    # wait for history frames that never come), a peer built before (it would drop them),
    # a host built before sealed frames were vouched for by their boxes alone (2). The
    # player is told why, not joining.
    monkeypatch.setattr(netplay.hosting.listing, "TABLE_PROTOCOL", host)
    monkeypatch.setattr(netplay.playing.following, "TABLE_PROTOCOL", peer)
    table = Table(2, join=False)
    player = table.add_player("new-program")
    table.pump()
    refused = table.notices_of(player, Refused)
    assert [n.reason for n in refused] == [
        f"the table's host runs protocol {host} and this program {peer}: both need the same "
        "version of sequence-stacks"]
    assert not player.joined and player.host_key is None
    assert all(info is None for info in table.host.seats)
    table.host.tick(table.clock + 5)  # announcements again: still said once
    table.flush()
    table.pump()
    assert len(table.notices_of(player, Refused)) == 1


def test_a_seated_player_speaks_under_its_name_before_the_deal() -> None:
    table = Table(3, seed=72, rules=SHORT, join=False)  # three seats, two taken: no deal
    bo = table.add_player("Bo")
    zoe = table.add_player("Zoe", watch=True)
    cy = table.add_player("Cy")
    table.pump()
    assert bo.seat is not None and cy.seat is not None and table.host.game is None
    bo.chat("hi")
    zoe.chat("hello")
    table.pump()
    assert ChatLine("Bo", "hi") in table.notices_of(cy, ChatLine)  # not "Bo (watching)"
    assert ChatLine("Zoe (watching)", "hello") in table.notices_of(cy, ChatLine)


def test_a_seat_drops_a_signed_heartbeat_on_the_seats_stream_and_takes_its_boxed_one() -> None:
    """Protocol 6: the host beats to its seats in a box each. A signed beat on ``table``
    (an older host's, or one replayed from ``events``) is dropped, said, and changes
    nothing; the boxed one is taken."""
    table = game()
    me = table.at_seat(0)
    table.advance(0.1)
    heard = me.host_heard
    me.receive(table.topics.table_stream,
               forge(table.host_identity, "heartbeat", {"at": 999}), table.clock + 0.05)
    assert me.dropped[-1] == "a signed heartbeat on the seats' stream (an older host's)"
    assert me.known < 999 and me.host_heard == heard
    dropped = len(me.dropped)
    table.advance(table.settings.heartbeat)  # a quiet interval: the host's boxed beat
    assert me.host_heard is not None and me.host_heard > heard
    assert len(me.dropped) == dropped


def test_every_frame_type_a_player_reads_names_one_of_its_methods() -> None:
    names = [*netplay.player._ON_INBOX.values(), *netplay.player._ON_STREAM.values(), "_events"]
    for name in names:
        assert callable(getattr(PlayerSession, name, None)), name


def test_frames_of_an_older_epoch_are_refused_and_a_move_is_told() -> None:
    """A table taken over by another server (the same host key) announces a higher epoch:
    its players are told the table moved, and frames of an older epoch (a server that
    lost the table) are dropped."""
    table = game()
    me = table.at_seat(0)
    watcher = next(s for s in table.players if s.watch)
    host = table.host
    host.sender.epoch = 1
    host.announce()
    table.pump()
    assert me.following.epoch == 1 and not table.notices_of(me, HostMoved)
    host.sender.epoch = 2
    host.announce()
    table.pump()
    assert me.following.epoch == 2
    assert table.notices_of(me, HostMoved) == [HostMoved(me.table, 2)]
    assert "moved the table" in HostMoved(me.table, 2).words()
    old = {**host.batches[-1].redacted_for(None).to_body(), "epoch": 1}
    applied = watcher.applied
    table.inject(table.topics.events, forge(table.host_identity, "events", old))
    assert watcher.applied == applied
    assert watcher.dropped[-1].startswith("a frame of the host's epoch 1, older than 2")
    body = {"host": table.host_identity.key, "epoch": 1, "conn": b"x" * 8}
    table.inject(table.topics.announce, forge(table.host_identity, "offline", body))
    assert me.dropped[-1] == "the last will of a server that lost the table"
    assert not me.liveness.offline
    # The game goes on under the new epoch.
    for peer in table.peers:
        peer.auto = True
    table.run_to_end()
    assert me.view is not None and me.view.outcome is not None

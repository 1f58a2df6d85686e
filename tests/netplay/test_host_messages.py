"""The host's handling of what peers send: every bad message is dropped or rejected, and
the game goes on unharmed."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import netplay.host
from engine.actions import Action, CloseBlockWindow, Discard, EndTurn, PlayCard
from engine.config import RulesConfig
from engine.errors import IllegalActionError
from engine.rules import legal_actions, validate
from engine.state import Phase
from engine.views import public_hash
from netplay.codec import MAX_FRAME, pack, unpack
from netplay.host import HostSession, HostSettings
from netplay.identity import Identity
from netplay.player import PlayerSession
from netplay.playing.notices import Joined, Refused, Rejected, Resynced

from .harness import (
    SHORT,
    TABLE,
    Table,
    forge,
    forge_sealed,
    frames,
    identity_for,
    observe,
    opened,
)

# -- helpers -------------------------------------------------------------------------------

INTERNAL = "internal error (logged)"
"""What a session records when handling a message raised: a bug, never a verdict on input."""


@dataclass
class Before:
    hash: str
    batches: int
    dropped: int


def paused_game(seed: int = 11, players: int = 2, batches: int = 6) -> tuple[Table, Before]:
    """A game some batches in, in a play phase, with every bot holding still."""
    table = Table(players, seed=seed, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= batches and table.state.phase == Phase.PLAY)
    for peer in table.peers:
        peer.auto = False
    return table, before(table)


def before(table: Table) -> Before:
    return Before(table.host_hash(), len(table.host.batches), len(table.host.dropped))


def current_and_other(table: Table) -> tuple[PlayerSession, PlayerSession]:
    current = table.at_seat(table.state.current)
    other = next(s for s in table.players if s.seat not in (None, current.seat))
    return current, other


def action_body(action: Action, at: int = 0) -> dict[str, Any]:
    return {"action": action.to_wire(), "at": at}


def sealed_action(table: Table, identity: Identity, body: dict[str, Any]) -> bytes:
    """An action frame of ``body`` signed by ``identity``, sealed to the host as a player
    sends it."""
    signed = forge(identity, "action", body)
    return forge_sealed(identity, table.host_identity.key, "action", {"signed": signed})


def new_dropped(table: Table, then: Before) -> list[str]:
    return table.host.dropped[then.dropped :]


def assert_unharmed(table: Table, then: Before) -> None:
    """Nothing changed on the host, and the game still plays to a verified end."""
    assert INTERNAL not in table.host.dropped
    assert table.host_hash() == then.hash
    assert len(table.host.batches) == then.batches
    table.assert_in_step()
    for peer in table.peers:
        peer.auto = not peer.session.watch
    table.run_to_end()
    assert table.host.over
    table.assert_in_step()
    for session in table.players:
        assert session.verdict is not None and session.verdict.ok, session.verdict
    assert table.host.verdicts and all(v["ok"] for v in table.host.verdicts.values())
    assert INTERNAL not in table.host.dropped
    assert all(INTERNAL not in s.dropped for s in table.players)


def a_legal_action(session: PlayerSession) -> Action:
    assert session.view is not None and session.seat is not None
    legal = legal_actions(session.view, session.seat)
    return next(a for a in legal if isinstance(a, Discard | PlayCard | EndTurn))


# -- signatures, senders, replays -------------------------------------------------------------


def test_forged_signature_is_dropped() -> None:
    table, then = paused_game()
    current, other = current_and_other(table)
    body = action_body(a_legal_action(current), current.applied)
    # Signed by another key, the sender field still claiming the current player's key;
    # a huge seq, to show that a forged frame can't advance the replay guard.
    inner = pack([1, "action", TABLE, current.identity.key, 1 << 62, body])
    table.inject(table.out_topic(current), pack([inner, other.identity.sign(inner)]))
    assert new_dropped(table, then) == ["bad signature"]
    assert_unharmed(table, then)


def test_what_a_peer_sends_the_host_alone_travels_sealed() -> None:
    # Heartbeats, resyncs and verdicts only the host reads: sealed to it, its box vouching
    # for the sender, they cost both ends a fraction of a signature.
    table = Table(3, seed=91, rules=SHORT)
    table.add_player("watcher", watch=True)
    table.run_to_end()
    kinds: dict[str, int] = {}
    for peer in table.peers:
        topic = table.out_topic(peer.session)
        for _, payload in ((t, p) for t, p in table.broker.log if t == topic):
            outside, inside = observe(payload), table.read(topic, payload)
            if inside.type in ("heartbeat", "resync", "verified", "action"):
                assert outside.type == "sealed", f"a {inside.type} in the clear"
                kinds[inside.type] = kinds.get(inside.type, 0) + 1
    assert {"heartbeat", "verified", "action", "resync"} <= set(kinds), kinds
    assert all(v["ok"] for v in table.host.verdicts.values()) and len(table.host.verdicts) == 4


def test_an_action_in_the_clear_is_dropped() -> None:
    # Signed by the right player, in turn and legal, but not sealed: a refused action in
    # the clear could show everyone a card of the player's hand.
    table, then = paused_game()
    current, _ = current_and_other(table)
    body = action_body(a_legal_action(current), current.applied)
    table.inject(table.out_topic(current), forge(current.identity, "action", body))
    assert new_dropped(table, then) == ["an action in the clear (actions travel sealed)"]
    assert_unharmed(table, then)


def test_sealed_frames_that_do_not_hold_what_they_claim_are_dropped() -> None:
    table, then = paused_game()
    current, other = current_and_other(table)
    host = table.host_identity.key
    signed = forge(current.identity, "action", action_body(a_legal_action(current)))
    topic = table.out_topic(current)
    # Sealed by another key under the current player's name (the box won't open), ...
    box = other.identity.seal_for(host, pack([TABLE, 1 << 62, "action", {"signed": signed}]))
    inner = pack([1, "sealed", TABLE, current.identity.key, 1 << 62, {"box": box}])
    table.inject(topic, pack([inner]))
    # ... a header whose seq or table is not the box's (a replay dressed up as new), ...
    table.inject(topic, forge_sealed(current.identity, host, "action", {"signed": signed},
                                     box_seq=1))
    table.inject(topic, forge_sealed(current.identity, host, "action", {"signed": signed},
                                     box_table="t2"))
    # ... the player's own signed action sealed by someone else, ...
    table.inject(table.out_topic(other), forge_sealed(other.identity, host, "action",
                                                      {"signed": signed}))
    # ... what must be signed sealed instead, and an old program's signed "sealed" frame.
    table.inject(topic, forge_sealed(current.identity, host, "join", {"name": "x"}))
    table.inject(topic, forge(current.identity, "sealed", {"box": b"x" * 40}))
    assert new_dropped(table, then) == [
        "a sealed box that does not open with our key",
        "a sealed frame whose header is not its box's",
        "a sealed frame whose header is not its box's",
        "a sealed action that is not the sender's own signed action",
        "a sealed 'join' (it travels signed)",
        "a signed 'sealed' frame (an older program's)",
    ]
    assert_unharmed(table, then)


def test_a_box_the_host_sealed_is_not_taken_back_as_the_players() -> None:
    # A batch the host sealed for a seat (its box in the seats' frame), put on that seat's
    # out topic as a sealed frame: either end of a pair can open their boxes, but this one
    # names the host as its sealer.
    table, then = paused_game()
    current, _ = current_and_other(table)
    assert current.seat is not None
    stream = table.topics.table_stream
    boxes = [p for t, p in table.broker.log if t == stream and observe(p).type == "boxes"]
    version, _, name, _, seq, body = unpack(unpack(boxes[-1])[0])
    box = body["boxes"][current.seat]
    # The header now claims the player sent it.
    header = [version, "sealed", name, current.identity.key, seq, {"box": box}]
    table.inject(table.out_topic(current), pack([pack(header)]))
    assert new_dropped(table, then) == ["a sealed box that its sender did not seal"]
    assert_unharmed(table, then)


def test_frame_whose_sender_is_not_the_topics_peer_is_dropped() -> None:
    table, then = paused_game()
    current, other = current_and_other(table)
    assert current.seat is not None
    payload = forge(other.identity, "action", action_body(a_legal_action(current)))
    table.inject(table.out_topic(current), payload)
    # And the other way round: the current player's own frame on someone else's topic.
    payload = forge(current.identity, "action", action_body(a_legal_action(current)))
    table.inject(table.out_topic(other), payload)
    assert new_dropped(table, then) == ["the sender's key does not match its topic"] * 2
    assert_unharmed(table, then)


def test_replayed_action_frame_is_dropped() -> None:
    table, _ = paused_game()
    current, _other = current_and_other(table)
    topic = table.out_topic(current)
    # Actions travel sealed to the host.
    first_action = next(
        p for t, p in table.broker.log if t == topic and observe(p).type == "sealed"
    )
    table.send_action(current, a_legal_action(current))
    sent = [p for t, p in table.broker.log if t == topic and observe(p).type == "sealed"][-1]
    then = before(table)
    table.inject(topic, sent)  # the same bytes again: an at-least-once duplicate
    table.inject(topic, first_action)  # an old one
    reasons = new_dropped(table, then)
    assert len(reasons) == 2 and all("replayed" in r for r in reasons)
    assert not table.notices_of(current, Rejected)
    assert_unharmed(table, then)


def test_action_for_another_seat_is_dropped() -> None:
    table, then = paused_game()
    current, other = current_and_other(table)
    # A perfectly legal action of the current seat, sent (and signed) by someone else.
    legal = a_legal_action(current)
    table.inject(table.out_topic(other), sealed_action(table, other.identity, action_body(legal)))
    assert new_dropped(table, then) == [
        f"seat {other.seat} sent an action for seat {current.seat}"
    ]
    assert not table.notices_of(other, Rejected)
    assert_unharmed(table, then)


def test_out_of_turn_action_is_rejected_with_the_engines_reason() -> None:
    table, then = paused_game()
    current, other = current_and_other(table)
    assert other.view is not None and other.seat is not None
    action = Discard(other.seat, other.view.hands[other.seat][0])
    with pytest.raises(IllegalActionError) as expected:
        validate(table.state, action)
    assert str(expected.value) == f"it is seat {current.seat}'s turn, not seat {other.seat}'s"
    table.send_action(other, action)
    rejected = table.notices_of(other, Rejected)
    assert [r.reason for r in rejected] == [str(expected.value)]
    # The reply went to the player's own inbox, sealed (it names a card of its hand).
    inbox = [f for _, f in frames(table.broker.log, f"/peer/{other.peer_id}/in")]
    assert not [f for f in inbox if f.type == "rejected"]
    bodies = [opened(other.identity, f) for f in inbox if f.type == "sealed"]
    replies = [body for kind, body in bodies if kind == "rejected"]
    assert replies == [{"reason": str(expected.value), "action": action.to_wire()}]
    assert new_dropped(table, then) == []
    assert_unharmed(table, then)


def test_illegal_action_of_the_current_player_is_rejected() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    assert current.seat is not None
    action = PlayCard(current.seat, 119, 12345)  # a card it doesn't hold, a pile that isn't
    with pytest.raises(IllegalActionError) as expected:
        validate(table.state, action)
    table.send_action(current, action)
    assert [r.reason for r in table.notices_of(current, Rejected)] == [str(expected.value)]
    assert_unharmed(table, then)


def test_close_block_window_from_a_player_is_dropped() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    table.send_action(current, CloseBlockWindow())
    table.send_action(current, CloseBlockWindow(seat=current.seat or 0))
    assert new_dropped(table, then) == ["only the host closes a Block window"] * 2
    assert_unharmed(table, then)


def _malformed_bodies(seat: int, card: int) -> list[dict[str, Any]]:
    good = {"type": "discard", "seat": seat, "card": card}
    return [
        {"action": {"type": "play", "seat": seat}, "at": 0},
        {"action": {"type": "no such action", "seat": seat}, "at": 0},
        {"action": {"seat": seat, "card": card}, "at": 0},
        {"action": "discard", "at": 0},
        {"action": [good], "at": 0},
        {"action": None, "at": 0},
        {"action": {**good, "card": True}, "at": 0},
        {"action": {**good, "card": str(card)}, "at": 0},
        {"action": {**good, "card": 1 << 40}, "at": 0},
        {"action": {**good, "card": [card]}, "at": 0},
        {"action": {**good, "extra": 1}, "at": 0},
        {"action": {**good, "seat": None}, "at": 0},
        {"action": good},
        {"action": good, "at": "0"},
        {"action": good, "at": None},
        {"action": good, "at": 1.0},
        {"at": 0},
        {},
    ]


def test_malformed_actions_are_dropped() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    assert current.view is not None and current.seat is not None
    card = current.view.hands[current.seat][0]
    bodies = _malformed_bodies(current.seat, card)
    for body in bodies:
        table.inject(table.out_topic(current), sealed_action(table, current.identity, body))
    reasons = new_dropped(table, then)
    assert len(reasons) == len(bodies), reasons
    assert not any("sealed" in reason or "clear" in reason for reason in reasons), reasons
    assert not table.notices_of(current, Rejected)
    assert_unharmed(table, then)


def test_oversized_frame_is_dropped() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    body = action_body(a_legal_action(current))
    body["pad"] = [b"\0" * 30_000, b"\0" * 30_000, b"\0" * 30_000]
    payload = forge(current.identity, "action", body)
    assert len(payload) > MAX_FRAME
    table.inject(table.out_topic(current), payload)
    (reason,) = new_dropped(table, then)
    assert "limit" in reason
    assert_unharmed(table, then)


@pytest.mark.parametrize(
    "payload",
    # The random bytes are seeded: every pytest-xdist worker must collect the same tests.
    [b"", b"\xc1", b"garbage", random.Random(248).randbytes(64), pack({"not": "a frame"}),
     pack([b"x", b"y"])],
)
def test_garbage_is_dropped(payload: bytes) -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    table.inject(table.out_topic(current), payload)
    table.inject(table.topics.presence(current.peer_id), payload)
    assert len(new_dropped(table, then)) == 2
    assert_unharmed(table, then)


def test_frame_for_another_table_is_dropped() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    payload = forge(current.identity, "action", action_body(a_legal_action(current)), table="t2")
    table.inject(table.out_topic(current), payload)
    assert new_dropped(table, then) == ["frame for table 't2'"]
    assert_unharmed(table, then)


def test_out_of_place_messages_are_dropped() -> None:
    table, then = paused_game()
    current, _ = current_and_other(table)
    me = current.identity
    table.inject(table.out_topic(current), forge(me, "welcome", {"seat": 0}))
    table.inject(table.out_topic(current), forge(me, "events", {"n": 99, "events": []}))
    table.inject(table.topics.presence(current.peer_id), forge(me, "heartbeat", {"at": 0}))
    table.to_host(forge(me, "action", action_body(a_legal_action(current))), table.topics.chat)
    table.to_host(
        forge(me, "action", action_body(a_legal_action(current))),
        table.topics.inbox(current.peer_id) + "/x",
    )
    reasons = new_dropped(table, then)
    assert reasons[:3] == [
        "unexpected message type 'welcome'",
        "unexpected message type 'events'",
        "'heartbeat' on a presence topic",
    ]
    assert reasons[3:] == ["message on a topic the host does not read"] * 2
    assert_unharmed(table, then)


def test_messages_from_peers_that_have_not_joined_are_dropped() -> None:
    table, then = paused_game()
    stranger = identity_for(11, "stranger")
    topic = table.topics.outbox(stranger.peer_id)
    table.inject(topic, sealed_action(table, stranger, action_body(EndTurn(0))))
    table.inject(topic, forge(stranger, "heartbeat", {"at": 0}))
    table.inject(topic, forge(stranger, "resync", {"from": 1, "snapshot": True}))
    assert new_dropped(table, then) == [
        "action from a peer without a seat",
        "heartbeat from a peer that has not joined",
        "resync from a peer that has not joined",
    ]
    assert not [t for t, _ in table.broker.log if t == table.topics.inbox(stranger.peer_id)]
    assert_unharmed(table, then)


def test_desync_and_verified_from_strangers_are_dropped() -> None:
    table, then = paused_game()
    stranger = identity_for(11, "stranger")
    topic = table.topics.outbox(stranger.peer_id)
    body = {"n": 1, "ours": "0" * 32, "theirs": "1" * 32, "last": [], "version": 1}
    table.inject(topic, forge(stranger, "desync", body))
    table.inject(topic, forge(stranger, "verified", {"ok": False, "detail": "rigged!"}))
    assert not [t for t, _ in table.broker.log if t == table.topics.inbox(stranger.peer_id)]
    assert len(new_dropped(table, then)) == 2
    for peer in table.peers:
        peer.auto = True
    table.run_to_end()
    assert all(v["ok"] for v in table.host.verdicts.values()), table.host.verdicts


def test_action_before_the_game_starts_is_rejected() -> None:
    table = Table(3, seed=12, join=False)
    first = table.add_player("p0")
    table.pump()
    assert first.seat == 0 and table.host.game is None
    table.send_action(first, EndTurn(0))
    assert [r.reason for r in table.notices_of(first, Rejected)] == ["the game has not started"]


# -- nothing raises out of the host --------------------------------------------------------

_FUZZ_TABLE: list[Table] = []


def _fuzz_table() -> Table:
    if not _FUZZ_TABLE:
        table, _ = paused_game(seed=13)
        _FUZZ_TABLE.append(table)
    return _FUZZ_TABLE[0]


_scalars = (
    st.none() | st.booleans() | st.integers(min_value=-(1 << 40), max_value=1 << 40)
    | st.text(max_size=8) | st.binary(max_size=40)
)
_field_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "seat", "card", "pile", "zone", "x"]), inner,
                      max_size=4),
    max_leaves=10,
)
_fields = st.sampled_from(
    ["action", "at", "from", "snapshot", "name", "entropy", "password", "watch", "online",
     "ok", "detail", "n", "ours", "theirs", "last", "type", "seat"]
)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(
    st.sampled_from(["join", "action", "resync", "desync", "heartbeat", "verified", "presence",
                     "chat", "x"]),
    st.dictionaries(_fields, _field_values, max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_fuzz_host_never_raises(
    type_: str, body: dict[str, Any], presence: bool, sealed: bool
) -> None:
    table = _fuzz_table()
    session = table.players[0]
    topic = (
        table.topics.presence(session.peer_id) if presence else table.out_topic(session)
    )
    # Sealed as a player sends an action (its signed frame inside), or signed in the clear.
    payload = sealed_action(table, session.identity, body) if sealed and type_ == "action" \
        else forge(session.identity, type_, body)
    table.host.receive(topic, payload, table.clock)
    table.host.tick(table.clock)
    table.flush()
    table.queue.clear()
    assert INTERNAL not in table.host.dropped


# -- joining -------------------------------------------------------------------------------


def test_join_with_wrong_password_is_refused() -> None:
    table = Table(2, seed=14, password="open sesame", join=False, rules=SHORT)
    right = table.add_player("right", password="open sesame")
    wrong = table.add_player("wrong", password="open sesame!")
    none = table.add_player("none")
    table.pump()
    assert right.seat == 0
    for session in (wrong, none):
        assert session.seat is None and not session.joined
        assert [r.reason for r in table.notices_of(session, Refused)] == ["wrong table password"]
    # A password sealed to some other key does not open for the host either.
    sneaky = identity_for(14, "sneaky")
    body = {"name": "sneaky", "entropy": b"\1" * 32, "watch": False,
            "password": sneaky.seal_for(sneaky.key, b"open sesame")}
    table.inject(table.topics.outbox(sneaky.peer_id), forge(sneaky, "join", body))
    assert table.host.seats[1] is None and table.host.game is None
    late = table.add_player("late", password="open sesame")
    table.pump()
    assert late.seat == 1 and table.host.game is not None
    for peer in table.peers:
        peer.auto = peer.session in (right, late)
    table.run(lambda: table.host.over and right.verdict is not None and late.verdict is not None)
    assert right.verdict is not None and right.verdict.ok


def test_spectator_join_with_wrong_password_is_refused() -> None:
    table = Table(2, seed=15, password="pw", join_password="pw")
    watcher = table.add_player("watcher", watch=True, password="not it")
    table.pump()
    assert table.notices_of(watcher, Refused)
    assert watcher.view is None


def test_join_when_the_game_is_running_is_refused() -> None:
    table, then = paused_game()
    late = table.add_player("late")
    table.pump()
    assert [r.reason for r in table.notices_of(late, Refused)] == [
        "the game has already started"
    ]
    assert late.seat is None and late.view is None
    assert [info.key if info else None for info in table.host.seats] == [
        s.identity.key for s in sorted(table.players[:2], key=lambda s: s.seat or 0)
    ]
    table.remove(late)
    assert_unharmed(table, then)


def test_a_table_of_host_bots_starts_at_once_and_refuses_joiners() -> None:
    table = Table(2, bots=("greedy", "greedy"), seed=16)
    assert table.host.game is not None
    human = table.add_player("human")
    table.pump()
    assert [r.reason for r in table.notices_of(human, Refused)] == [
        "the game has already started"
    ]


def test_join_again_in_the_lobby_gives_the_same_seat() -> None:
    table = Table(3, seed=17, join=False)
    first = table.add_player("p0")
    table.add_player("p1")
    table.pump()
    assert first.seat == 0
    again = table.add_player("p0 again", identity=first.identity)
    table.pump()
    assert again.seat == 0
    assert [type(n) for n in table.notices(again) if isinstance(n, Joined | Refused)] == [Joined]
    assert table.host.seats[2] is None and table.host.game is None
    assert sum(info is not None for info in table.host.seats) == 2


def test_join_again_after_the_start_gives_seat_and_hand_back() -> None:
    table, _ = paused_game(seed=18, players=3)
    old = table.players[1]
    seat = old.seat
    assert seat is not None
    table.remove(old)
    for peer in table.peers:
        peer.auto = True
    table.run(lambda: len(table.host.batches) > 20 and table.state.current == seat
              and table.state.phase == Phase.PLAY)
    mark = len(table.broker.log)
    back = table.add_player("p1 back", identity=old.identity)
    table.pump()
    assert back.seat == seat
    assert [type(n) for n in table.notices(back) if isinstance(n, Joined | Resynced)] == [
        Joined, Resynced,
    ]
    assert back.view is not None
    assert public_hash(back.view) == table.host_hash()
    assert back.view.hands[seat] == table.state.hands[seat]
    # welcome in the clear, then the snapshot sealed to the returning player.
    inbox = table.topics.inbox(back.peer_id)
    sent = [observe(p) for t, p in table.broker.log[mark:] if t == inbox]
    assert [f.type for f in sent[:2]] == ["welcome", "sealed"]
    assert opened(back.identity, sent[1])[0] == "snapshot"
    # Then, for its log, what it missed: its own sealed stream from the first batch.
    missed = [opened(back.identity, f) for f in sent[2:]]
    assert [kind for kind, _ in missed] == ["events"] * len(missed)
    assert [body["n"] for _, body in missed] == list(range(1, len(missed) + 1))
    # The game goes on with the returning player.
    table.run(lambda: table.host.over)
    table.assert_in_step()


def test_rejoined_player_verifies_the_deal_at_the_end() -> None:
    table, _ = paused_game(seed=18, players=3)
    old = table.players[1]
    table.remove(old)
    back = table.add_player("p1 back", identity=old.identity)
    table.pump()
    for peer in table.peers:
        peer.auto = True
    table.run(lambda: table.host.over, max_seconds=60)
    table.run(lambda: back.verdict is not None, max_seconds=60)
    assert back.verdict is not None and back.verdict.ok


# -- configuration that crashes the host ----------------------------------------------------


def test_rules_with_a_first_player_beyond_the_table() -> None:
    identity = Identity.generate()
    try:
        settings = HostSettings(TABLE, 2, rules=RulesConfig(first_player=4))
    except ValueError:
        return  # refused up front: fine
    host = HostSession(identity, settings, 0.0)
    for index in range(2):
        peer = identity_for(19, f"p{index}")
        body = {"name": f"p{index}", "entropy": b"\0" * 32, "password": None, "watch": False}
        host.receive(f"sstacks/v1/{TABLE}/peer/{peer.peer_id}/out",
                     forge(peer, "join", body), 0.0)
    assert host.dropped == []
    assert host.game is not None


def test_every_frame_type_a_host_reads_names_one_of_its_methods() -> None:
    for name in netplay.host._ON_OUTBOX.values():
        assert callable(getattr(HostSession, name, None)), name

"""Hidden information: nothing secret travels in the clear, sealed streams are private,
and spectators see only the public game."""

from __future__ import annotations

import pytest

from engine.actions import Discard
from engine.cards import HIDDEN
from engine.events import CardsDrawn, CardTaken, DrawPileFormed, Reshuffled
from engine.snapshot import state_to_wire
from engine.state import SPECTATOR, Phase, Zone
from netplay.codec import unpack
from netplay.errors import FrameError
from netplay.identity import Identity
from netplay.player import PlayerSession

from .harness import Table, identity_for, observe, opened
from .leaks import assert_public_view, clear_leaks, records, sealed_leaks, state_problems

# -- a full watched game -----------------------------------------------------------------------

_GAME: list[Table] = []


def watched_game() -> Table:
    """A finished 3-seat game (2 people, 1 host bot) with a spectator, in which some seat
    stole from a hand and the draw pile was reshuffled; the spectator's view is checked
    after every step of the way."""
    if _GAME:
        return _GAME[0]
    for seed in range(40):
        table = Table(3, bots=("greedy",), seed=seed, join=False)
        spectator = table.add_player("spectator", watch=True, identity=identity_for(seed, "spy"))
        table.add_player("p0")
        table.add_player("p1")
        table.pump()

        def watch(table: Table = table, spectator: PlayerSession = spectator) -> bool:
            assert_public_view(table, spectator.view)
            return table.settled()

        table.run(watch)
        table.advance(1.0)
        events = [e for b in table.host.batches for e in b.events]
        if any(isinstance(e, Reshuffled) for e in events) and any(
            isinstance(e, CardTaken) and e.zone == Zone.HAND for e in events
        ):
            _GAME.append(table)
            return table
    raise AssertionError("no seed gave a game with a reshuffle and a steal from a hand")


def test_the_watched_game_is_complete_and_verified() -> None:
    table = watched_game()
    spectator = table.players[0]
    assert spectator.watch and spectator.seat is None
    assert table.host.over
    table.assert_in_step()
    for session in table.players:
        assert session.verdict is not None and session.verdict.ok, session.verdict
    assert len(table.host.verdicts) == 3


def test_nothing_secret_in_the_clear() -> None:
    table = watched_game()
    assert clear_leaks(table) == []


def test_public_frames_hide_every_draw_and_hand_steal() -> None:
    """The plain reading of the rule: in every frame anyone can decode, dealt, drawn,
    reshuffled and hand-stolen cards are all HIDDEN (and there were such events)."""
    table = watched_game()
    seen: dict[str, int] = {}
    for _topic, payload in table.broker.log:
        frame = observe(payload)
        if frame.type == "sealed":
            continue
        for kind, item in records(frame.body):
            if kind != "event":
                continue
            if isinstance(item, DrawPileFormed | Reshuffled | CardsDrawn):
                assert set(item.cards) <= {HIDDEN}, item
                seen[item.TYPE] = seen.get(item.TYPE, 0) + 1
            if isinstance(item, CardTaken) and item.zone == Zone.HAND:
                assert item.card == HIDDEN, item
                seen["hand steal"] = seen.get("hand steal", 0) + 1
    assert set(seen) == {"draw_pile", "drawn", "reshuffled", "hand steal"}


def test_sealed_frames_open_only_for_their_addressee() -> None:
    table = watched_game()
    outsider = Identity.generate()
    seated = {s.peer_id: s for s in table.players if s.seat is not None}
    sealed = 0
    boxes: dict[str, int] = {}
    for topic, payload in table.broker.log:
        frame = observe(payload)
        if frame.type == "boxes":
            # A batch (or the host's heartbeat) for every seat at once: each box opens for
            # its own seat's player only, and all boxes of one frame hold the same type.
            assert topic == table.topics.table_stream
            kinds = set()
            for place, box in enumerate(frame.body["boxes"]):
                if box is None:
                    continue
                with pytest.raises(FrameError):
                    opened(outsider, frame, place)
                for session in seated.values():
                    if session.seat == place:
                        kinds.add(opened(session.identity, frame, place)[0])
                    else:
                        with pytest.raises(FrameError):
                            opened(session.identity, frame, place)
            assert len(kinds) == 1 and kinds <= {"events", "heartbeat"}, kinds
            kind = kinds.pop()
            boxes[kind] = boxes.get(kind, 0) + 1
            continue
        if frame.type != "sealed":
            continue
        sealed += 1
        owner = topic.rsplit("/", 2)[-2]
        # Sealed frames go to seated players, and from any peer to the host.
        assert owner in seated or topic.endswith("/out"), topic
        with pytest.raises(FrameError):
            opened(outsider, frame)
        for peer_id, session in seated.items():
            if peer_id != owner:
                with pytest.raises(FrameError):
                    opened(session.identity, frame)
    assert boxes["events"] == len(table.host.batches)
    assert sealed > 0  # the players' actions, heartbeats besides


def test_each_seat_sees_only_its_own_secrets() -> None:
    table = watched_game()
    for session in table.players:
        if session.seat is not None:
            assert sealed_leaks(table, session) == []


def test_a_late_spectator_gets_the_public_history_from_batch_one_and_nothing_more() -> None:
    table = Table(3, seed=22)
    table.run(lambda: len(table.host.batches) > 10)
    mark = len(table.broker.log)
    spectator = table.add_player("late spectator", watch=True)
    table.pump()
    inbox = table.topics.inbox(spectator.peer_id)
    sent = [observe(p) for t, p in table.broker.log[mark:] if t == inbox]
    total = len(table.host.batches)
    assert [f.type for f in sent] == ["welcome", "history"]  # in bulk, no snapshot
    public = [b.redacted_for(SPECTATOR).to_body() for b in table.host.batches]
    assert [unpack(b) for b in sent[1].body["batches"]] == public
    assert len(public) == total
    assert spectator.view is not None
    assert state_problems(state_to_wire(spectator.view), SPECTATOR) == []
    assert_public_view(table, spectator.view)

    def check() -> bool:
        assert_public_view(table, spectator.view)
        return table.host.over

    table.run(check)
    table.assert_in_step([spectator])


def test_a_second_identity_watching_sees_only_the_public_game() -> None:
    table = Table(2, seed=23)
    table.run(lambda: len(table.host.batches) > 5)
    seated = table.at_seat(0)
    friend = table.add_player("friend", watch=True, identity=identity_for(23, "friend"))

    def check() -> bool:
        assert_public_view(table, friend.view)
        return table.settled()

    table.run(check)
    assert seated.seat == 0 and seated.verdict is not None and seated.verdict.ok
    table.assert_in_step([friend])


def test_a_seated_player_also_watching_with_the_same_identity() -> None:
    table = Table(2, seed=24)
    table.run(lambda: len(table.host.batches) > 5)
    seated = table.at_seat(0)
    watcher = table.add_player("me again", watch=True, identity=seated.identity)

    def check() -> bool:
        assert seated.seat == 0, "the seated session lost its seat"
        assert_public_view(table, watcher.view, own=0)
        return table.settled()

    table.run(check, max_seconds=60)
    assert seated.verdict is not None and seated.verdict.ok
    table.assert_in_step([seated])


def test_a_rejected_action_does_not_reveal_a_hand_card() -> None:
    table = Table(2, seed=25)
    table.run(lambda: len(table.host.batches) > 4 and table.state.phase == Phase.PLAY)
    for peer in table.peers:
        peer.auto = False
    waiting = table.at_seat(1 - table.state.current)
    assert waiting.view is not None and waiting.seat is not None
    table.send_action(waiting, Discard(waiting.seat, waiting.view.hands[waiting.seat][0]))
    assert clear_leaks(table) == []


# -- the detectors themselves -------------------------------------------------------------------


def test_the_leak_detectors_see_a_planted_leak() -> None:
    """An unredacted batch on the public topic and a host-level batch in a seat's sealed
    stream are both reported (so the checks above can fail)."""
    table = Table(2, seed=26)
    table.run(lambda: len(table.host.batches) > 3)
    assert clear_leaks(table) == []
    seat0 = table.at_seat(0)
    assert sealed_leaks(table, seat0) == []
    deal = table.host.batches[0]
    table.host.sender.send(table.topics.events, "events", deal.to_body())
    table.host.sender.send_sealed(
        table.topics.inbox(seat0.peer_id), seat0.identity.key, "events", deal.to_body()
    )
    table.flush()
    table.queue.clear()
    assert any("draw_pile shows cards" in leak for leak in clear_leaks(table))
    assert any("seat 1's draw" in leak for leak in clear_leaks(table))
    assert any("seat 1's draw" in leak for leak in sealed_leaks(table, seat0))

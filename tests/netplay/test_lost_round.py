"""A seat that lost the deal's round, or whose answer to it was lost, keeps its seat.

The rounds of the deal (commit, then reveal: ``netplay.entropy``) carry no number a seat
could find missing. Unrepaired, one lost round, or one lost answer, would cost the seat
its place when the round's 15 s were up ("you lost your seat before the deal: the seat
did not reveal its entropy in time"), though its heartbeats said it was there. So the
host sends the round again to a seat it waits for whose heartbeats come, on its own
channel, and the seat answers it.
"""

from __future__ import annotations

from netplay.entropy import REVEAL_WAIT
from netplay.player import PlayerSession
from netplay.playing.notices import Refused

from .harness import SHORT, Table


def _until_dealt(table: Table) -> None:
    """Time passes (heartbeats, the round's deadline) until the deal, or past the round."""
    for _ in range(int(2 * REVEAL_WAIT / 0.5)):
        if table.host.game is not None:
            return
        table.advance(0.5)


def _dealt_fairly(table: Table, seat: PlayerSession) -> None:
    assert table.host.game is not None, "not dealt"
    assert not table.notices_of(seat, Refused), table.notices_of(seat, Refused)
    facts = table.host.deal_facts()
    assert seat.seat is not None and facts["entropies"][seat.seat] == seat.entropy
    table.run_to_end()
    assert seat.verdict is not None and seat.verdict.ok, seat.verdict


def test_a_seat_that_lost_the_reveal_round_reveals_and_keeps_its_seat() -> None:
    table = Table(2, seed=21, rules=SHORT, join=False)
    first = table.add_player("p0")
    dropped = table.drop("entropy_round", to=first, count=1)
    table.add_player("p1")
    table.pump()
    _until_dealt(table)
    assert dropped == [(table.topics.table_stream, "entropy_round")], \
        "no round was lost: the test proves nothing"
    _dealt_fairly(table, first)


def test_a_seat_whose_reveal_was_lost_reveals_again_and_keeps_its_seat() -> None:
    table = Table(2, seed=22, rules=SHORT, join=False)
    first = table.add_player("p0")
    dropped = table.drop("entropy", topic=table.out_topic(first), count=1)
    table.add_player("p1")
    table.pump()
    _until_dealt(table)
    assert dropped, "no reveal was lost: the test proves nothing"
    _dealt_fairly(table, first)


def test_no_round_goes_again_when_none_was_lost() -> None:
    table = Table(3, seed=23, rules=SHORT, join=False)
    mark = len(table.broker.log)
    for index in range(3):
        table.add_player(f"p{index}")
    table.pump()
    _until_dealt(table)
    assert table.host.game is not None
    again = [f for session in table.players
             for f in table.sent(table.topics.inbox(session.peer_id), "entropy_round",
                                 since=mark)]
    assert again == []


def test_a_seat_gone_silent_is_not_waited_for_past_the_round() -> None:
    # The round goes again only to a seat that beats: one that is gone is not waited for
    # longer than the round's time (held, or unseated, as before).
    table = Table(2, seed=24, rules=SHORT, join=False)
    first = table.add_player("p0")
    table.pump()
    seat = first.seat
    assert seat is not None
    table.peers[0].deaf = table.peers[0].paused = True
    table.add_player("p1")
    table.pump()
    _until_dealt(table)
    info = table.host.seats[seat]
    assert seat not in table.host.round.waiting
    assert info is None or info.held, info

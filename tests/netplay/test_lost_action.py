"""An action lost on its way to the host, or whose answer was lost, goes again, and is
played once.

A player's action reaches the broker for sure (QoS 1), but the broker's copy to the host
goes the way of every frame a peer receives: lost with a connection the broker drops. The
player then saw nothing happen, and the table waited for it until its turn clock ran out
(for ever without one). Now an action neither applied (no batch carries its proof) nor
rejected within 3 s goes again: the same signed frame, sealed anew, which the host takes
at most once (each seat's signed actions have their own order at the host).
"""

from __future__ import annotations

import dataclasses

from engine.games import AnyAction
from engine.state import Phase
from netplay.player import PlayerSession
from netplay.playing import pending_actions as pending_module
from netplay.playing.notices import Rejected

from .harness import SHORT, Table

AGAIN = pending_module.ACTION_AGAIN


def _table(seed: int) -> Table:
    """A game some batches in, in a play phase."""
    table = Table(2, seed=seed, rules=SHORT)
    table.run(lambda: len(table.host.batches) >= 4 and table.state.phase == Phase.PLAY)
    return table


def _actor(table: Table) -> PlayerSession:
    return table.at_seat(table.state.current)


def _out_of_turn(table: Table) -> tuple[PlayerSession, AnyAction]:
    """The bots stopped; the seat whose turn it is not, and a move it can't make now (the
    mover's first legal one, in its name): the host rejects it."""
    for peer in table.peers:
        peer.auto = False
    waiting = table.at_seat(1 - table.state.current)
    legal = table.settings.definition.legal_actions(table.state, table.state.current)
    return waiting, dataclasses.replace(legal[0], seat=waiting.seat)


def _proofs(table: Table) -> list[bytes]:
    return [b.proof for b in table.host.batches if b.proof is not None]


def test_an_action_lost_on_its_way_goes_again_and_is_played() -> None:
    table = _table(31)
    actor = _actor(table)
    dropped = table.drop("action", to=table.host, topic=table.out_topic(actor), count=1)
    before = len(table.host.batches)
    started = table.clock
    table.run(lambda: len(table.host.batches) > before)
    assert dropped, "no action was lost: the test proves nothing"
    waited = table.clock - started
    assert AGAIN <= waited < AGAIN + 1.0, waited
    proofs = _proofs(table)
    assert len(proofs) == len(set(proofs))
    table.run_to_end()
    table.assert_in_step()


def test_an_action_whose_answer_was_lost_is_played_once() -> None:
    table = _table(32)
    actor = _actor(table)
    for peer in table.peers:
        peer.auto = False
    before = len(table.host.batches)
    # The host's answer (the actor's box of the batch) is lost; the actor sends again.
    dropped = table.drop("boxes", to=actor, topic=table.topics.table_stream, count=1)
    legal = table.settings.definition.legal_actions(actor.view, actor.seat)
    actor.act(legal[0])
    table.flush()
    table.pump()
    assert dropped and len(table.host.batches) == before + 1
    mark = len(table.broker.log)
    table.advance(AGAIN + 0.1)
    table.pump()
    again = table.sent(table.out_topic(actor), "action", since=mark)
    assert len(again) == 1, "the action was not sent again"
    assert len(table.host.batches) == before + 1, "the host played the action twice"
    for peer in table.peers:
        peer.auto = True
    table.run_to_end()
    table.assert_in_step()


def test_a_rejected_action_is_not_sent_again() -> None:
    table = _table(33)
    waiting, wrong = _out_of_turn(table)
    mark = len(table.broker.log)
    waiting.act(wrong)
    table.flush()
    table.pump()
    assert table.notices_of(waiting, Rejected)
    table.advance(3 * AGAIN)
    table.pump()
    assert len(table.sent(table.out_topic(waiting), "action", since=mark)) == 1


def test_no_action_goes_twice_in_a_game_where_nothing_is_lost() -> None:
    table = Table(3, seed=34, rules=SHORT)
    mark = len(table.broker.log)
    table.run_to_end()
    sent = sum(len(table.sent(table.out_topic(s), "action", since=mark))
               for s in table.players)
    assert sent == len(_proofs(table)) + len(
        [n for s in table.players for n in table.notices_of(s, Rejected)])


def test_an_action_nobody_answers_goes_out_four_times_in_all() -> None:
    table = _table(35)
    actor = _actor(table)
    for peer in table.peers:
        peer.auto = False
    table.filters.append(lambda receiver, topic, payload: receiver is table.host
                         and topic == table.out_topic(actor))
    legal = table.settings.definition.legal_actions(actor.view, actor.seat)
    mark = len(table.broker.log)
    actor.act(legal[0])
    for _ in range(int(10 * AGAIN)):
        table.advance(0.5)
    sent = table.sent(table.out_topic(actor), "action", since=mark)
    assert len(sent) == pending_module.ACTION_TRIES


def test_an_action_whose_rejection_was_lost_gets_its_rejection_when_sent_again() -> None:
    table = _table(36)
    waiting, wrong = _out_of_turn(table)
    dropped = table.drop("rejected", to=waiting, count=1)
    before = len(table.host.batches)
    waiting.act(wrong)
    table.flush()
    table.pump()
    assert dropped and not table.notices_of(waiting, Rejected)
    table.advance(AGAIN + 0.1)
    table.pump()
    [rejected] = table.notices_of(waiting, Rejected)
    assert rejected.reason, rejected
    assert len(table.host.batches) == before
    # Answered: not sent a third time.
    mark = len(table.broker.log)
    table.advance(3 * AGAIN)
    table.pump()
    assert table.sent(table.out_topic(waiting), "action", since=mark) == []

"""Commit, then reveal: every seat's entropy is fixed before anyone's is known, the host's
bots' by its own commitment; a seat that reveals wrong or not at all is caught, and the
game is not dealt until the seat is taken again and everyone committed afresh."""

from __future__ import annotations

from collections.abc import Callable

from netplay.codec import decode
from netplay.entropy import REVEAL_WAIT, bot_entropy, entropy_commitment
from netplay.host import HostSession
from netplay.identity import Identity
from netplay.playing.notices import Refused, Unseated
from netplay.verify import Verdict

from .harness import Table, derive, forge


def _types(table: Table, suffix: str = "/out") -> list[str]:
    return [decode(p).type for t, p in table.broker.log if t.endswith(suffix)
            and p and decode(p).type in ("join", "entropy")]


def test_joiners_commit_when_they_join_and_reveal_only_once_everyone_has() -> None:
    table = Table(3, bots=("greedy",), seed=8)
    assert table.host.game is not None
    joins = [decode(p) for t, p in table.broker.log if t.endswith("/out")
             and decode(p).type == "join"]
    assert joins and all("entropy" not in f.body and len(f.body["entropy_commit"]) == 32
                         for f in joins)
    assert _types(table) == ["join", "join", "entropy", "entropy"]
    facts = table.host.deal_facts()
    for seat, session in enumerate(table.players):
        assert facts["entropies"][seat] == session.entropy
        assert facts["entropy_commits"][seat] == entropy_commitment(session.entropy)
    assert facts["entropies"][2] == bot_entropy(table.host.secret, 2)
    assert facts["entropy_commits"][2] is None
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players)


def _lobby(players: int = 3) -> Table:
    table = Table(players, seed=9, join=False)
    for index in range(players - 1):
        table.add_player(f"p{index}")
    table.pump()
    return table


def test_a_joiner_that_reveals_another_entropy_is_caught_and_nothing_is_dealt() -> None:
    table = _lobby()
    cheat = table.players[1]
    table.peer(cheat).deaf = True  # it will not answer the round itself: we forge for it
    last = table.add_player("p2")
    table.pump()
    assert table.host.round.phase == "reveal" and table.host.game is None
    table.to_host(forge(cheat.identity, "entropy", {"round": 0, "entropy": derive(1, "x")}),
                  table.out_topic(cheat))
    assert table.host.game is None and table.host.seats[1] is None
    assert [n.seat for n in table.notices_of(last, Unseated)] == [1]
    assert "had not committed to" in table.notices_of(last, Unseated)[0].why
    refusals = [decode(p) for t, p in table.broker.log if t == table.topics.inbox(cheat.peer_id)
                and decode(p).type == "refused"]
    assert refusals and "lost your seat" in refusals[0].body["reason"]
    # Someone else takes the seat: everyone commits afresh, then reveals; now it deals.
    table.remove(cheat)
    table.add_player("p3")
    table.pump()
    assert table.host.game is not None
    assert table.host.round.number == 1
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players)


def test_a_joiner_that_never_reveals_loses_its_seat_after_the_wait() -> None:
    table = _lobby()
    silent = table.players[0]
    table.peer(silent).deaf = True
    table.add_player("p2")
    table.pump()
    for _ in range(int(REVEAL_WAIT) - 1):  # it is there (heartbeats) but never reveals
        table.advance(1)
    assert table.host.game is None and table.host.seats[0] is not None
    table.advance(1)
    table.advance(1)
    assert table.host.game is None and table.host.seats[0] is None
    table.peer(silent).deaf = False
    table.remove(silent)
    table.add_player("again")
    table.pump()
    assert table.host.game is not None


def test_a_player_refuses_to_reveal_for_a_commitment_that_is_not_its_own() -> None:
    table = _lobby(2)
    victim = table.players[0]
    # The host swaps in another commitment for seat 0 (say, to pair it with an entropy of
    # its choosing): the player does not reveal, the host can't deal with the swap.
    info = table.host.seats[0]
    assert info is not None
    info.commit = entropy_commitment(derive(2, "chosen"))
    table.add_player("p1")
    table.pump()
    assert table.host.game is None
    assert not any(decode(p).type == "entropy" for t, p in table.broker.log
                   if t == table.out_topic(victim))
    for _ in range(int(REVEAL_WAIT) + 1):
        table.advance(1)
    assert table.host.seats[0] is None
    assert table.notices_of(victim, Refused)


def test_a_host_that_changes_its_bots_entropy_is_caught_by_every_player() -> None:
    table = Table(3, bots=("greedy",), seed=10, join=False)
    info = table.host.seats[2]
    assert info is not None
    info.entropy = derive(3, "ground")  # chosen after committing to the secret
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    table.run_to_end()
    for session in table.players:
        assert session.verdict is not None and not session.verdict.ok
        assert "host's secret fixes" in session.verdict.detail


def test_a_join_with_its_entropy_in_the_clear_is_dropped() -> None:
    table = _lobby(2)
    old = Identity.from_seed(bytes(range(32)))
    table.to_host(forge(old, "join", {"name": "old", "entropy": bytes(32), "password": None,
                                      "watch": False}), table.out_topic(old))
    assert table.host.seats[1] is None
    assert "entropy in the clear" in table.host.dropped[-1]


def test_a_host_resumed_during_the_reveal_keeps_commitments_and_reveals() -> None:
    from tests.netplay.test_journal import _crash_and_resume, _journaled

    table = Table(3, seed=11, join=False)
    entries = _journaled(table)
    for name in ("ana", "bo"):
        table.add_player(name)
    table.pump()
    cy = table.add_player("cy")
    # The last seat is taken; cy doesn't hear the call to reveal (its table stream is lost).
    table.filters.append(lambda receiver, topic, _: receiver is cy
                         and topic == table.topics.table_stream)
    table.pump()
    old = table.host
    assert old.game is None and old.round.waiting == {2}
    kinds = [e["t"] for e in entries]
    assert kinds.count("reveal") == 2 and kinds.count("seat") == 3
    new = _crash_and_resume(table, entries)
    for seat in range(3):
        a, b = old.seats[seat], new.seats[seat]
        assert a is not None and b is not None
        assert (a.commit, a.entropy) == (b.commit, b.entropy)
    table.filters.clear()
    table.flush()
    table.pump()
    # The resumed host asks again; cy still holds the entropy it committed to: dealt.
    table.tick()
    assert new.game is not None
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players)


def _deal_with(table: Table, change: Callable[[HostSession], None]) -> None:
    """The last seat is taken and every reveal is in; ``change`` is what a cheating host
    does to the seats then, knowing every entropy, just before it deals."""
    host = table.host
    deal = host.start_game

    def cheat() -> None:
        change(host)
        deal()

    host.start_game = cheat  # type: ignore[method-assign]
    table.add_player("p1")
    table.pump()
    assert host.game is not None


def test_a_host_that_swaps_a_players_revealed_entropy_for_its_own_is_caught_by_that_player(
) -> None:
    # With every reveal in, the host could try entropies for one seat (with a matching
    # commitment in the start) until the deal suits it: the seat's player checks its own.
    table = _lobby(2)
    victim = table.players[0]

    def swap(host: HostSession) -> None:
        info = host.seats[0]
        assert info is not None
        info.entropy = derive(4, "ground")
        info.commit = entropy_commitment(info.entropy)

    _deal_with(table, swap)
    table.run_to_end()
    assert victim.verdict is not None and not victim.verdict.ok
    assert "not the entropy this player revealed" in victim.verdict.detail
    # The other player tells too: seat 0's commitment is not the one the reveal round listed.
    other = table.players[1]
    assert other.verdict == Verdict(False, "the host changed a commitment after the reveal "
                                    "(seat 0)")


def test_a_host_that_deals_a_revealed_seat_as_away_is_caught_by_that_player() -> None:
    # A seat whose player is away is dealt with the entropy the host's secret fixes: a host
    # claiming so for a player who revealed could pick, seat by seat, between two deals.
    table = _lobby(2)
    victim = table.players[0]

    def away(host: HostSession) -> None:
        info = host.seats[0]
        assert info is not None
        info.commit, info.entropy = None, bot_entropy(host.secret, 0)

    _deal_with(table, away)
    table.run_to_end()
    assert victim.verdict is not None and not victim.verdict.ok
    assert "not the entropy this player revealed" in victim.verdict.detail

"""Who plays when no person does (``netplay.hosting.turns``): the host's bots at their pace,
their searches handed to the driver (and dropped if the table moved on meanwhile), and
whom the table waits for."""

from __future__ import annotations

from netplay.host import BotTurn, HostSession, HostSettings

from .harness import SHORT, identity_for


def _host(*bots: str, bot_delay: float = 1.0) -> HostSession:
    settings = HostSettings("turns", 2, bots=bots, rules=SHORT, bot_delay=bot_delay)
    return HostSession(identity_for(7, "host"), settings, 0.0, secret=b"\7" * 32)


def _search_turn(host: HostSession) -> BotTurn:
    """Tick until the search bot's decision is handed to the driver."""
    host.offload = True
    for _ in range(500):
        host.tick(host.next_deadline())
        turn = host.take_bot_turn()
        if turn is not None:
            return turn
        assert not host.over
    raise AssertionError("the search bot was never asked")


def test_a_host_bot_plays_after_its_delay_and_says_when_it_will() -> None:
    host = _host("greedy", "greedy")
    turns = host.turns
    assert turns.next_deadline(0.0) is None  # nothing asked it yet
    turns.schedule()
    assert turns.bot_at == 1.0 and turns.next_deadline(0.0) == 1.0
    played = len(host.batches)
    turns.tick(0.5)
    assert len(host.batches) == played
    host.now = 1.0
    turns.tick(1.0)
    assert len(host.batches) == played + 1 and turns.bot_at is not None  # the next one


def test_a_table_of_host_bots_waits_for_no_person_and_has_no_clock() -> None:
    host = _host("greedy", "greedy")
    assert host.turns.waits() == [] and host.turns.standin_due() is None
    assert not host.turns.clock.on
    seat = host.deciders()[0]
    assert host.turns.host_bot(seat) is not None


def test_a_search_bots_decision_goes_to_the_driver_once_and_is_played_when_it_answers() -> None:
    host = _host("hard", "greedy", bot_delay=0.0)
    turn = _search_turn(host)
    assert host.take_bot_turn() is None
    played = len(host.batches)
    assert host.bot_decided(turn, None, host.now)  # no answer: its first legal action
    assert len(host.batches) > played
    assert not host.bot_decided(turn, None, host.now)  # answered once


def test_a_decision_made_for_a_table_that_moved_on_is_dropped() -> None:
    host = _host("hard", "greedy", bot_delay=0.0)
    turn = _search_turn(host)
    turn.at -= 1  # as if a batch went out since it was asked
    assert not host.bot_decided(turn, None, host.now)
    assert host.turns.thinking is None

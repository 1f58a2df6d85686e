"""A peer that lost the game's ``start`` (its facts) asks for it again and plays on.

Seen on RabbitMQ in CI: a spectator in from the lobby printed not one event of the game
and, when the host closed the ended table, exited 3 ("the host closed table 'matrix'
after its game ended, before this peer had seen the end"). A lost ``start`` is the one way
found there: it carries no number, so nothing found it missing, every batch after it
waited for facts that never came, and the resends it asked for were batches again.

A peer that is in, with the game begun (batches come, the host says it has some, or
announces the game playing or over), and without the facts now sends its next ``resync``
with ``start``, and the host answers with the ``start`` on its own channel before the
batches.
"""

from __future__ import annotations

from netplay.player import PlayerSession
from netplay.playing import follower as follower_module
from netplay.playing.notices import Applied

from .harness import SHORT, Table


def _lobby(seed: int, **settings: object) -> tuple[Table, PlayerSession]:
    """A table whose spectator is in before anyone sits down."""
    table = Table(2, seed=seed, rules=SHORT, join=False, **settings)
    watcher = table.add_player("w", watch=True)
    table.pump()
    assert watcher.joined and watcher.facts is None
    return table, watcher


def _seat_everyone(table: Table) -> None:
    for index in range(2):
        table.add_player(f"p{index}")
    table.pump()


def _until_verified(table: Table, *sessions: PlayerSession) -> None:
    """Play to the end, then give the peers a minute (the frames dropped stay dropped)."""
    table.run(lambda: table.host.over)
    for _ in range(120):
        if all(s.verdict is not None for s in sessions):
            break
        table.advance(0.5)


def test_a_spectator_that_lost_the_start_sees_every_batch_and_verifies() -> None:
    table, watcher = _lobby(5)
    dropped = table.drop("start", to=watcher, topic=table.topics.events)
    _seat_everyone(table)
    _until_verified(table, watcher)
    assert [kind for _, kind in dropped] == ["start"], "no start was lost: it proves nothing"
    numbers = [n.n for n in table.notices_of(watcher, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert watcher.verdict is not None and watcher.verdict.ok, watcher.verdict
    table.assert_in_step([watcher])


def test_a_spectator_that_heard_nothing_of_the_game_gets_it_all_after_the_end() -> None:
    # The start and every live batch lost: the host's heartbeats and its announcement of
    # the game (playing, then over) are all the spectator hears of it.
    table, watcher = _lobby(6)
    dropped = table.drop("start", "events", "reveal", to=watcher, topic=table.topics.events)
    _seat_everyone(table)
    table.run(lambda: table.host.over)
    kinds = {kind for _, kind in dropped}
    assert watcher.applied == 0 and {"start", "events"} <= kinds
    _until_verified(table, watcher)
    numbers = [n.n for n in table.notices_of(watcher, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert watcher.verdict is not None and watcher.verdict.ok, watcher.verdict


def test_a_spectator_behind_a_delay_that_lost_the_start_sees_the_whole_game() -> None:
    table, watcher = _lobby(7, spectator_delay=5.0)
    dropped = table.drop("start", to=watcher, topic=table.topics.events)
    _seat_everyone(table)
    _until_verified(table, watcher)
    assert [kind for _, kind in dropped] == ["start"]
    numbers = [n.n for n in table.notices_of(watcher, Applied)]
    assert numbers == list(range(1, len(table.host.batches) + 1))
    assert watcher.verdict is not None and watcher.verdict.ok, watcher.verdict


def test_a_seated_player_that_lost_the_start_plays_on_and_verifies() -> None:
    table = Table(2, seed=8, rules=SHORT, join=False)
    first = table.add_player("p0")
    dropped = table.drop("start", to=first, topic=table.topics.table_stream)
    table.add_player("p1")
    table.pump()
    _until_verified(table, *table.players)
    assert [kind for _, kind in dropped] == ["start"]
    assert first.verdict is not None and first.verdict.ok, first.verdict
    assert table.host.verdicts["seat 0"]["ok"] is True
    table.assert_in_step()


def test_the_start_is_asked_for_again_once_a_second_at_most() -> None:
    # A host that never answers (an older program's): the ask is repeated, paced.
    table, watcher = _lobby(9)
    table.drop("start", to=watcher)  # on events and, asked again, on its own channel
    mark = len(table.broker.log)
    _seat_everyone(table)
    began = table.clock
    table.run(lambda: table.host.over)
    for _ in range(20):
        table.advance(0.5)
    asks = [f.body for f in table.sent(table.out_topic(watcher), "resync", since=mark)]
    assert asks and all(a["start"] is True for a in asks), asks
    assert len(asks) <= (table.clock - began) / follower_module.RESYNC_EVERY + 1
    assert watcher.view is None and not table.notices_of(watcher, Applied)


def test_nobody_asks_for_a_start_that_came_delay_or_not() -> None:
    for seed, delay in ((10, 0.0), (11, 5.0)):
        table, watcher = _lobby(seed, spectator_delay=delay)
        mark = len(table.broker.log)
        _seat_everyone(table)
        _until_verified(table, watcher, *table.players)
        for session in table.players:
            asks = table.sent(table.out_topic(session), "resync", since=mark)
            assert not [a for a in asks if a.body.get("start")], (delay, session.name)
        assert watcher.verdict is not None and watcher.verdict.ok

"""A player that missed the host's reveal after the last batch still verifies the deal.

Seen on a three-node NATS cluster: the broker dropped the host's connection just as the
game ended, the reveal was lost with it, and a bot that had applied every batch waited
for the reveal until it gave up. Its heartbeats (at the last batch, no verdict sent) now
make the host send the reveal again.
"""

from __future__ import annotations

from netplay.hosting import presence as host_module

from .harness import SHORT, Table, observe


def test_a_lost_reveal_is_sent_again_and_the_player_verifies() -> None:
    table = Table(2, seed=5, rules=SHORT)
    player = table.at_seat(0)
    dropped = table.drop("reveal", to=player, count=2)
    table.run(lambda: table.host.over)
    table.run(lambda: player.verdict is not None, max_seconds=60.0)
    assert dropped, "the test dropped no reveal: it proves nothing"
    assert player.verdict is not None and player.verdict.ok, player.verdict
    assert table.host.verdicts["seat 0"]["ok"] is True
    assert table.at_seat(1).verdict is not None and table.at_seat(1).verdict.ok


def test_a_verified_player_is_not_sent_the_reveal_again() -> None:
    table = Table(2, seed=6, rules=SHORT)
    table.run_to_end()
    assert sorted(table.host.verdicts) == ["seat 0", "seat 1"]
    mark = len(table.broker.log)
    table.advance(10.0)  # ten seconds of heartbeats after the game
    table.pump()
    again = [topic for topic, payload in table.broker.log[mark:]
             if observe(payload).type == "reveal"]
    assert again == []


def test_a_lost_verdict_is_said_again_and_the_host_has_it() -> None:
    # The reveal came, the player verified, and its "verified" was lost on the way: the
    # host, with no verdict from it, sends the reveal again at its next beat; the player
    # says its verdict again.
    table = Table(2, seed=7, rules=SHORT)
    player = table.at_seat(0)
    dropped = table.drop("verified", to=table.host, topic=table.out_topic(player), count=1)
    table.run(lambda: table.host.over)
    table.run(lambda: "seat 0" in table.host.verdicts, max_seconds=60.0)
    assert dropped, "no verdict was lost: the test proves nothing"
    assert table.host.verdicts["seat 0"]["ok"] is True
    assert player.verdict is not None and player.verdict.ok


def test_a_host_may_close_only_once_the_spectator_watching_has_its_verdict() -> None:
    # The spectator's reveals are lost: the host's end is not settled (it would close, and
    # the spectator never see the end) until a reveal sent again brought its verdict.
    table = Table(2, seed=8, rules=SHORT, join=False)
    watcher = table.add_player("w", watch=True)
    table.pump()
    dropped = table.drop("reveal", to=watcher)
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    table.run(lambda: table.host.over and table.host.all_seats_verified()
              and table.host.race is None)
    assert dropped, "no reveal was lost: the test proves nothing"
    assert watcher.verdict is None
    assert not table.host.end_settled(table.clock)
    table.filters.clear()
    table.run(lambda: "spectator w" in table.host.verdicts, max_seconds=60.0)
    assert table.host.end_settled(table.clock)
    assert watcher.verdict is not None and watcher.verdict.ok


def test_a_spectator_gone_silent_is_not_waited_for() -> None:
    table = Table(2, seed=9, rules=SHORT, join=False)
    watcher = table.add_player("w", watch=True)
    table.pump()
    table.peers[0].deaf = table.peers[0].paused = True  # its process froze
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    table.run(lambda: table.host.over and table.host.all_seats_verified()
              and table.host.race is None)
    table.advance(host_module.SPECTATOR_HEARD + 0.1)
    assert watcher.verdict is None and table.host.end_settled(table.clock)

"""Classic Sequence over the same netplay: the announcement names the game, and hidden
hands, signing, the fair deal, verification, resume and rejoin work unchanged."""

from __future__ import annotations

import pytest

from engine.classic.config import SequenceConfig
from engine.classic.state import SequenceState
from engine.games import SEQUENCE
from engine.state import HOST
from netplay.host import HostSession, HostSettings
from netplay.identity import Identity
from netplay.playing.notices import Joined, Refused, Resynced, Verified
from netplay.record import verify_record
from tests.netplay.harness import Table
from tests.netplay.test_journal import _crash_and_resume, _journaled


def sequence_table(players: int = 2, **kwargs: object) -> Table:
    return Table(players, game="sequence", rules=SequenceConfig(), **kwargs)  # type: ignore[arg-type]


def test_the_announcement_names_the_game_and_players_follow_it() -> None:
    table = sequence_table(seed=31)
    announce = table.players[0].announce
    assert announce is not None and announce["variant"] == "sequence"
    for player in table.players:
        assert player.definition is SEQUENCE
        assert isinstance(player.view, SequenceState)


@pytest.mark.parametrize(("players", "bots"), [(2, ()), (3, ("medium",)), (4, ("easy", "medium"))])
def test_a_networked_classic_game_plays_to_the_end_and_every_peer_verifies(
    players: int, bots: tuple[str, ...]
) -> None:
    table = sequence_table(players, bots=bots, seed=32 + players)
    watcher = table.add_player("fan", watch=True)
    table.pump()
    table.run_to_end()
    assert table.host.over
    for session in [*table.players]:
        verdicts = table.notices_of(session, Verified)
        assert verdicts and verdicts[-1].verdict.ok, verdicts
    table.assert_in_step()
    assert watcher.view is not None
    assert set(watcher.view.hands[0]) == {-1}  # a spectator sees no hand
    assert verify_record(table.host.record()).ok
    assert table.host.record()["game"] == "sequence"


def test_hands_stay_hidden_from_other_players_on_the_wire() -> None:
    table = sequence_table(seed=40)
    table.run(until=lambda: len(table.host.batches) >= 6)
    me, other = table.at_seat(0), table.at_seat(1)
    assert me.view is not None and other.view is not None
    assert me.view.hands[0] == table.state.hands[0]
    assert set(me.view.hands[1]) == {-1} and set(other.view.hands[0]) == {-1}


def test_a_classic_host_resumes_from_its_journal_and_the_game_verifies() -> None:
    table = sequence_table(3, bots=("medium",), seed=41)
    entries = _journaled(table)
    table.run(until=lambda: len(table.host.batches) >= 8)
    old = table.host
    new = _crash_and_resume(table, entries)
    assert new.settings.game == "sequence" and isinstance(new.settings.rules, SequenceConfig)
    assert [b.to_body() for b in new.batches] == [b.to_body() for b in old.batches]
    table.flush()
    table.pump()
    table.run_to_end()
    for player in table.players:
        assert table.notices_of(player, Verified)[-1].verdict.ok
    table.assert_in_step()


def test_a_player_back_after_the_start_gets_seat_and_hand_back_by_snapshot() -> None:
    table = sequence_table(3, seed=42)
    table.run(until=lambda: len(table.host.batches) >= 5)
    old = table.at_seat(1)
    table.remove(old)
    back = table.add_player("p1 back", identity=old.identity)
    table.pump()
    assert back.seat == 1
    kinds = [type(n) for n in table.notices(back) if isinstance(n, Joined | Resynced)]
    assert kinds == [Joined, Resynced]
    assert back.view is not None and back.view.hands[1] == table.state.hands[1]
    table.run_to_end()
    assert table.notices_of(back, Verified)[-1].verdict.ok


def test_host_settings_take_the_games_own_rules_and_player_counts() -> None:
    settings = HostSettings("t", 4, game="sequence")
    assert isinstance(settings.rules, SequenceConfig)
    assert HostSettings.from_wire(settings.to_wire()) == settings
    with pytest.raises(ValueError, match="2, 3, 4, 6, 8, 9, 10 or 12 players, not 5"):
        HostSettings("t", 5, game="sequence")
    with pytest.raises(ValueError, match="can't form 3 teams"):
        HostSettings("t", 4, game="sequence", rules=SequenceConfig(teams=3))
    with pytest.raises(ValueError, match="unknown game"):
        HostSettings("t", 2, game="chess")
    assert HostSettings("t", 12, game="sequence").players == 12
    host = HostSession(Identity.generate(), HostSettings("t", 2, game="sequence",
                                                         bots=("easy", "medium")), 0.0)
    assert host.game is not None and host.definition is SEQUENCE
    assert host.definition.view_for(host.game.state, HOST).teams == 2


def test_a_peer_that_plays_only_stacks_is_told_and_does_not_take_a_seat() -> None:
    table = sequence_table(3, seed=43, join=False)
    picky = table.add_player("stacks-only", start=False)
    picky.games = frozenset({"stacks"})
    picky.start(table.clock)
    table.pump()
    refused = table.notices_of(picky, Refused)
    assert [n.reason for n in refused] == [
        "the table plays Sequence, which this program can't show yet"]
    assert not picky.joined and all(info is None for info in table.host.seats)
    table.add_player("p0")
    table.pump()
    assert table.host.seats[0] is not None  # the seat went to the next player

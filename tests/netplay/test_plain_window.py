"""A seat that plays in plain mode (read by a screen reader) and the table's Block window:
the join says ``plain``, the host keeps it per seat (across a rejoin and a resume) and
announces it; before the deal the host may lengthen the window (by hand, or by its
``plain_window`` when such a seat joins), journaled, announced, and used by the races."""

from __future__ import annotations

import math
from typing import Any

import pytest

from netplay.host import HostSession
from netplay.identity import Identity

from .harness import SHORT, Table, forge, identity_for

COMMIT = b"\x07" * 32


def _join(table: Table, identity: Identity, name: str, **extra: Any) -> None:
    """A join as a peer sends it (``extra``: the fields a newer or a broken peer adds)."""
    body = {"name": name, "entropy_commit": COMMIT, "watch": False, "at": None,
            "password": None, **extra}
    table.inject(table.out_topic(identity), forge(identity, "join", body))


def _announced(table: Table) -> dict[str, Any]:
    return table.sent(table.topics.announce, "announce")[-1].body


def test_a_plain_join_is_announced_for_its_seat_and_kept_across_a_rejoin_and_a_resume() -> None:
    table = Table(3, join=False, rules=SHORT)
    table.add_player("p0")
    table.pump()
    ana = identity_for(1, "ana")
    _join(table, ana, "ana", plain=True)
    seats = _announced(table)["seats"]
    assert seats[1]["name"] == "ana" and seats[1]["plain"] is True
    assert "plain" not in seats[0]  # an older peer's seat, as before
    table.advance(1.0)
    _join(table, ana, "ana")  # back, from a client that does not say it
    assert table.host.seats[1] is not None and table.host.seats[1].plain
    assert _announced(table)["seats"][1]["plain"] is True
    back = HostSession.resume(table.host.journal_to_write(), 0.0)
    resumed = back.seats[1]
    assert resumed is not None and resumed.plain
    assert back.seats[0] is not None and not back.seats[0].plain


def test_a_seat_that_says_plain_only_at_its_rejoin_is_plain_after_a_resume() -> None:
    table = Table(3, join=False, rules=SHORT)
    ana = identity_for(1, "ana")
    _join(table, ana, "ana")
    assert "plain" not in _announced(table)["seats"][0]
    table.advance(1.0)
    _join(table, ana, "ana", plain=True)
    assert _announced(table)["seats"][0]["plain"] is True
    entries = table.host.journal_to_write()
    assert {"t": "plain", "seat": 0} in entries
    resumed = HostSession.resume(entries, 0.0).seats[0]
    assert resumed is not None and resumed.plain


def test_a_join_whose_plain_is_no_boolean_is_dropped_in_words() -> None:
    table = Table(2, join=False, rules=SHORT)
    _join(table, identity_for(1, "ana"), "ana", plain="yes")
    assert table.host.seats[0] is None
    assert any("plain" in reason for reason in table.host.dropped)


def test_a_longer_window_before_the_deal_is_announced_journaled_and_raced() -> None:
    table = Table(2, join=False, rules=SHORT, block_window=3.0)
    table.host.set_block_window(12)
    table.flush()
    assert _announced(table)["block_window"] == 12.0
    for name in ("p0", "p1"):
        table.add_player(name)
    table.run(until=lambda: table.host.race is not None)
    race = table.host.race
    assert race is not None and race.deadline - race.opened == 12.0
    entries = table.host.journal_to_write()
    assert {"t": "window", "seconds": 12.0} in entries
    back = HostSession.resume(entries, 0.0)
    assert back.settings.block_window == 12.0 and back.block_race.window == 12.0
    reopened = back.race
    assert reopened is not None and reopened.deadline - reopened.opened == 12.0
    assert _announced_by(back)["block_window"] == 12.0


def _announced_by(host: HostSession) -> dict[str, Any]:
    from .harness import observe

    frames = [observe(out.payload) for out in host.data_to_send()
              if out.topic == host.topics.announce]
    return frames[-1].body


def test_the_window_is_refused_in_words_after_the_deal_and_outside_its_range() -> None:
    table = Table(2, join=False, rules=SHORT)
    for seconds in (0, -1, 60.5, math.nan, math.inf):
        with pytest.raises(ValueError, match="more than 0 and at most 60 seconds"):
            table.host.set_block_window(seconds)
    table.host.set_block_window(60)
    for name in ("p0", "p1"):
        table.add_player(name)
    table.pump()
    assert table.host.state.started
    with pytest.raises(ValueError, match="the game has begun"):
        table.host.set_block_window(10)
    assert table.host.settings.block_window == 60.0
    windows = [e for e in table.host.journal_to_write() if e["t"] == "window"]
    assert windows == [{"t": "window", "seconds": 60.0}]


def test_a_window_journaled_after_the_start_does_not_replay() -> None:
    from netplay.journal import JournalError

    table = Table(2, rules=SHORT)
    entries = [*table.host.journal_to_write(), {"t": "window", "seconds": 9.0}]
    with pytest.raises(JournalError, match="after the deal"):
        HostSession.resume(entries, 0.0)


def test_the_plain_window_setting_lengthens_the_window_when_a_plain_seat_joins() -> None:
    table = Table(3, join=False, rules=SHORT, plain_window=10.0)
    table.add_player("p0")
    table.pump()
    assert table.host.settings.block_window == 3.0  # nobody plays plain yet
    _join(table, identity_for(1, "ana"), "ana", plain=True)
    assert table.host.settings.block_window == 10.0
    assert _announced(table)["block_window"] == 10.0
    assert table.host.block_race.window == 10.0


def test_the_plain_window_never_shortens_the_window() -> None:
    table = Table(2, join=False, rules=SHORT, block_window=20.0, plain_window=10.0)
    _join(table, identity_for(1, "ana"), "ana", plain=True)
    assert table.host.settings.block_window == 20.0
    assert not [e for e in table.host.journal_to_write() if e["t"] == "window"]


def test_a_player_session_in_plain_mode_says_so_in_its_join_and_a_spectator_does_not() -> None:
    table = Table(2, join=False, rules=SHORT)
    ana = table.add_player("ana", plain=True)
    eve = table.add_player("eve", watch=True, plain=True)
    bob = table.add_player("bob")
    table.pump()
    joins = {f.sender: f.body for f in table.sent(table.out_topic(ana), "join")}
    joins.update({f.sender: f.body for s in (eve, bob)
                  for f in table.sent(table.out_topic(s), "join")})
    assert joins[ana.identity.key]["plain"] is True
    assert "plain" not in joins[eve.identity.key] and "plain" not in joins[bob.identity.key]
    seats = table.host.seats
    assert seats[0] is not None and seats[0].plain
    assert seats[1] is not None and not seats[1].plain
    assert table.host.state.started  # a plain seat is dealt in like any other

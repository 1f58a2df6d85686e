"""Joining (``netplay.hosting.lobby``): a player takes a free seat and is welcomed, a
spectator comes to watch, and every refusal is said in words."""

from __future__ import annotations

from typing import Any

import pytest

from netplay.codec import decode
from netplay.errors import FrameError
from netplay.host import HostSession, HostSettings
from netplay.identity import peer_id

from .harness import SHORT, identity_for, observe

COMMIT = b"\x07" * 32


def _host(players: int = 2, **settings: Any) -> HostSession:
    host = HostSession(identity_for(13, "host"),
                       HostSettings("lobby", players, rules=SHORT, **settings), 0.0)
    host.data_to_send()
    return host


def _join(host: HostSession, name: str, *, watch: bool = False) -> tuple[bytes, list[Any]]:
    key = identity_for(13, name).key
    host.lobby.join(key, {"name": name, "entropy_commit": COMMIT, "watch": watch,
                          "at": None, "password": None})
    inbox = host.topics.inbox(peer_id(key))
    return key, [decode(o.payload) for o in host.data_to_send() if o.topic == inbox]


def test_a_player_takes_the_first_free_seat_and_is_welcomed_to_it() -> None:
    host = _host()
    key, frames = _join(host, "ana")
    assert host.seat_of(key) == 0 and host.seats[0] is not None
    assert host.seats[0].commit == COMMIT
    assert [f.type for f in frames] == ["welcome"]
    assert frames[0].body["seat"] == 0 and frames[0].body["status"] == "lobby"
    assert any(e["t"] == "seat" and e["name"] == "ana" for e in host.journal_to_write())


def test_a_spectator_is_welcomed_without_a_seat() -> None:
    host = _host()
    key, frames = _join(host, "eve", watch=True)
    assert host.spectators == {key: "eve"} and host.seat_of(key) is None
    assert frames[0].type == "welcome" and frames[0].body["seat"] is None


def test_a_seated_profile_may_not_watch_with_the_same_key() -> None:
    host = _host()
    _join(host, "ana")
    _, frames = _join(host, "ana", watch=True)
    assert frames[0].type == "refused" and "with another profile" in frames[0].body["reason"]


def test_a_full_table_and_a_started_game_refuse_in_words() -> None:
    host = _host(players=2, bots=("greedy",))
    _join(host, "ana")  # the last seat: the deal's rounds begin
    _, frames = _join(host, "bob")
    assert frames[0].body["reason"] == "the table is full"
    full = _host(players=2, bots=("greedy", "greedy"))  # dealt at once
    _, frames = _join(full, "bob")
    assert frames[0].body["reason"] == "the game has already started"


def test_a_wrong_password_is_refused() -> None:
    host = _host(password="sesame")
    key, frames = _join(host, "ana")
    assert host.seat_of(key) is None
    assert frames[0].type == "refused" and frames[0].body["reason"] == "wrong table password"


def test_an_older_client_sending_its_entropy_in_the_clear_is_told_to_upgrade() -> None:
    host = _host()
    key = identity_for(13, "old").key
    with pytest.raises(FrameError, match="entropy in the clear"):
        host.lobby.join(key, {"name": "old", "entropy": b"\0" * 32, "watch": False})
    (out,) = [o for o in host.data_to_send() if o.topic == host.topics.inbox(peer_id(key))]
    assert "newer sequence-stacks" in observe(out.payload).body["reason"]


def test_the_host_bots_take_the_last_seats() -> None:
    host = _host(players=3, bots=("greedy",))
    assert host.seats[0] is None and host.seats[1] is None
    bot = host.seats[2]
    assert bot is not None and bot.is_bot and bot.name.startswith("Bot 3")

"""The player's smaller collaborators, each through its own interface: the chat filter
(names and budgets), the own presence (a nonce per connection), the host's wait list
(counted down, stale after a while or once the view moved past it) and the race result
read from an untrusted body."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import RulesConfig
from netplay.clock import Wait
from netplay.codec import decode
from netplay.errors import FrameError
from netplay.identity import Identity
from netplay.playing.chat import CHAT_OTHERS, ChatFilter
from netplay.playing.notices import ChatLine, RaceResult
from netplay.playing.presence import OwnPresence
from netplay.playing.waits import STALE, TableWaits
from netplay.verify import GameFacts
from netplay.wire import Sender

from .playing_game import Peer, follower_for, public_game


def _chat(speaker: Identity, name: str, text: str) -> Any:
    return decode(Sender(speaker, "t1").frame("chat", {"text": text, "name": name}))


def test_a_seated_player_speaks_under_its_seats_name_and_others_are_marked() -> None:
    seated, stranger, host = Identity.generate(), Identity.generate(), Identity.generate()
    facts = GameFacts("t1", 2, RulesConfig(), (seated.key, None), b"c" * 32,
                      (b"e" * 32, b"f" * 32), None, (None, None))
    chat = ChatFilter()
    line = chat.line(_chat(seated, "the host", "hi"), 0.0, facts=facts,
                     names=("Ann", "Bot"), announce=None, host_key=host.key)
    assert line == ChatLine("Ann", "hi")
    assert chat.line(_chat(stranger, "Eve", "hey"), 0.0, facts=facts, names=("Ann", "Bot"),
                     announce=None, host_key=host.key) == ChatLine("Eve (watching)", "hey")
    assert chat.line(_chat(host, "Hal", "yo"), 0.0, facts=None, names=(),
                     announce=None, host_key=host.key) == ChatLine("Hal (host)", "yo")


def test_strangers_share_one_budget() -> None:
    chat = ChatFilter()
    shown = [chat.line(_chat(Identity.generate(), "x", "spam"), 0.0, facts=None, names=(),
                       announce=None, host_key=None) for _ in range(int(CHAT_OTHERS.burst) + 5)]
    assert sum(line is not None for line in shown) == CHAT_OTHERS.burst


def test_each_connection_after_the_first_has_a_nonce_of_its_own() -> None:
    presence = OwnPresence(Sender(Identity.generate(), "t1"), "presence/me")
    first = presence.last_will()
    assert decode(first.payload).body == {"online": False, "conn": presence.conn}
    conn = presence.conn
    presence.connected()
    presence.connected()  # said once a connection
    assert len(presence.sender.drain()) == 1
    presence.last_will()
    assert presence.conn != conn
    presence.connected()
    assert decode(presence.sender.drain()[0].payload).body == {"online": True,
                                                               "conn": presence.conn}


def test_the_wait_list_counts_down_and_goes_stale_or_past() -> None:
    follower = follower_for(Peer())
    follower.take_facts(public_game().start)
    view = follower.view
    waits = TableWaits(0.0)
    waits.heard([Wait(1, left=20.0).to_wire(), "junk", [7, None, None, 1.0]], players=2,
                at=3, now=10.0)
    assert waits.said == (10.0, [Wait(1, left=20.0)]) and waits.said_at == 3
    assert waits.now_waiting(11.5, view, 3) == [Wait(1, left=20.0).later(1.5)]
    assert waits.now_waiting(10.0 + STALE + 0.1, view, 3) == []  # not said again: stale
    assert waits.now_waiting(11.0, view, 4) == []  # the view moved past it
    assert waits.now_waiting(11.0, None, 3) == []  # no game


def test_a_race_result_keeps_only_well_formed_presses() -> None:
    result = RaceResult.from_body({"pile": 2, "winner": 1, "presses": [
        [1, "Bob", 0.25, "block"], ["bad"], [0, "Ann" * 9, 1, "late"]]})
    assert result == RaceResult(2, 1, ((1, "Bob", 0.25, "block"), (0, "AnnAnnAn", 1.0, "late")))
    with pytest.raises(FrameError):
        RaceResult.from_body({"presses": []})

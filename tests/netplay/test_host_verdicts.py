"""The peers' verdicts on the deal (``netplay.hosting.verdicts``): kept by peer, the last
word of each, named by label for the record."""

from __future__ import annotations

from netplay.hosting.seats import SeatRef, SpectatorRef
from netplay.hosting.verdicts import Verdict, Verdicts


def test_a_verdict_is_news_only_when_it_differs_from_what_the_peer_said() -> None:
    verdicts = Verdicts()
    assert verdicts.take(SeatRef(0), Verdict(True, "ok"))
    assert not verdicts.take(SeatRef(0), Verdict(True, "ok"))
    assert verdicts.take(SeatRef(0), Verdict(False, "batch 3 differs"))
    assert verdicts.get(SeatRef(0)) == Verdict(False, "batch 3 differs") and len(verdicts) == 1


def test_the_record_names_verdicts_by_label_in_the_order_they_first_came() -> None:
    verdicts = Verdicts()
    verdicts.take(SpectatorRef("eve"), Verdict(True, ""))
    verdicts.take(SeatRef(1), Verdict(True, ""))
    verdicts.take(SpectatorRef("eve"), Verdict(False, "late"))
    assert verdicts.by_label() == {"spectator eve": {"ok": False, "detail": "late"},
                                   "seat 1": {"ok": True, "detail": ""}}


def test_a_journaled_verdict_comes_back_under_its_peer() -> None:
    verdicts = Verdicts()
    verdicts.restore("seat 2", True, "fine")
    verdicts.restore("spectator two words", False, "no")
    assert SeatRef(2) in verdicts and verdicts.spectator_said("two words")
    assert verdicts.all_seated([2]) and not verdicts.all_seated([2, 0])


def test_only_spectators_heard_lately_that_have_not_spoken_are_waited_for() -> None:
    verdicts = Verdicts()
    spectators = {b"e": "eve", b"w": "wes", b"z": "zoe"}
    heard = {b"e": 100.0, b"w": 95.0, b"z": 99.0, b"gone": 100.0}
    verdicts.take(SpectatorRef("zoe"), Verdict(True, ""))
    # wes was heard too long ago, zoe has spoken, "gone" is no spectator: eve alone.
    assert verdicts.spectators_silent(spectators, heard, 4.0, 100.5) == 1
    assert verdicts.spectators_silent(spectators, heard, 10.0, 100.5) == 2

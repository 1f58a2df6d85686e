"""A resumed host's table (``netplay.hosting.restore``) and the record
(``netplay.hosting.record``): a journal replays through the engine to the hashes it
recorded, or is refused in words; the record carries the secret only once the game is
over."""

from __future__ import annotations

import pytest

from netplay.host import HostSession, HostSettings
from netplay.hosting.restore import read_table
from netplay.hosting.state import Stage
from netplay.journal import Entry, JournalError

from .harness import SHORT, identity_for


def _played(until_over: bool = True) -> tuple[HostSession, list[Entry]]:
    settings = HostSettings("resume", 2, bots=("greedy", "greedy"), rules=SHORT,
                            block_window=0.5)
    host = HostSession(identity_for(17, "host"), settings, 0.0, secret=b"\x11" * 32)
    entries = host.journal_to_write()
    now = 0.0
    while (not host.over if until_over else len(host.batches) < 8) and now < 5000:
        now = max(now, host.next_deadline())
        host.tick(now)
        entries += host.journal_to_write()
    return host, entries


def test_a_finished_game_resumes_to_the_same_batches_races_and_end() -> None:
    host, entries = _played()
    back = HostSession.resume(entries, 0.0)
    assert [b.hash for b in back.batches] == [b.hash for b in host.batches]
    assert back.state.stage is Stage.PUBLIC_OVER and back.resumed
    assert [r.to_body() for r in back.races] == [r.to_body() for r in host.races]
    assert back.record()["batches"] == host.record()["batches"]
    assert back.record()["secret"] == host.secret


def test_a_game_under_way_resumes_playing_and_its_record_keeps_the_secret() -> None:
    host, entries = _played(until_over=False)
    back = HostSession.resume(entries, 0.0)
    assert back.state.started and not back.state.over
    assert back.record()["secret"] is None and back.record()["commit"] == host.commit


def test_a_journal_whose_batch_replays_to_another_hash_is_refused() -> None:
    _, entries = _played(until_over=False)
    batch = next(e for e in entries if e["t"] == "batch" and e["n"] == 3)
    batch["hash"] = "0" * len(batch["hash"])
    with pytest.raises(JournalError, match="batch 3 replays to another hash"):
        HostSession.resume(entries, 0.0)


def test_a_journal_without_its_table_or_with_a_bad_secret_is_refused_in_words() -> None:
    _, entries = _played(until_over=False)
    with pytest.raises(JournalError, match="holds no table"):
        read_table([e for e in entries if e["t"] != "table"])
    head = dict(next(e for e in entries if e["t"] == "table"), secret=b"short")
    with pytest.raises(JournalError, match="the secret is not 32 bytes"):
        read_table([head])


def test_a_journaled_verdict_comes_back_by_its_label() -> None:
    _host, entries = _played()
    entries.append({"t": "verdict", "who": "spectator eve", "ok": True, "detail": "fine"})
    back = HostSession.resume(entries, 0.0)
    assert back.verdicts == {"spectator eve": {"ok": True, "detail": "fine"}}
    entries.append({"t": "verdict", "who": "nobody", "ok": True, "detail": ""})
    with pytest.raises(JournalError, match="does not replay"):
        HostSession.resume(entries, 0.0)

"""The host's journal: a crashed host comes back from it, same table, same numbering."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from netplay.host import HostSession
from netplay.journal import (
    Entry,
    JournalError,
    JournalFile,
    encode_entry,
    list_tables,
    mark,
    read_entries,
)
from netplay.playing.notices import Applied, Joined, Verified
from netplay.record import from_json, to_json, write_new_record
from tests.netplay.harness import SHORT, Table


def _journaled(table: Table) -> list[Entry]:
    """Route the host's journal entries into a list, as a driver would write them."""
    entries: list[Entry] = []
    flush = table.flush

    def journal_then_flush() -> None:
        entries.extend(table.host.journal_to_write())
        flush()

    table.flush = journal_then_flush  # type: ignore[method-assign]
    return entries


def _through_disk(entries: list[Entry]) -> list[Entry]:
    return [from_json(json.loads(encode_entry(e))) for e in entries]


def _crash_and_resume(table: Table, entries: list[Entry]) -> HostSession:
    """The host process dies; a new one starts from the journal on the same broker."""
    old = table.host
    table.broker.unsubscribe_all(old)
    table.queue.clear()
    new = HostSession.resume(_through_disk(entries), table.clock)
    table.host = new
    for pattern in (table.topics.all_outboxes, table.topics.all_presence):
        table.broker.subscribe(new, pattern, table._deliverer(new))
    return new


def test_a_resumed_host_has_the_same_table_and_every_batch_replays_to_its_hash() -> None:
    table = Table(3, bots=("greedy",), rules=SHORT, seed=4)
    entries = _journaled(table)
    table.run(until=lambda: len(table.host.batches) >= 12)
    old = table.host
    new = _crash_and_resume(table, entries)
    assert new.identity.key == old.identity.key
    assert new.commit == old.commit and new.secret == old.secret
    assert [b.to_body() for b in new.batches] == [b.to_body() for b in old.batches]
    assert [s.key if s else None for s in new.seats] == [s.key if s else None for s in old.seats]
    assert new.boot != old.boot


def test_players_that_kept_running_join_again_and_the_game_verifies() -> None:
    table = Table(3, bots=("greedy",), rules=SHORT, seed=5)
    entries = _journaled(table)
    watcher = table.add_player("watcher", watch=True)
    table.run(until=lambda: len(table.host.batches) >= 10)
    table.peer(watcher).deaf = True  # its connection hangs: it misses the last batches
    table.run(until=lambda: len(table.host.batches) >= 14)
    table.peer(watcher).deaf = False
    before = len(table.host.batches)
    joins = {p.name: len(table.notices_of(p, Joined)) for p in table.players}
    _crash_and_resume(table, entries)
    table.flush()
    table.pump()
    table.run_to_end()
    for player in table.players:
        assert len(table.notices_of(player, Joined)) == joins[player.name] + 1
        if player.watch:
            continue
        verdicts = table.notices_of(player, Verified)
        assert verdicts and verdicts[-1].verdict.ok, verdicts
    # The spectator's history has no hole and no repeat: the resumed host sent it the
    # batches after the last one it had, not a snapshot.
    # (It came after the deal: it starts from its snapshot of batch 1.)
    seen = [n.n for n in table.notices_of(watcher, Applied)]
    assert seen[0] <= 2 and seen == list(range(seen[0], len(table.host.batches) + 1))
    # Numbering went on from where the first host stopped.
    assert len(table.host.batches) > before
    assert [b.n for b in table.host.batches] == list(range(1, len(table.host.batches) + 1))
    table.assert_in_step()


def test_a_host_resumed_in_the_lobby_keeps_its_seated_players() -> None:
    table = Table(3, seed=6, join=False)
    entries = _journaled(table)
    ana = table.add_player("ana")
    table.pump()
    assert table.host.seats[0] is not None
    _crash_and_resume(table, entries)
    assert table.host.seats[0] is not None and table.host.seats[0].key == ana.identity.key
    assert table.host.game is None
    table.flush()
    table.pump()
    table.add_player("bo")
    table.add_player("cy")
    table.pump()
    assert table.host.game is not None
    assert [s.name if s else None for s in table.host.seats] == ["ana", "bo", "cy"]


def test_an_old_action_sealed_again_is_refused_by_the_resumed_host() -> None:
    table = Table(2, rules=SHORT, seed=7)
    entries = _journaled(table)
    table.run(until=lambda: len(table.host.batches) >= 6)
    proof = next(b.proof for b in reversed(table.host.batches) if b.proof is not None)
    assert proof is not None
    new = _crash_and_resume(table, entries)
    from netplay.codec import decode
    from netplay.host import ACTION_ORDER

    with pytest.raises(Exception, match="replayed"):
        new.guard.check(decode(proof), ACTION_ORDER)


def test_a_journal_that_does_not_replay_is_refused_in_words() -> None:
    table = Table(2, rules=SHORT, seed=8)
    entries = _journaled(table)
    table.run(until=lambda: len(table.host.batches) >= 5)
    tampered = _through_disk(entries)
    last = next(e for e in reversed(tampered) if e["t"] == "batch")
    last["hash"] = "0" * 32
    with pytest.raises(JournalError, match="another hash"):
        HostSession.resume(tampered, 0.0)
    with pytest.raises(JournalError, match="no table"):
        HostSession.resume([{"t": "journal"}], 0.0)


# -- the file -----------------------------------------------------------------------------------


def test_an_entry_is_written_as_the_same_json_line_as_ever() -> None:
    # Resume reads journals written by older hosts, and older hosts' readers read new
    # ones: a line is ``json.dumps(to_json(entry))`` exactly (bytes as {"hex": ...},
    # tuples as lists, no spaces, ASCII only).
    entry: Entry = {"t": "batch", "n": 3, "frame": b"\x00\xffab", "at": 12.5,
                    "seats": (1, None, True), "nested": {"keys": [b"", {"k": b"\x01"}]},
                    "name": "Zoë 🂡", 7: -0.0}
    line = encode_entry(entry)
    assert line == (json.dumps(to_json(entry), separators=(",", ":")) + "\n").encode()
    assert line == (b'{"t":"batch","n":3,"frame":{"hex":"00ff6162"},"at":12.5,'
                    b'"seats":[1,null,true],"nested":{"keys":[{"hex":""},{"k":{"hex":"01"}}]},'
                    b'"name":"Zo\\u00eb \\ud83c\\udca1","7":-0.0}\n')
    with pytest.raises(TypeError):
        encode_entry({"t": "x", "bad": bytearray(b"1")})


def test_a_torn_last_entry_is_dropped_with_a_log_line_and_cut_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    journal = JournalFile.create("t1", folder=tmp_path, profile="ana")
    journal.append([{"t": "seat", "seat": 0, "name": "a", "key": None, "entropy": b"x"}])
    journal.close()
    with journal.path.open("ab") as handle:
        handle.write(b'{"t":"batch","n":1,"act')  # the crash came mid-write
    with caplog.at_level(logging.WARNING):
        reopened, entries = JournalFile.reopen(journal.path)
    assert [e["t"] for e in entries] == ["journal", "seat"]
    assert "torn" in caplog.text
    reopened.append([{"t": "finished"}])
    reopened.close()
    assert [e["t"] for e in read_entries(journal.path)[0]] == ["journal", "seat", "finished"]


def test_damage_before_the_last_entry_is_an_error_not_a_guess(tmp_path: Path) -> None:
    journal = JournalFile.create("t1", folder=tmp_path)
    journal.close()
    with journal.path.open("ab") as handle:
        handle.write(b"garbage\n" + encode_entry({"t": "finished"}))
    with pytest.raises(JournalError, match="damaged at line 2"):
        read_entries(journal.path)


def test_journals_are_never_overwritten_and_one_host_holds_one(tmp_path: Path) -> None:
    first = JournalFile.create("t1", folder=tmp_path)
    second = JournalFile.create("t1", folder=tmp_path)
    assert first.path != second.path and first.path.exists() and second.path.exists()
    with pytest.raises(JournalError, match="in use by another running host"):
        JournalFile.reopen(first.path)
    listed = {j.path: j for j in list_tables(folder=tmp_path)}
    assert listed[first.path].running
    first.close()
    assert not {j.path: j for j in list_tables(folder=tmp_path)}[first.path].running
    mark(first.path, "abandoned")
    assert [j.path for j in list_tables(folder=tmp_path)] == [second.path]
    second.close()


def test_a_record_takes_a_new_name_rather_than_replace_another_games(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("another game's record")
    written = write_new_record(path, {"format": "x"})
    assert written == tmp_path / "game-2.json"
    assert path.read_text() == "another game's record"
    assert write_new_record(path, {"format": "y"}) == tmp_path / "game-3.json"


def test_a_spectator_new_to_a_resumed_delayed_table_gets_the_journaled_history() -> None:
    table = Table(2, rules=SHORT, seed=7, spectator_delay=2.0)
    entries = _journaled(table)
    table.run(until=lambda: len(table.host.batches) >= 8)
    new = _crash_and_resume(table, entries)
    assert new.settings.spectator_delay == 2.0  # the settings came back from the journal
    assert new.released == len(new.batches)  # they went out before the crash
    late = table.add_player("late", watch=True)
    table.flush()
    table.pump()
    assert [n.n for n in table.notices_of(late, Applied)] == list(range(1, len(new.batches) + 1))


def test_looking_for_unfinished_tables_reads_only_the_journals_that_may_be(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A host start and the menu look through every journal kept: the finished ones and
    other tables' are told from their first line and their tail, not read in full."""
    from netplay import journal as journal_module

    open_one = JournalFile.create("t1", folder=tmp_path, profile="ana")
    other_table = JournalFile.create("t2", folder=tmp_path, profile="ana")
    finished = JournalFile.create("t1", folder=tmp_path, profile="ana")
    padding = {"t": "note", "text": "x" * 1000}
    finished.append([padding] * 40 + [{"t": "finished", "at": 1.0}] + [padding] * 3)
    abandoned = JournalFile.create("t1", folder=tmp_path, profile="bob")
    for journal in (open_one, other_table, finished, abandoned):
        journal.close()
    mark(abandoned.path, "abandoned")
    read: list[Path] = []
    real = journal_module.read_entries

    def counting(path: Path) -> tuple[list[Entry], int]:
        read.append(path)
        return real(path)

    monkeypatch.setattr(journal_module, "read_entries", counting)
    assert [j.path for j in list_tables(folder=tmp_path, table="t1")] == [open_one.path]
    assert read == [open_one.path]
    read.clear()
    assert {j.path for j in list_tables(folder=tmp_path)} == {open_one.path,
                                                                other_table.path}
    assert sorted(read) == sorted([open_one.path, other_table.path])
    # Asked for finished ones too, every journal is read and summarized as before.
    everything = {j.path: j.status for j in list_tables(folder=tmp_path, unfinished=False)}
    assert everything == {open_one.path: "open", other_table.path: "open",
                          finished.path: "finished", abandoned.path: "abandoned"}

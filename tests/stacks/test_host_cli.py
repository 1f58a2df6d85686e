"""``stacks host`` over an unfinished table, ``--resume`` and ``--new``, and profiles held
by one process: refusals in words, never a second table silently over the first."""

from __future__ import annotations

import os

import pytest

from netplay.identity import profiles_dir
from netplay.journal import JournalFile, list_tables
from stacks.cli import main
from stacks.commands import peer
from tui.launch import ProfileLock


def _unfinished(table: str) -> JournalFile:
    """A journal as a host killed in the middle of its game leaves it."""
    journal = JournalFile.create(table, profile="host")
    journal.append([{"t": "seat", "seat": 0, "name": "ana", "key": None, "entropy": b"e"},
                    {"t": "batch", "n": 1}])  # dealt: a game to resume
    journal.close()
    return journal


def test_hosting_over_an_unfinished_table_is_refused_and_offers_resume_or_new(
    capsys: pytest.CaptureFixture[str],
) -> None:
    journal = _unfinished("friday")
    status = main(["host", "--headless", "--table", "friday", "--broker", "mqtt://127.0.0.1:9"])
    err = capsys.readouterr().err
    assert status == 2
    assert "table 'friday' has an unfinished game" in err
    assert "stacks host --resume friday" in err and "--new" in err
    assert [j.path for j in list_tables(table="friday")] == [journal.path]


def test_new_abandons_the_unfinished_table_in_its_journal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    journal = _unfinished("friday")
    # Nothing listens on port 9: the host gives up reaching the broker, after --new
    # has done its part.
    monkeypatch.setattr(peer, "CONNECT_WAIT", 0.5)
    main(["host", "--headless", "--table", "friday", "--new", "--broker",
          "mqtt://127.0.0.1:9"])
    assert f"abandoned the unfinished game of table 'friday' ({journal.path.name})" in (
        capsys.readouterr().out)
    (fresh,) = list_tables(table="friday")
    assert fresh.path != journal.path and journal.path.exists()


def test_resume_without_a_journal_says_what_can_be_resumed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _unfinished("friday")
    assert main(["host", "--headless", "--resume", "monday"]) == 2
    assert "no unfinished table 'monday' to resume; unfinished tables: friday" in (
        capsys.readouterr().err)


def test_a_profile_in_use_is_refused_in_words_naming_profile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lock = ProfileLock(profiles_dir())
    assert lock.acquire("ana", exact=True) == "ana" and lock.held
    try:
        assert main(["bot", "t", "--profile", "ana", "--broker", "mqtt://127.0.0.1:9"]) == 2
        err = capsys.readouterr().err
        assert f"profile 'ana' is in use by another running stacks (pid {os.getpid()})" in err
        assert "--profile NAME" in err
    finally:
        lock.release()


def test_the_default_profile_of_a_second_bot_is_its_own_and_stable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = ProfileLock(profiles_dir())
    assert first.acquire("bot", exact=False) == "bot"
    monkeypatch.setattr(peer, "CONNECT_WAIT", 0.5)
    try:
        main(["bot", "t", "--broker", "mqtt://127.0.0.1:9"])
        err = capsys.readouterr().err
        assert "profile 'bot' is in use by another process: running as 'bot-2'" in err
        assert (profiles_dir() / "bot-2" / "identity.key").exists()
    finally:
        first.release()


def test_a_table_left_in_its_lobby_is_no_unfinished_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    lobby = JournalFile.create("friday", profile="host")  # hosted, left before the deal
    lobby.close()
    monkeypatch.setattr(peer, "CONNECT_WAIT", 0.5)
    main(["host", "--headless", "--table", "friday", "--broker", "mqtt://127.0.0.1:9"])
    captured = capsys.readouterr()
    assert "unfinished game" not in captured.err + captured.out
    assert "can't reach the MQTT broker" in captured.err  # it went on to host
    assert lobby.path not in [j.path for j in list_tables(table="friday")]


def test_ctrl_c_on_a_headless_host_in_its_lobby_says_no_game_was_played() -> None:
    import signal
    import subprocess

    from tests.e2e.conftest import ROOT, SCALE, stacks_command
    from tests.support import free_port

    port = free_port()
    host = subprocess.Popen(
        stacks_command("host", "--headless", "--table", "friday", "--players", "3",
                       "--bots", "1", "--bind", "127.0.0.1", "--port", str(port),
                       "--no-advertise"),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert host.stdout is not None
        for line in host.stdout:  # the table is open: its lobby waits for players
            if line.startswith("table 'friday'"):
                break
        host.send_signal(signal.SIGINT)
        _out, err = host.communicate(timeout=30 * SCALE)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert "before the deal: no game was played" in err, err
    assert "record kept" not in err and "--resume" not in err, err

"""Words for newcomers: --version, help texts that say what they mean, replay's exit codes."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from stacks.parser import build_parser
from tests.support import wait_until_async

ROOT = Path(__file__).resolve().parents[2]


def _help(*words: str) -> str:
    parser = build_parser(words[0] if words else None)
    if not words:
        return parser.format_help()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[words[0]].format_help()  # type: ignore[index]


@pytest.mark.parametrize("module", ["stacks", "stacks.cli"])
def test_stacks_version_prints_the_installed_version(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module, "--version"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith("stacks ") and done.stdout.split()[1][0].isdigit()


def test_verify_help_gives_its_exit_codes_and_watch_help_says_what_it_does() -> None:
    verify = " ".join(_help("verify").split())
    assert "0 verified" in verify and "1 the record does not check out" in verify
    assert "2 the file can't be read" in verify
    watch = " ".join(_help("watch").split())
    assert "spectator" in watch and "--headless prints one JSON line" in watch


def test_simulate_bots_help_names_the_default_as_a_default() -> None:
    text = " ".join(_help("simulate").split())
    assert "default medium" in text and "(random, greedy)" not in text


def test_no_help_page_shows_a_doubled_percent_sign() -> None:
    """A description is printed as written (only argument help is %-formatted)."""
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in commands.choices:
        text = _help(name)
        assert "%%" not in text, name
    assert "95% Wilson interval" in " ".join(_help("tournament").split())


def test_replay_of_a_file_that_is_not_a_record_exits_2_in_words(tmp_path: Path) -> None:
    bad = tmp_path / "nope.json"
    bad.write_text("{}")
    done = subprocess.run([sys.executable, "-m", "stacks.cli", "replay", str(bad)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "not a sequence-stacks game record" in done.stderr


@pytest.mark.parametrize("words", [("replay",), ("verify",)])
def test_the_replay_and_verify_commands_are_in_the_readme(words: tuple[str, ...]) -> None:
    readme = (ROOT / "README.md").read_text()
    assert f"`stacks {words[0]} RECORD" in readme
    assert "stacks bench ui" in readme and "stacks --version" in readme
    assert "ruff check ." in readme and "mypy" in readme


@pytest.mark.asyncio
async def test_the_headless_host_says_who_joins_and_when_the_game_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import asyncio
    from types import SimpleNamespace

    from stacks.commands.host import _report_seats

    def seat(name: str, online: bool = True) -> SimpleNamespace:
        return SimpleNamespace(name=name, online=online, plain=False)

    session = SimpleNamespace(seats=[seat("Bot 1"), None, None], game=None, spectators={})
    reporter = asyncio.create_task(_report_seats(session, every=0.01))  # type: ignore[arg-type]
    out = ""

    async def printed(line: str) -> None:
        def there() -> bool:
            nonlocal out
            out += capsys.readouterr().out
            return line in out

        await wait_until_async(there, f"{line!r} printed", 10, interval=0.01,
                               diagnostics=lambda: f"printed: {out!r}")

    try:
        await asyncio.sleep(0)  # the reporter takes its first look at the seats
        session.seats[1] = seat("Bo")
        await printed("Bo joined (seat 2); waiting for 1 more\n")
        session.seats[2] = seat("Cy")
        session.game = object()
        await printed("Cy joined (seat 3)\n")
        await printed("every seat is taken: the game starts\n")
        session.seats[1] = seat("Bo", online=False)
        await printed("Bo is away (seat 2)\n")
        session.seats[1] = seat("Bo")
        await printed("Bo is back (seat 2)\n")
        session.spectators[b"k" * 32] = "spectator"
        await printed("A spectator is watching (1 spectator so far)\n")
        session.spectators[b"j" * 32] = "Dee"
        await printed("Dee (spectator) is watching (2 spectators so far)\n")
    finally:
        reporter.cancel()


def test_counts_say_one_thing_and_many_things() -> None:
    from tui.plural import counted

    assert [counted(n, "bot") for n in (0, 1, 2)] == ["0 bots", "1 bot", "2 bots"]
    assert counted(1, "more player", "more players") == "1 more player"


def test_the_headless_host_says_its_seats_and_bots_in_their_number() -> None:
    from stacks.commands.host import _opened_lines

    url = "mqtt://127.0.0.1:1883"
    assert _opened_lines("friday", url, 3, 1, 1, False) == [
        f"table 'friday' on {url}: 3 seats, 1 bot",
        f"waiting for 2 players: stacks join friday --broker {url}",
    ]
    assert _opened_lines("friday", url, 2, 0, 1, False) == [
        f"table 'friday' on {url}: 2 seats, 0 bots",
        f"waiting for 1 player: stacks join friday --broker {url}",
    ]
    assert _opened_lines("friday", url, 2, 2, 2, True) == [
        f"table 'friday' on {url}: 2 seats, 2 bots"]


def test_replay_seat_counts_from_1_as_the_lobby_does() -> None:
    from stacks.commands.replay import seat_index

    assert seat_index(None, 3) is None  # every hand
    assert seat_index(1, 3) == 0  # the lobby's seat 1 is the engine's first seat
    assert seat_index(3, 3) == 2
    for wrong in (0, 4, -1):
        with pytest.raises(ValueError, match="seats count from 1"):
            seat_index(wrong, 3)
    assert "count from 1" in " ".join(_help("replay").split())


def test_replay_seat_0_exits_2_saying_seats_count_from_1(tmp_path: Path) -> None:
    from netplay.record import write_record
    from tests.netplay.harness import SHORT, Table

    table = Table(3, seed=41, rules=SHORT)
    table.run_to_end()
    record = tmp_path / "game.json"
    write_record(record, table.host.record())
    done = subprocess.run([sys.executable, "-m", "stacks.cli", "replay", str(record),
                           "--seat", "0"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--seat must be 1-3" in done.stderr and "count from 1" in done.stderr


def test_help_lists_playing_before_the_bot_tools() -> None:
    listed = [line.split()[0] for line in build_parser().format_help().splitlines()
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed[:4] == ["play", "join", "learn", "host"], listed
    assert listed.index("simulate") > listed.index("replay"), listed
    assert listed.index("tournament") > listed.index("replay"), listed

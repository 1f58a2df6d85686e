"""The interface's commands: what each builds, and that headless ones stay light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from stacks.commands.ui import launch_from
from stacks.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]


def _launch(*argv: str) -> tuple[object, object, object]:
    return launch_from(build_parser(argv[0] if argv else None).parse_args(list(argv)))


def test_stacks_alone_opens_the_menu() -> None:
    launch, _, ask = _launch()
    assert launch is None and ask is None


def test_play_seats_you_against_players_minus_one_bots() -> None:
    launch, _, _ = _launch("play", "--players", "3", "--seed", "5", "--name", "Ana")
    assert launch.role == "play" and launch.players == 3 and launch.bots == 2  # type: ignore[attr-defined]
    assert launch.seed == 5 and launch.broker is None and launch.name == "Ana"  # type: ignore[attr-defined]


def test_join_without_a_table_or_with_a_bare_password_asks_in_a_form() -> None:
    assert _launch("join")[2] == "join"
    assert _launch("join", "friday", "--password")[2] == "join-password"
    launch, _, ask = _launch("join", "friday", "--broker", "mqtt://10.0.0.2:1883")
    assert ask is None and launch.table == "friday"  # type: ignore[attr-defined]


def test_host_with_the_interface_paces_its_bots_and_headless_does_not() -> None:
    from stacks.cli import main  # noqa: F401 - the defaulting happens in main

    args = build_parser("host").parse_args(["host", "--bots", "2"])
    assert args.bot_delay is None  # main() decides: 0.6 with the interface, 0 headless


def test_simulate_and_the_parser_never_import_textual() -> None:
    code = ("import sys; from stacks.cli import main; "
            "main(['simulate', '--games', '1', '--players', '2', '--json']); "
            "assert 'textual' not in sys.modules, 'textual imported'; "
            "assert 'amqtt' not in sys.modules, 'amqtt imported'; "
            "assert 'sqlalchemy' not in sys.modules, 'sqlalchemy imported'")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def test_bot_levels_from_the_command_line() -> None:
    from tui.launch import Launch

    launch, _, _ = _launch("play", "--players", "4", "--bots", "easy,HARD")
    assert isinstance(launch, Launch)
    assert launch.bot_levels == ("easy", "hard") and launch.bots == 3
    assert [launch.bot_level(i) for i in range(3)] == ["easy", "hard", "easy"]
    launch, _, _ = _launch("host", "--players", "4", "--bots", "hard,medium",
                           "--standin", "hard")
    assert isinstance(launch, Launch)
    assert launch.bots == 2 and launch.bot_levels == ("hard", "medium")
    assert launch.standin == "hard"
    launch, _, _ = _launch("host", "--players", "4", "--bots", "2", "--bot-strategy", "easy")
    assert isinstance(launch, Launch)
    assert launch.bots == 2 and launch.bot_levels == ("easy", "easy")
    # The old names still work.
    launch, _, _ = _launch("host", "--players", "3", "--bots", "1", "--bot-strategy", "greedy")
    assert isinstance(launch, Launch) and launch.bot_levels == ("greedy",)


def test_an_unknown_level_is_refused_with_the_choices() -> None:
    out = subprocess.run([sys.executable, "-m", "stacks.cli", "play", "--bots", "expert"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2
    assert "unknown bot 'expert'; choose from easy, medium, hard" in out.stderr

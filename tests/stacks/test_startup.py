"""Start-up: the main menu's first frame needs none of the game, the network or the servers
(docs/architecture.md, "Start-up"), and every command's help still answers."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stacks.cli import main
from stacks.parser import build_parser, menu_args

ROOT = Path(__file__).resolve().parents[2]

# What `stacks` does up to the menu's first frame (stacks/cli.py main, then
# stacks/commands/ui.py run), headless; the modules loaded at that frame are printed.
FIRST_FRAME = """
import asyncio, json, sys

from stacks.cli import menu_args
from stacks.commands.ui import launch_from
from tui.app import make_app
from tui.screens.menu import MenuScreen

args = menu_args([])
launch, defaults, ask = launch_from(args)
app = make_app(launch, defaults=defaults, ask=ask)
shown = {}
app.after_first_frame(lambda: shown.update(modules=sorted(sys.modules),
                                           menu=isinstance(app.screen, MenuScreen)))


async def run() -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        while not shown:
            await pilot.pause()


asyncio.run(run())
print(json.dumps(shown))
"""

HEAVY = (
    # the rules beyond their defaults, the bots, the games' definitions
    "engine.rules", "engine.reducer", "engine.views", "engine.bots", "engine.games",
    "engine.classic",
    # the protocol, its cryptography and its transport; LAN discovery
    "netplay.identity", "netplay.player", "netplay.host", "netplay.transport",
    "netplay.lobby", "nacl", "msgpack", "aiomqtt", "paho", "zeroconf",
    # the table's half of the interface
    "tui.control", "tui.session", "tui.discovery", "tui.bell",
    # the other floors and their libraries
    "broker", "amqtt", "ratings", "sqlalchemy", "sshserver", "asyncssh", "webserver",
    "aiohttp",
    # the benchmarks and the progress bars (rich's heavy parts)
    "stacks.bench", "stacks.progress", "rich.progress",
)


def _loaded(heavy: str, modules: list[str]) -> list[str]:
    return [m for m in modules if m == heavy or m.startswith(heavy + ".")]


def test_the_menu_first_frame_imports_nothing_heavy(tmp_path: Path) -> None:
    env = dict(os.environ, STACKS_HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", FIRST_FRAME], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["menu"], "the first frame is not the menu"
    modules = shown["modules"]
    assert "textual.app" in modules and "tui.screens.menu" in modules  # it did run
    loaded = {heavy: _loaded(heavy, modules) for heavy in HEAVY}
    assert not any(loaded.values()), {k: v[:3] for k, v in loaded.items() if v}


def test_the_menu_options_parse_without_the_commands_parser() -> None:
    args = menu_args(["--profile", "play", "--name", "Ana"])
    assert args is not None and args.command is None
    assert args.menu_profile == "play" and args.menu_name == "Ana"
    assert args.menu_broker is None
    # A command, a help request or a malformed option: the full parser reads the line.
    for words in (["play"], ["--help"], ["-h"], ["--broker", "nope://x"], ["--profile"]):
        assert menu_args(words) is None, words
    full = build_parser(None).parse_args(["--profile", "play", "--name", "Ana"])
    assert vars(full) == vars(args)


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def _help_lines() -> list[list[str]]:
    parser = build_parser("broker")
    lines: list[list[str]] = [[]]
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        lines.append([name])
        lines += [[name, inner] for inner in _commands(command)] if any(
            isinstance(a, argparse._SubParsersAction) for a in command._actions) else []
    return lines


@pytest.mark.parametrize("words", _help_lines(), ids=lambda w: " ".join(w) or "stacks")
def test_every_help_page_answers(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main([*words, "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: stacks {' '.join(words)}".rstrip()), out[:200]


def test_stacks_help_lists_every_command_and_version_answers() -> None:
    done = subprocess.run([sys.executable, "-m", "stacks.cli", "--help"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in _commands(build_parser(None)):
        assert f"\n    {name} " in done.stdout or f"\n    {name}\n" in done.stdout, name
    version = subprocess.run([sys.executable, "-m", "stacks.cli", "--version"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("stacks ")

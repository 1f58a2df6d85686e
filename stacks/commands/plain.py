"""``stacks play --plain`` (and ``join`` / ``watch --plain``): the game as numbered lines
of words with typed commands, for screen readers and slow links (:mod:`tui.plain`)."""

from __future__ import annotations

import argparse
import sys

from stacks.commands.ui import _logs, launch_from


def run(args: argparse.Namespace) -> int:
    _logs(getattr(args, "verbose", False))
    command = args.command
    if command == "watch" and args.headless:
        print("stacks watch: --plain and --headless are two ways to print the game; choose "
              "one", file=sys.stderr)
        return 2
    try:
        launch, _defaults, ask = launch_from(args)
    except ValueError as exc:
        print(f"stacks {command}: {exc}", file=sys.stderr)
        return 2
    if launch is None or ask is not None:
        what = "the table's password: --password WORD" if ask == "join-password" \
            else "the table's name: stacks join TABLE --plain"
        print(f"stacks {command} --plain: give {what} (only the interface asks for it)",
              file=sys.stderr)
        return 2
    from tui.plain.run import run_plain

    return run_plain(launch)

"""``stacks replay RECORD``: open a game record in the interface and step through it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_replay_arguments(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    replay = commands.add_parser(
        "replay", help="step through a finished game from its record",
        description="Open a game record (the host writes one at the end of each game: "
        "`stacks play` and `stacks host` in the records folder, or `stacks host --record`) "
        "in the interface: → and ← step one event, ] and [ one turn, Home and End go to the "
        "start and the end, v switches between every hand and one seat's view, q quits. "
        "Exit status 2 when the record can't be read.",
    )
    replay.add_argument("record", help="the record file (a bare name is looked for in "
                        "the records folder of `stacks play` and `stacks host` too)")
    replay.add_argument("--seat", type=int, metavar="N",
                        help="start in seat N's view (seats count from 0, as the host "
                        "prints them) instead of every hand")
    replay.add_argument("--end", action="store_true", help="start at the end of the game")


def run(args: argparse.Namespace) -> int:
    from netplay.journal import records_dir
    from tui.replay import ReplayError, replay_file

    path = Path(args.record)
    if not path.exists() and not path.is_absolute() and (records_dir() / path).exists():
        path = records_dir() / path
    try:
        replay = replay_file(path)
    except ReplayError as exc:
        print(f"stacks replay: {exc}", file=sys.stderr)
        return 2
    players = replay.moments[0].state.players
    if args.seat is not None and not 0 <= args.seat < players:
        print(f"stacks replay: --seat must be 0-{players - 1} for this game", file=sys.stderr)
        return 2
    from tui.app import StacksApp
    from tui.screens.replay import ReplayScreen

    screen = ReplayScreen(replay, seat=args.seat, at=replay.last if args.end else 0)
    StacksApp(only=screen).run()
    return 0

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
    replay.add_argument("record", nargs="?",
                        help="the record file (a bare name is looked for in the records "
                        "folder of `stacks play` and `stacks host` too); without it, the "
                        "recent records to choose from, as the menu's \"Replay a game\" "
                        "lists them")
    replay.add_argument("--seat", type=int, metavar="N",
                        help="start in seat N's view instead of every hand (seats count "
                        "from 1, as the lobby and the table number them)")
    replay.add_argument("--end", action="store_true", help="start at the end of the game")


def seat_index(number: int | None, players: int) -> int | None:
    """The seat ``--seat N`` names (N counts from 1, as the lobby and the table number the
    seats; the engine counts from 0); ``None`` for every hand. ``ValueError`` in words."""
    if number is None:
        return None
    if not 1 <= number <= players:
        raise ValueError(f"--seat must be 1-{players} for this game (seats count from 1, as "
                         f"the lobby numbers them; {number} is no seat)")
    return number - 1


def pick(args: argparse.Namespace) -> int:
    """No record named: the recent ones, to choose from in the interface (listed on a pipe)."""
    from netplay.journal import records_dir
    from tui.replay import recent_records, record_info

    folder = records_dir()
    records = recent_records(folder)
    if not records:
        print(f"stacks replay: no game records yet in {folder}. Every game played against "
              "bots or hosted writes one at its end; `stacks replay FILE` opens any other.",
              file=sys.stderr)
        return 2
    if not sys.stdout.isatty():
        print(f"Recent game records in {folder} (newest first; stacks replay NAME):")
        for path in records:
            print(f"  {path.name}  {record_info(path).words()}")
        return 0
    from tui.app import StacksApp
    from tui.screens.replay import RecordsScreen

    StacksApp(only=RecordsScreen(records)).run()
    return 0


def run(args: argparse.Namespace) -> int:
    from netplay.journal import records_dir
    from tui.replay import ReplayError, replay_file

    if args.record is None:
        return pick(args)
    path = Path(args.record)
    if not path.exists() and not path.is_absolute() and (records_dir() / path).exists():
        path = records_dir() / path
    try:
        replay = replay_file(path)
    except ReplayError as exc:
        print(f"stacks replay: {exc}", file=sys.stderr)
        return 2
    players = replay.moments[0].state.players
    try:
        seat = seat_index(args.seat, players)
    except ValueError as exc:
        print(f"stacks replay: {exc}", file=sys.stderr)
        return 2
    from tui.app import StacksApp
    from tui.screens.replay import ReplayScreen

    screen = ReplayScreen(replay, seat=seat, at=replay.last if args.end else 0)
    StacksApp(only=screen).run()
    return 0

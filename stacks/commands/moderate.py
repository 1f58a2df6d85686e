"""``stacks moderate``: the ssh server's moderation at its own console.

The same commands as the ssh menu's Moderate screen (`sshserver.modcommands`), on the
server's database; the running server reads what was done and acts on it (a banned
player's session ends, a table closes, a line reaches everyone). ``who`` reads the list
the running server on this machine keeps in its data directory.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from netplay.journal import data_dir
from ratings.moderation import ModerationStore
from ratings.schema import SchemaTooNew
from ratings.store import DatabaseError, Store
from sshserver.modcommands import Context, run_command
from sshserver.moderation import WHO_FILE, read_who
from stacks.commands.ratings import database_of


def _who() -> list[str]:
    lines = read_who(data_dir() / WHO_FILE)
    if lines is None:
        return ["no `stacks serve` is running here (or it is not this user's): nobody to "
                "list"]
    return lines


async def _run(args: argparse.Namespace) -> int:
    store = await Store.open(database_of(args))
    try:
        ctx = Context(by=args.moderator, who=_who, console=True)
        done, reply = await run_command(list(args.words), ModerationStore(store), ctx)
    finally:
        await store.close()
    print(reply, file=sys.stdout if done else sys.stderr)
    return 0 if done else 1


def run(args: argparse.Namespace) -> int:
    try:
        return asyncio.run(_run(args))
    except (DatabaseError, SchemaTooNew) as exc:
        print(f"stacks moderate: {exc}", file=sys.stderr)
        return 2

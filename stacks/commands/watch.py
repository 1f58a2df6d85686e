"""``stacks watch TABLE --headless``: a spectator that prints one JSON line per public
event, then the outcome and the deal check."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from netplay.errors import ProfileError
from netplay.identity import profiles_dir
from netplay.known import KnownHosts
from netplay.player_peer import Spectator
from netplay.playing.notices import Applied, GameEnded, Notice, Refused, Verified
from stacks.commands.peer import (
    follow,
    held_profile,
    outcome_words,
    quiet_logs,
    reach,
    release_profiles,
    stop_on_signals,
    until_stopped,
)


def run_watch(args: argparse.Namespace) -> int:
    quiet_logs(args.verbose)
    try:
        return asyncio.run(_watch(args))
    except KeyboardInterrupt:
        return 130
    finally:
        release_profiles()


async def _watch(args: argparse.Namespace) -> int:
    try:
        profile, identity = held_profile(args, "spectator", "stacks watch")
    except ProfileError as exc:
        print(f"stacks watch: {exc}", file=sys.stderr)
        return 2
    stop = asyncio.Event()
    stop_on_signals(stop)
    out = sys.stdout
    async with Spectator(identity, args.table, args.name or "spectator",
                         broker=args.broker,
                         known=KnownHosts(profiles_dir() / profile)) as watcher:
        if not await reach(watcher, args.broker, "stacks watch"):
            return 1
        def handle(notice: Notice) -> int | None:
            if isinstance(notice, Refused):
                print(f"refused: {notice.reason}", file=sys.stderr)
                return 1
            if isinstance(notice, Applied):
                for event in notice.events:
                    out.write(json.dumps({"batch": notice.n, "event": event.to_wire()}) + "\n")
                out.flush()
            elif isinstance(notice, GameEnded):
                names = watcher.player.names
                out.write(json.dumps({
                    "outcome": {
                        "termination": notice.outcome.termination.name.lower(),
                        "winner": notice.outcome.winner,
                        "words": outcome_words(notice.outcome, names, watcher.view),
                    }
                }) + "\n")
                out.flush()
            elif isinstance(notice, Verified):
                view = watcher.view
                out.write(json.dumps({"verification": {
                    "ok": notice.verdict.ok, "detail": notice.verdict.detail,
                    "words": str(notice.verdict),
                    "hash": watcher.player.definition.public_hash(view)
                    if view is not None else None}}) + "\n")
                out.flush()
                return 0 if notice.verdict.ok else 1
            return None

        who = f"stacks watch {args.table}"
        return await until_stopped(
            follow(watcher, who, args.table, args.host_timeout, handle), stop)

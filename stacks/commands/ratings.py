"""``stacks ratings``: the leaderboard, and adding verified game records to it.

The database is ``--database URL`` (``sqlite:///PATH`` or ``postgresql://…``), by default
SQLite in the user's data directory (where this machine's games are added as they end).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from netplay.journal import data_dir
from netplay.record import MAX_RECORD_BYTES, from_json, read_record, to_json
from ratings.results import RecordRefused
from ratings.schema import SchemaTooNew
from ratings.store import DatabaseError, Store, default_database, shown


def database_of(args: argparse.Namespace) -> str:
    url: str | None = getattr(args, "database", None)
    return url or default_database(data_dir())


async def _open(args: argparse.Namespace) -> Store:
    store = await Store.open(database_of(args))
    if store.notice:
        print(f"stacks ratings: {store.notice}", file=sys.stderr)
    return store


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "ratings_action", None) or "show"
    handler = {"show": _show, "add": _add, "export": _export, "import": _import,
               "delete-account": _delete_account}[action]
    try:
        return asyncio.run(handler(args))
    except (DatabaseError, SchemaTooNew) as exc:
        print(f"stacks ratings: {exc}", file=sys.stderr)
        return 2


async def _show(args: argparse.Namespace) -> int:
    from ratings.moderation import ModerationStore

    store = await _open(args)
    try:
        standings = await store.leaderboard(args.game, args.limit)
        left = await ModerationStore(store).abandonment([s.fingerprint for s in standings])
    finally:
        await store.close()
    if args.json:
        print(json.dumps({"game": args.game, "players": [
            {**s.to_json(), "left_early": left[s.fingerprint].left} for s in standings]}))
        return 0
    if not standings:
        print(f"No rated {args.game} games yet in {shown(store.url)}.")
        return 0
    from ratings.display import START, provisional, rating_text

    print(f"{'#':>3}  {'name':<24} {'fingerprint':<19} {'games':>5} {'wins':>5} "
          f"{'rating':>7} {'left':>4}")
    for s in standings:
        print(f"{s.rank:>3}  {s.name[:24]:<24} {s.fingerprint:<19} {s.games:>5} {s.wins:>5} "
              f"{rating_text(s.mu, s.sigma):>7} {left[s.fingerprint].left:>4}")
    if any(left[s.fingerprint].left for s in standings):
        print("left: games left before their end, for the stand-in to finish")
    if any(provisional(s.sigma) for s in standings):
        print(f"? provisional: fewer games than a settled rating needs (a newcomer starts at "
              f"{START})")
    return 0


async def _add(args: argparse.Namespace) -> int:
    store = await _open(args)
    status = 0
    try:
        for name in args.records:
            try:
                record = read_record(Path(name))
            except ValueError as exc:
                print(f"refused {name}: {exc}")
                status = max(status, 2)
                continue
            try:
                added = await store.add_record(record)
            except RecordRefused as exc:
                print(f"refused {name}: {exc}")
                status = max(status, 1)
                continue
            game = added.game
            who = ", ".join(s.name for s in game.seats)
            if added.already:
                print(f"already rated {name}: {game.kind} game {game.id[:16]} ({who})")
            else:
                print(f"rated {name}: {game.kind} game {game.id[:16]} ({who})")
    finally:
        await store.close()
    return status


async def _export(args: argparse.Namespace) -> int:
    """Every record and account as JSON lines: what ``import`` reads into another
    database (SQLite to PostgreSQL, say). Ratings are not exported: they are computed
    again from the records."""
    store = await _open(args)
    count = 0
    try:
        with Path(args.file).open("w") as out:
            async for record in store.records():
                out.write(json.dumps({"record": to_json(record)}, separators=(",", ":")) + "\n")
                count += 1
            for account in await store.accounts():
                out.write(json.dumps({"account": {
                    "name": account.name, "profile": account.profile,
                    "fingerprint": account.fingerprint, "keys": list(account.keys)}}) + "\n")
    finally:
        await store.close()
    print(f"exported {count} games to {args.file}")
    return 0


async def _import(args: argparse.Namespace) -> int:
    store = await _open(args)
    added = already = refused = accounts = 0
    try:
        with Path(args.file).open(errors="replace") as source:
            for number, line in enumerate(_lines(source), 1):
                if line is None:
                    print(f"line {number}: refused: too big for a game record (a record "
                          f"is at most {MAX_RECORD_BYTES:,} bytes)")
                    refused += 1
                    continue
                if not line.strip():
                    continue
                try:
                    item: Any = json.loads(line)
                except RecursionError:
                    print(f"line {number}: refused: nested too deep")
                    refused += 1
                    continue
                except ValueError as exc:
                    print(f"line {number}: not JSON ({exc})")
                    refused += 1
                    continue
                if isinstance(item, dict) and isinstance(item.get("record"), dict):
                    try:
                        result = await store.add_record(from_json(item["record"]))
                    except (RecordRefused, KeyError, TypeError, ValueError,
                            RecursionError) as exc:
                        print(f"line {number}: refused: {exc}")
                        refused += 1
                        continue
                    already += result.already
                    added += not result.already
                elif isinstance(item, dict) and isinstance(item.get("account"), dict):
                    accounts += await store.import_account(item["account"])
                else:
                    print(f"line {number}: neither a record nor an account")
                    refused += 1
    finally:
        await store.close()
    print(f"imported {added} games ({already} already there, {refused} refused), "
          f"{accounts} accounts")
    return 1 if refused else 0


def _lines(source: Any) -> Iterator[str | None]:
    """The lines of an export, each at most a record's size plus its wrapping; ``None``
    for a line over that (skipped without being held whole)."""
    limit = MAX_RECORD_BYTES + 4096
    while True:
        line = source.readline(limit)
        if not line:
            return
        if len(line) >= limit and not line.endswith("\n"):
            while (rest := source.readline(limit)) and not rest.endswith("\n"):
                pass
            yield None
            continue
        yield line


async def _delete_account(args: argparse.Namespace) -> int:
    store = await _open(args)
    try:
        found = await store.delete_account(args.name)
    finally:
        await store.close()
    if not found:
        print(f"no account is named {args.name!r}")
        return 1
    print(f"deleted the account {args.name!r} and its keys")
    return 0

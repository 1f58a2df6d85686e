"""The ratings database's figures, run by hand (not a default test):

    python -m stacks.bench.ratings --database URL [--games 100000] [--records DIR]

- the time to rate a record (verify + store), over the records of DIR;
- the leaderboard query, a player's games and card, with GAMES stored games (made here
  as rows, rated over the whole history by the store's own rebuild);
- the restart of a server with finished held tables not yet stored: the time to store
  the notes it finds.

The database should be empty (a new SQLite file, or a new PostgreSQL database).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import insert, text

from netplay.record import read_record
from ratings.archive import Archive
from ratings.models import game_seats, games, players
from ratings.store import Store


async def rate_records(url: str, folder: Path) -> tuple[int, float]:
    files = sorted(folder.glob("*.json"))
    records = [read_record(p) for p in files]
    store = await Store.open(url)
    try:
        start = time.perf_counter()
        for record in records:
            await store.add_record(record)
        elapsed = time.perf_counter() - start
    finally:
        await store.close()
    return len(records), elapsed / max(1, len(records))


async def fill(url: str, count: int, people: int, seed: int = 1) -> float:
    rng = random.Random(seed)
    store = await Store.open(url)
    start = time.perf_counter()
    try:
        async with store.engine.begin() as conn:
            await conn.execute(insert(players), [
                {"fingerprint": f"{i:016x}"[:16], "name": f"player{i}", "bot": False,
                 "key": None, "first_seen": 0.0} for i in range(people)])
            batch_games: list[dict[str, Any]] = []
            batch_seats: list[dict[str, Any]] = []
            for n in range(count):
                size = rng.choice((2, 3, 4))
                who = rng.sample(range(people), size)
                winner = rng.randrange(size)
                gid = f"{n:064x}"
                batch_games.append({"id": gid, "kind": "stacks", "table_name": "bench",
                                    "ended_at": float(n), "players": size, "winner": winner,
                                    "length": 100, "added_at": float(n), "record": "{}"})
                batch_seats.extend({"game_id": gid, "seat": s, "fingerprint": f"{w:016x}"[:16],
                                    "name": f"player{w}", "team": s, "won": s == winner,
                                    "mu_before": 25.0, "sigma_before": 8.3, "mu_after": 25.0,
                                    "sigma_after": 8.3} for s, w in enumerate(who))
                if len(batch_games) >= 5000:
                    await conn.execute(insert(games), batch_games)
                    await conn.execute(insert(game_seats), batch_seats)
                    batch_games, batch_seats = [], []
            if batch_games:
                await conn.execute(insert(games), batch_games)
                await conn.execute(insert(game_seats), batch_seats)
            await store._rebuild(conn, "stacks")
    finally:
        await store.close()
    return time.perf_counter() - start


async def queries(url: str, repeat: int = 20) -> dict[str, float]:
    store = await Store.open(url)
    out: dict[str, float] = {}
    try:
        for name, call in (("leaderboard (all)", lambda: store.leaderboard("stacks")),
                           ("leaderboard (top 50)", lambda: store.leaderboard("stacks", 50)),
                           ("a player's 50 newest games",
                            lambda: store.games_of(f"{7:016x}", 50)),
                           ("a player's card", lambda: store.card(f"{7:016x}"))):
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                await call()
                times.append(time.perf_counter() - start)
            out[name] = statistics.median(times)
    finally:
        await store.close()
    return out


async def restart(url: str, folder: Path) -> tuple[int, float]:
    """Notes for every record of ``folder`` (the held tables a killed server finished),
    then a fresh archive stores them, as ``stacks serve`` does when it starts."""
    with tempfile.TemporaryDirectory() as pending:
        archive = Archive(url, Path(pending))
        files = sorted(folder.glob("*.json"))
        for path in files:
            archive.expect(journal=None, record=path)
        start = time.perf_counter()
        stored = await archive.drain()
        elapsed = time.perf_counter() - start
        await archive.close()
    return stored, elapsed


async def main_async(args: argparse.Namespace) -> None:
    if args.records:
        folder = Path(args.records)
        n, each = await rate_records(args.database, folder)
        print(f"rate a record (verify + store): {each * 1000:.1f} ms each over {n} records")
    if args.restart:
        n, took = await restart(args.restart_database or args.database, Path(args.restart))
        print(f"restart: {n} finished held tables stored in {took:.2f} s")
    took = await fill(args.database, args.games, args.people)
    print(f"made and rated {args.games} games of {args.people} players in {took:.1f} s")
    for name, value in (await queries(args.database)).items():
        print(f"{name}: {value * 1000:.2f} ms (median of 20; no planner statistics yet)")
    await analyze(args.database)
    for name, value in (await queries(args.database)).items():
        print(f"{name}: {value * 1000:.2f} ms (median of 20; after ANALYZE)")


async def analyze(url: str) -> None:
    """Gather the planner's statistics, as PostgreSQL's autovacuum does on a live server
    within a minute of a large change (SQLite keeps none unless asked): a database filled
    in one go and queried at once is planned blind, which is not what players meet."""
    store = await Store.open(url)
    try:
        async with store.engine.begin() as conn:
            await conn.execute(text("ANALYZE"))
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--people", type=int, default=2000)
    parser.add_argument("--records", help="a folder of finished records to time")
    parser.add_argument("--restart", help="a folder of records to store as a restart would")
    parser.add_argument("--restart-database", help="an empty database for --restart")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

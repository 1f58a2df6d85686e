"""``kill -9`` of a real ``stacks serve`` while its held tables' games end at about the same
moment: no finished game is lost, none is counted twice.

The server runs in its own process with its own data folder and database (SQLite, and
PostgreSQL on the test run's own cluster), tables on a broker of the test's own. Each
player is a real OpenSSH client whose session runs ``tests/sshserver/held_bot.py``: it
asks the server over its link for a held table (two seats, the server's bot in one, short
rules) and plays its seat as a headless bot peer. When the games end, the server gets
SIGKILL at a chosen moment (the first "game over", the first finished game noted on disk,
the first record written, the first game stored); a new server on the same data folder
resumes the unfinished tables (their players come back over ssh) and stores what the
dead one left. Then every record on disk is in the database exactly once, every table's
game is stored, and each identity's rating counts each of its games once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from netplay.record import read_record
from ratings.store import Store
from tests.postgres import Cluster
from tests.ratings.conftest import postgres  # noqa: F401  (the cluster fixture)
from tests.sshserver.conftest import (
    TIMEOUT,
    Keys,
    Server,
    ServerFactory,
)
from tests.sshserver.test_play import GAME_TIMEOUT
from tests.support import SCALE, wait_until

HELD_BOT = Path(__file__).with_name("held_bot.py")


# -- the database, read as the test's own client ------------------------------------------------


def _rows(url: str, query: str) -> list[tuple[object, ...]]:
    if url.startswith("sqlite:///"):
        path = url[len("sqlite:///"):]
        if not Path(path).exists():
            return []
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
            try:
                return list(conn.execute(query))
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        try:
            return [tuple(r) for r in conn.execute(query).fetchall()]
        except psycopg.errors.UndefinedTable:
            return []


def stored_ids(url: str) -> list[str]:
    return [str(r[0]) for r in _rows(url, "SELECT id FROM games")]


def _game_id(record: Path) -> str:
    """The game of a record on disk: its commitment, hex (the database's id)."""
    return str(read_record(record)["commit"].hex())


def record_ids(records: Path) -> dict[str, list[Path]]:
    """The games of the records on disk: id → the files holding it."""
    found: dict[str, list[Path]] = {}
    for path in sorted(records.glob("*.json")):
        found.setdefault(_game_id(path), []).append(path)
    return found


def _noted_id(note: Path) -> str | None:
    """The game (commitment, hex) of a finished game's note, when its record was written
    and reads; ``None`` when it was not (that game ends again at its resumed table)."""
    try:
        record = json.loads(note.read_text()).get("record")
        return None if not record else _game_id(Path(record))
    except (OSError, ValueError, KeyError):
        return None


@contextlib.contextmanager
def _stores_held(url: str) -> Iterator[None]:
    """Within the block, a writer of the test's own holds the database (made first, as
    the server would make it), so every store of a finished game waits for it: a game's
    note then stays on disk until the kill, however fast the database (on SQLite a store
    took less than the 0.1 s between two looks, and the note was never seen)."""

    async def made() -> None:
        await (await Store.open(url)).close()

    asyncio.run(made())
    if url.startswith("sqlite:///"):
        with contextlib.closing(sqlite3.connect(url[len("sqlite:///"):], timeout=30,
                                                isolation_level=None)) as conn:
            conn.execute("BEGIN IMMEDIATE")  # WAL: readers go on, writers wait
            try:
                yield
            finally:
                conn.rollback()
        return
    import psycopg

    with psycopg.connect(url) as writer:
        writer.execute("LOCK TABLE games IN SHARE ROW EXCLUSIVE MODE")  # reads go on
        try:
            yield
        finally:
            writer.rollback()


# -- players over ssh ----------------------------------------------------------------------------


class Players:
    """ssh clients (the test's own processes), one per seat; all killed at the end."""

    def __init__(self, keys: Keys, folder: Path) -> None:
        self.keys = keys
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def join(self, server: Server, who: str, table: str) -> subprocess.Popen[bytes]:
        argv = server.ssh_argv(self.keys.path(who), who, "join", table)
        argv[argv.index("-t")] = "-tt"  # a pty though the test has no terminal
        out = open(self.folder / f"ssh-{who}-{table}-{len(self.procs)}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out,
                                stderr=subprocess.STDOUT)
        out.close()
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(TIMEOUT)


@pytest.fixture
def players(keys: Keys, tmp_path: Path) -> Iterator[Players]:
    made = Players(keys, tmp_path)
    try:
        yield made
    finally:
        made.close()


# -- the moments to kill at ----------------------------------------------------------------------


def _moment(name: str, server: Server, url: str) -> Callable[[], bool]:
    data = server.home / "data"
    if name == "first game over":
        return lambda: ": game over" in server.output()
    if name == "second game over":
        return lambda: server.output().count(": game over") >= 2
    if name == "first note":
        return lambda: any((data / "ratings-pending").glob("*.pending"))
    if name == "first record":
        return lambda: any((data / "records").glob("*.json"))
    if name == "first stored":
        return lambda: len(stored_ids(url)) >= 1
    raise ValueError(name)


def _until(condition: Callable[[], object], what: str, *servers: Server) -> None:
    """Wait for ``condition`` (generously: a loaded machine); on a timeout, the servers'
    logs say what they were doing."""
    wait_until(condition, what, GAME_TIMEOUT / SCALE, interval=0.1,
               diagnostics=lambda: "the servers' logs:\n"
               + "\n\n".join(server.output() for server in servers))


def _trial(serve: ServerFactory, keys: Keys, players: Players, broker: str, url: str,
           moment: str, tables: int) -> float:
    """One trial; the seconds from the restart to every finished game stored."""
    who = [f"p{i}" for i in range(tables)]
    authorized = "".join(keys.public(name) for name in who)
    command = f"{sys.executable} {HELD_BOT}"
    server = serve("--broker", broker, "--database", url, "--session-command", command,
                   authorized=authorized, accounts=False)
    names = [f"t{i}" for i in range(tables)]
    for name, table in zip(who, names, strict=True):
        players.join(server, name, table)
    for table in names:
        _until(lambda t=table: f"opened table {t} " in server.output(),  # type: ignore[misc]
               f"table {table} to open", server)
    # The first note's moment is short: the stores wait for the test until the kill.
    with _stores_held(url) if moment == "first note" else contextlib.nullcontext():
        _until(_moment(moment, server, url), moment, server)
        os.kill(server.pid, signal.SIGKILL)
        server.proc.wait(TIMEOUT)
    data = server.home / "data"
    pending = list((data / "ratings-pending").glob("*.pending"))
    # Read now: the new server removes each note once its game is stored.
    noted = [_noted_id(note) for note in pending]
    before = set(stored_ids(url))
    on_disk = set(record_ids(data / "records"))
    print(f"\n[{moment}] killed with {len(before)} games stored, {len(pending)} noted, "
          f"{len(on_disk)} records on disk")

    started = time.monotonic()
    again = serve("--broker", broker, "--database", url, "--session-command",
                  f"{command} --resume", home=server.home, authorized=authorized,
                  accounts=False)
    listening_s = time.monotonic() - started
    # The games that had ended when the server died: stored by the new one, once (a
    # game noted before its record was written ends again at its resumed table, after
    # the host's wait for the players' fair-deal checks: they are not back yet).
    _until(lambda: on_disk <= set(stored_ids(url)), "the recorded games to be stored",
           server, again)
    recorded_s = time.monotonic() - started
    # A kill between a game's storing and its note's removal leaves a note for a stored
    # game (the server counts it once): the ended games are the stored ones and the
    # noted ones, each game once.
    ended = len(before | {game for game in noted if game is not None}) + noted.count(None)
    _until(lambda: len(set(stored_ids(url))) >= ended, "the finished games to be stored",
           server, again)
    ended_s = time.monotonic() - started
    print(f"[{moment}] restart to listening: {listening_s:.2f} s; to the "
          f"{len(on_disk - before)} recorded games stored: {recorded_s:.2f} s; to all "
          f"{ended} ended games stored: {ended_s:.2f} s")
    # The players of the tables the new server resumed come back and play them out.
    for name, table in zip(who, names, strict=True):
        if f"resumed table {table} at batch" in again.output():
            players.join(again, name, table)
    _until(lambda: len(set(stored_ids(url))) == tables
           and not list((data / "ratings-pending").glob("*.pending")),
           f"every table's game stored ({tables})", server, again)

    # Every record on disk is a stored game, each stored once; nothing else is stored.
    ids = stored_ids(url)
    assert len(ids) == len(set(ids)) == tables, ids
    assert set(record_ids(data / "records")) == set(ids)
    assert not list((data / "ratings-pending").glob("*.refused")), \
        "a finished game was set aside"
    # Each identity's rating counts each of its games once.
    seats = Counter(str(r[0]) for r in _rows(url, "SELECT fingerprint FROM game_seats"))
    rated = {str(r[0]): int(r[1]) for r in _rows(
        url, "SELECT fingerprint, games FROM ratings WHERE kind = 'stacks'")}
    assert rated == dict(seats), (rated, seats)
    assert rated["bot-medium"] == tables  # the server's bot sat at every table
    assert sorted(v for k, v in rated.items() if k != "bot-medium") == [1] * tables
    log = again.output()
    assert "can't be rated" not in log and "can't store games now" not in log, log
    again.stop()
    return ended_s


def _url(database: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if database == "sqlite":
        return f"sqlite:///{tmp_path / 'serve-ratings.sqlite'}"
    cluster: Cluster = request.getfixturevalue("postgres")
    return cluster.create()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_kill_9_as_held_games_end_loses_none_and_counts_none_twice(
    serve: ServerFactory, keys: Keys, players: Players, broker: str, tmp_path: Path,
    request: pytest.FixtureRequest, database: str,
) -> None:
    _trial(serve, keys, players, broker, _url(database, tmp_path, request),
           "first game over", tables=3)


@pytest.mark.slow
@pytest.mark.parametrize("moment", ["first game over", "first note", "first record",
                                    "first stored", "second game over"])
@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_kill_9_at_each_moment_of_the_games_ends(
    serve: ServerFactory, keys: Keys, players: Players, broker: str, tmp_path: Path,
    request: pytest.FixtureRequest, database: str, moment: str,
) -> None:
    seconds = _trial(serve, keys, players, broker, _url(database, tmp_path, request),
                     moment, tables=4)
    with Path(os.environ.get("STACKS_TRIAL_LOG", os.devnull)).open("a") as log:
        log.write(json.dumps({"database": database, "moment": moment,
                              "restart_to_stored_s": seconds}) + "\n")

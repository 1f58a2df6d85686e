"""Finished games into the database without loss: a held table's game is stored when it
ends; a server killed between the record and the database stores it on restart, once; a
database that is down keeps the games on disk, says so in words, and takes them when it
is back. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer
from netplay.record import read_record, write_record
from ratings.archive import Archive
from ratings.store import Store
from sshserver.tables import RATED_YES, Caller, KeeperSettings, TableKeeper
from tests.tui.conftest import TIMEOUT

from .games import stacks_records

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")


async def stored(url: str) -> set[str]:
    store = await Store.open(url)
    try:
        return await store.game_ids()
    finally:
        await store.close()


async def test_a_held_tables_game_is_stored_when_it_ends(database: str, tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    news: list[str] = []
    archive = Archive(database, tmp_path / "pending", say=news.append)

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(linger=0.1, verify_wait=0.5),
                         say=news.append, record_path=lambda t, game: tmp_path / f"{t}.json",
                         archive=archive)
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2, "bots": 1,
                                    "block_window": 0.2, "bot_delay": 0,
                                    "rules": {"win_chips": 3, "win_min_each_colour": 1}})
        table = keeper.tables["duel"]
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            await asyncio.wait_for(table.ended.wait(), 10 * TIMEOUT)
    finally:
        await keeper.stop()
        await archive.close()
    assert archive.pending() == []
    ids = await stored(database)
    assert len(ids) == 1
    store = await Store.open(database)
    try:
        board = await store.leaderboard()
        assert {s.name for s in board} == {"alice", "Bot (medium)"}, board
        assert all(s.games == 1 for s in board)
    finally:
        await store.close()


async def test_a_game_noted_but_not_stored_before_a_kill_is_stored_once_on_restart(
    database: str, tmp_path: Path,
) -> None:
    records = stacks_records()
    paths = []
    for index, record in enumerate(records[:2]):
        paths.append(tmp_path / f"g{index}.json")
        write_record(paths[-1], record)
    folder = tmp_path / "pending"
    killed = Archive(database, folder)
    killed.expect(journal=None, record=paths[0])  # the server died right after this
    noted = killed.expect(journal=None, record=paths[1])
    await killed.store(noted)  # stored, and then killed before the note went? (it did go)
    killed.expect(journal=None, record=paths[1])  # the same game noted twice (resumed host)
    await killed.close()

    restarted = Archive(database, folder)
    try:
        assert len(restarted.pending()) == 2
        assert await restarted.drain() == 1  # the first game; the second was in already
        assert restarted.pending() == []
        assert await restarted.drain() == 0
    finally:
        await restarted.close()
    assert await stored(database) == {r["commit"].hex() for r in records[:2]}
    store = await Store.open(database)
    try:
        assert {s.fingerprint: s.games for s in await store.leaderboard()}["bot-medium"] == 1
    finally:
        await store.close()


def _dead_url(database: str, tmp_path: Path) -> str:
    if database.startswith("sqlite"):
        (tmp_path / "blocked").write_text("a file where the database's folder should be")
        return f"sqlite:///{tmp_path / 'blocked' / 'ratings.sqlite'}"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"postgresql://postgres@127.0.0.1:{port}/nothing"  # nobody listens there


async def test_a_database_that_is_down_keeps_the_games_and_takes_them_when_back(
    database: str, tmp_path: Path,
) -> None:
    record = stacks_records()[0]
    path = tmp_path / "g.json"
    write_record(path, record)
    news: list[str] = []
    archive = Archive(_dead_url(database, tmp_path), tmp_path / "pending", say=news.append)
    try:
        entry = archive.expect(journal=None, record=path)
        assert await archive.store(entry) is None
        assert archive.pending() == [entry] and archive.down is not None
        assert any("can't store games now" in n and "stored when it is back" in n
                   for n in news), news
        archive.url = database  # the database is back
        await archive.drain_now()
        assert archive.pending() == []
        assert any("is back" in n for n in news), news
    finally:
        await archive.close()
    assert await stored(database) == {record["commit"].hex()}


async def test_a_record_that_does_not_verify_is_set_aside_in_words(
    database: str, tmp_path: Path,
) -> None:
    record = stacks_records()[0]
    record["outcome"]["winner"] = None
    path = tmp_path / "g.json"
    write_record(path, record)
    news: list[str] = []
    archive = Archive(database, tmp_path / "pending", say=news.append)
    try:
        archive.expect(journal=None, record=path)
        assert await archive.drain() == 0
        assert archive.pending() == []
        assert any("can't be rated: it does not verify" in n for n in news), news
        assert list((tmp_path / "pending").glob("*.refused"))
    finally:
        await archive.close()
    assert await stored(database) == set()


async def test_the_players_of_a_held_table_are_told_when_the_database_is_down(
    tmp_path: Path,
) -> None:
    database = f"sqlite:///{tmp_path / 'ratings.sqlite'}"
    broker = AsyncMemoryBroker()
    archive = Archive(_dead_url(database, tmp_path), tmp_path / "pending")

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(linger=60, verify_wait=0.5),
                         record_path=lambda t, game: tmp_path / f"{t}.json", archive=archive)
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2, "bots": 1,
                                    "block_window": 0.2, "bot_delay": 0,
                                    "rules": {"win_chips": 3, "win_min_each_colour": 1}})
        table = keeper.tables["duel"]
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
            assert info["rated"] == ""  # nothing to say while the game is on
            deadline = asyncio.get_running_loop().time() + 10 * TIMEOUT
            while not table.rated:
                assert asyncio.get_running_loop().time() < deadline, "no word on the rating"
                await asyncio.sleep(0.05)
        # What a player's program asks over its link (tui/follow.py shows it).
        info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
        assert info["rated"].startswith("The server's ratings database is down (")
        assert info["rated"].endswith("the game is kept and rated when it is back.")
        assert info["rated_final"] is False  # the players' programs ask again
        assert len(archive.pending()) == 1  # kept

        # The table ends (its players may still be on the game-over box), then the
        # database comes back: the game is stored and the words say so, not "down".
        await keeper._end(table, "its game is over")
        info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
        assert not info["held"] and info["rated"].startswith("The server's ratings database")
        archive.url = database
        await archive.drain_now()
        assert archive.pending() == []
        await asyncio.wait(set(keeper._waiting), timeout=TIMEOUT)
        info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
        assert info["rated"] == RATED_YES and info["rated_final"] is True, info
    finally:
        await keeper.stop()
        await archive.close()


@contextlib.contextmanager
def sqlite_full(path: Path) -> Iterator[None]:
    """The SQLite database at ``path`` can't grow while this lasts: every connection made
    to it meanwhile is capped at the pages it has (``PRAGMA max_page_count``), so a write
    that needs one more fails as a full disk does ("database or disk is full")."""
    pages = sqlite3.connect(path).execute("PRAGMA page_count").fetchone()[0]

    def cap(dbapi_connection: Any, _record: Any) -> None:
        if "sqlite" in type(dbapi_connection).__module__:  # the test's one database
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA max_page_count = {int(pages)}")
            cursor.close()

    event.listen(Engine, "connect", cap)
    try:
        yield
    finally:
        event.remove(Engine, "connect", cap)


async def test_a_full_database_keeps_the_game_tells_the_players_and_takes_it_when_there_is_room(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("ratings.archive.RETRY_S", 0.2)
    path = tmp_path / "ratings.sqlite"
    database = f"sqlite:///{path}"
    await (await Store.open(database)).close()  # made, with its tables
    broker = AsyncMemoryBroker()
    news: list[str] = []
    archive = Archive(database, tmp_path / "pending", say=news.append)

    async def where() -> AsyncMemoryBroker:
        return broker

    keeper = TableKeeper(where, settings=KeeperSettings(linger=60, verify_wait=0.5),
                         say=news.append, record_path=lambda t, game: tmp_path / f"{t}.json",
                         archive=archive)
    try:
        with sqlite_full(path):
            await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2,
                                        "bots": 1, "block_window": 0.2, "bot_delay": 0,
                                        "rules": {"win_chips": 3, "win_min_each_colour": 1}})
            table = keeper.tables["duel"]
            async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
                deadline = asyncio.get_running_loop().time() + 10 * TIMEOUT
                while not table.rated:  # the game went on to its end
                    assert asyncio.get_running_loop().time() < deadline, "no word on it"
                    await asyncio.sleep(0.05)
            # The player is told in words, and the game is kept: its record and its note.
            info = await keeper.handle(ALICE, {"op": "info", "table": "duel"})
            assert info["rated"].startswith("The server's ratings database is full ("), info
            assert "database or disk is full" in info["rated"]
            assert info["rated"].endswith("the game is kept and rated when there is room "
                                          "again.")
            assert (tmp_path / "duel.json").exists() and len(archive.pending()) == 1
            assert any("can't store games now (" in n and "disk is full" in n
                       and n.endswith("stored when there is room again") for n in news), news
            assert await stored(database) == set()
            await asyncio.sleep(0.5)  # retries meanwhile find it full still
            assert len(archive.pending()) == 1 and await stored(database) == set()
        # Room again: the archive's next try stores it, once, and says so.
        deadline = asyncio.get_running_loop().time() + 10 * TIMEOUT
        while archive.pending():
            assert asyncio.get_running_loop().time() < deadline, news
            await asyncio.sleep(0.05)
        assert any("has room again: finished games are stored again" in n
                   for n in news), news
    finally:
        await keeper.stop()
        await archive.close()
    assert await stored(database) == {read_record(tmp_path / "duel.json")["commit"].hex()}


async def test_a_caller_cancelled_while_its_game_is_stored_never_cuts_the_store_short(
    database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session that ends cancels the adding of its game: the transaction still runs to
    its end (a transaction cut off in the driver could keep SQLite's write lock, and the
    next writer waited the 30 s busy timeout, idle, then failed "database is locked")."""
    records = stacks_records()
    paths = []
    for index, record in enumerate(records[:2]):
        paths.append(tmp_path / f"g{index}.json")
        write_record(paths[-1], record)
    inside = asyncio.Event()
    rate_next = Store._rate_next

    async def slow_rate_next(self: Store, conn: Any, game: Any) -> None:
        inside.set()
        await asyncio.sleep(0.2)  # the caller is cancelled here, mid-transaction
        await rate_next(self, conn, game)

    monkeypatch.setattr(Store, "_rate_next", slow_rate_next)
    archive = Archive(database, tmp_path / "pending")
    entry = archive.expect(journal=None, record=paths[0])
    caller = asyncio.create_task(archive.store(entry))
    await inside.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await archive.close()  # waits for the store to end
    monkeypatch.undo()
    assert await stored(database) == {records[0]["commit"].hex()}
    # The next writer gets in at once, and the game's note left behind counts once.
    again = Archive(database, tmp_path / "pending")
    try:
        again.expect(journal=None, record=paths[1])
        assert await asyncio.wait_for(again.drain(), 10) == 1
        assert again.pending() == []
    finally:
        await again.close()
    assert await stored(database) == {r["commit"].hex() for r in records[:2]}

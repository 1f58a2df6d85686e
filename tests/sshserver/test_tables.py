"""Tables held by the ssh server (sshserver/tables.py), in process on a memory broker:
what a session may ask for, who may fill or close a table, and what ends one."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest

from netplay.codec import decode
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import BotPeer, Player
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tests.support import wait_until_async
from tests.tui.conftest import TIMEOUT
from tui.serve_link import LinkError, ServeLink, serve_link

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")
BOB = Caller("ssh-bbbbbbbbbbbbbbbb", "bob", "ssh -t -p 2222 game.example")


def _keeper(broker: AsyncMemoryBroker, tmp_path: Path, **settings: Any) -> TableKeeper:
    async def where() -> AsyncMemoryBroker:
        return broker

    news: list[str] = []
    keeper = TableKeeper(where, settings=KeeperSettings(**settings), say=news.append,
                         record_path=lambda table, game: tmp_path / f"{table}.json")
    keeper.news = news  # type: ignore[attr-defined]
    return keeper


@pytest.mark.parametrize(("request_", "words"), [
    ({"table": "Friday"}, "lower-case letters"),
    ({"table": "x" * 33}, "1-32"),
    ({"table": ""}, "1-32"),
    ({}, "names no table"),
    ({"table": "ok", "players": True}, "whole number"),
    ({"table": "ok", "players": 7}, "players, not 7"),
    ({"table": "ok", "players": 3, "bots": 3}, "no seat for you"),
    ({"table": "ok", "block_window": 0}, "block window"),
    ({"table": "ok", "block_window": float("nan")}, "number of seconds"),
    ({"table": "ok", "password": ""}, "password"),
    ({"table": "ok", "rules": {"nope": 1}}, "unknown rule setting"),
    ({"table": "ok", "rules": []}, "must be a map"),
])
async def test_a_request_that_makes_no_sense_is_refused_in_words(
    tmp_path: Path, request_: dict[str, Any], words: str
) -> None:
    keeper = _keeper(AsyncMemoryBroker(), tmp_path)
    reply = await keeper.handle(ALICE, {"op": "open", **request_})
    assert reply["ok"] is False and words in reply["error"], reply
    assert keeper.tables == {}
    assert (await keeper.handle(ALICE, {"op": "sing"}))["error"] == "unknown request 'sing'"


async def test_the_server_hosts_the_table_and_only_its_creator_fills_or_closes_it(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path)
    try:
        reply = await keeper.handle(ALICE, {"op": "open", "table": "friday", "players": 3,
                                            "bots": 1, "block_window": 0.3, "bot_delay": 0})
        table = keeper.tables["friday"]
        assert reply == {"ok": True, "table": "friday", "broker": "memory",
                         "ssh": "ssh -t -p 2222 game.example join friday", "status": "lobby",
                         "host": table.host.identity.peer_id}
        assert table.creator == ALICE.profile and table.empty_seats() == [0, 1]
        again = await keeper.handle(BOB, {"op": "open", "table": "friday"})
        assert "already open" in again["error"]
        # Bob may not fill or close Alice's table; nobody can touch a table that isn't there.
        for op in ("fill", "close"):
            refused = await keeper.handle(BOB, {"op": op, "table": "friday"})
            assert "opened by alice" in refused["error"]
            assert "no table named 'nope'" in (await keeper.handle(
                ALICE, {"op": op, "table": "nope"}))["error"]
        async with Player(Identity.generate(), "friday", "alice", broker=broker) as alice:
            await wait_until_async(lambda: alice.seat == 0, "alice's seat")
            assert (await keeper.handle(ALICE, {"op": "fill", "table": "friday"})) == {
                "ok": True, "bots": 1}
            await wait_until_async(lambda: alice.view is not None, "the game to start")
            mid = await keeper.handle(ALICE, {"op": "close", "table": "friday"})
            assert "ends with its game" in mid["error"]
            assert "friday" in keeper.tables
    finally:
        await keeper.stop()
    assert keeper.tables == {}
    assert "alice opened table friday (3 seats, 1 bot)" in keeper.news  # type: ignore[attr-defined]


async def test_the_creator_closes_the_lobby_and_the_announcement_goes(tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path)
    await keeper.handle(ALICE, {"op": "open", "table": "friday", "players": 2})
    topic = "sstacks/v1/friday/announce"
    await wait_until_async(lambda: broker.retained.get(topic), "the table's announcement")
    assert (await keeper.handle(ALICE, {"op": "close", "table": "friday"})) == {"ok": True}
    assert keeper.tables == {}
    await wait_until_async(lambda: decode(broker.retained[topic]).body["status"] == "closed",
                           "the table's closed announcement")
    assert "table friday closed: closed by alice" in keeper.news  # type: ignore[attr-defined]


async def test_a_lobby_nobody_sits_in_closes_after_the_timeout_but_not_while_someone_does(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path, lobby_timeout=1.5)
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "friday", "players": 3})
        table = keeper.tables["friday"]
        async with Player(Identity.generate(), "friday", "alice", broker=broker) as alice:
            await wait_until_async(lambda: alice.seat == 0, "alice's seat")
            # The thing under test is an absence: nothing closes the table for longer than
            # its lobby timeout (1.5 s) while alice sits there; no state to wait for.
            await asyncio.sleep(2.5)
            assert "friday" in keeper.tables
        # Alice has gone (her seat stays hers): nobody is there any more.
        await asyncio.wait_for(table.ended.wait(), TIMEOUT)
        assert table.why == "nobody in its lobby for 0.025 min"
    finally:
        await keeper.stop()


async def test_a_finished_table_stays_a_while_then_ends_and_its_record_is_written(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path, linger=0.5, verify_wait=0.5)
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2, "bots": 1,
                                    "block_window": 0.2, "bot_delay": 0})
        table = keeper.tables["duel"]
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            await asyncio.wait_for(table.ended.wait(), 10 * TIMEOUT)
        assert table.why == "its game is over"
        assert (tmp_path / "duel.json").exists()
        assert keeper.tables == {}
    finally:
        await keeper.stop()


async def test_a_session_asks_over_its_link_and_the_server_knows_who_asks(
    tmp_path: Path,
) -> None:
    keeper = _keeper(AsyncMemoryBroker(), tmp_path)
    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, lambda req: keeper.handle(ALICE, req)))
    link = ServeLink(theirs.fileno(), ALICE.ssh)
    try:
        reply = await link.request("open", table="friday", players=2)
        assert reply["ssh"] == "ssh -t -p 2222 game.example join friday"
        # A request can't claim to come from someone else: the server ignores such words.
        with pytest.raises(LinkError, match="already open"):
            await link.request("open", table="friday", profile=BOB.profile)
        assert keeper.tables["friday"].creator == ALICE.profile
        assert link.join_command("friday") == "ssh -t -p 2222 game.example join friday"
    finally:
        link.close()
        theirs.close()
        await asyncio.wait_for(server, TIMEOUT)  # the program's end closing ends the server's
        await keeper.stop()


async def test_garbage_on_the_link_gets_an_error_and_the_link_goes_on(tmp_path: Path) -> None:
    keeper = _keeper(AsyncMemoryBroker(), tmp_path)
    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, lambda req: keeper.handle(ALICE, req)))
    reader, writer = await asyncio.open_unix_connection(sock=theirs)
    try:
        for garbage in (b"{nope\n", b"[1, 2]\n", b"\xff\xfe\n"):
            writer.write(garbage)
            line = await asyncio.wait_for(reader.readline(), TIMEOUT)
            assert b"malformed request" in line
        writer.write(b'{"op": "fill", "table": "friday"}\n')
        assert b"no table named" in await asyncio.wait_for(reader.readline(), TIMEOUT)
    finally:
        writer.close()
        await asyncio.wait_for(server, TIMEOUT)
        await keeper.stop()


async def test_a_stopped_server_s_table_comes_back_with_its_bots_and_plays_to_the_end(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    journals = tmp_path / "journals"
    first = _keeper(broker, tmp_path, journals=journals, verify_wait=2.0, linger=0.2)
    await first.handle(ALICE, {"op": "open", "table": "friday", "players": 3, "bots": 1,
                               "block_window": 0.2, "bot_delay": 0.05})
    table = first.tables["friday"]
    key = table.host.identity.key
    alice = BotPeer(Identity.generate(), "friday", broker=broker, name="alice", think=0.05)
    async with alice:
        await wait_until_async(lambda: alice.seat == 0, "alice's seat")
        assert (await first.handle(ALICE, {"op": "fill", "table": "friday"}))["bots"] == 1
        await wait_until_async(lambda: len(table.host.host.batches) >= 4, "a few batches")
        await first.stop()  # the server stops mid-game: the table is kept, not ended
        played = len(table.host.host.batches)
        assert "table friday stopped: the server stopped" in " ".join(first.news)  # type: ignore[attr-defined]

        second = _keeper(broker, tmp_path, journals=journals, verify_wait=2.0, linger=0.2)
        try:
            assert await second.resume_all() == ["friday"]
            back = second.tables["friday"]
            assert back.host.identity.key == key and back.creator == ALICE.profile
            assert len(back.host.host.batches) >= played
            assert len(back.bots) == 1  # the bot alice asked for is back at its seat
            assert any(line.startswith("resumed table friday at batch")
                       for line in second.news)  # type: ignore[attr-defined]
            await asyncio.wait_for(back.ended.wait(), 10 * TIMEOUT)
            assert back.why == "its game is over"
            assert back.host.host.over
            # Every seat played itself after the restart: no stand-in was needed.
            assert not any(batch.standin for batch in back.host.host.batches[played:])
            assert all(verdict["ok"] for verdict in back.host.host.verdicts.values())
        finally:
            await second.stop()
    # It ended with its game: a third server has nothing to resume.
    third = _keeper(broker, tmp_path, journals=journals)
    assert await third.resume_all() == []


async def test_a_closed_table_is_never_resumed(tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    journals = tmp_path / "journals"
    first = _keeper(broker, tmp_path, journals=journals)
    await first.handle(ALICE, {"op": "open", "table": "gone", "players": 2})
    await first.handle(ALICE, {"op": "open", "table": "kept", "players": 2})
    assert (await first.handle(ALICE, {"op": "close", "table": "gone"}))["ok"]
    await first.stop()
    second = _keeper(broker, tmp_path, journals=journals)
    try:
        assert await second.resume_all() == ["kept"]
        assert second.tables["kept"].creator == ALICE.profile
        # The creator still owns it after the restart: bob can't close it, alice can.
        assert "opened by alice" in (await second.handle(
            BOB, {"op": "close", "table": "kept"}))["error"]
        assert (await second.handle(ALICE, {"op": "close", "table": "kept"}))["ok"]
    finally:
        await second.stop()


async def test_after_a_restart_an_absent_player_gets_the_whole_grace_before_a_stand_in(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    journals = tmp_path / "journals"
    first = _keeper(broker, tmp_path, journals=journals)
    await first.handle(ALICE, {"op": "open", "table": "duel", "players": 2, "bots": 1,
                               "block_window": 0.2, "bot_delay": 0})
    table = first.tables["duel"]
    async with Player(Identity.generate(), "duel", "alice", broker=broker) as alice:
        await wait_until_async(lambda: alice.view is not None, "the game to start")
        await wait_until_async(lambda: table.host.host.game is not None
                               and table.host.host.game.state.current == 0, "alice's turn")
        await first.stop()
    second = _keeper(broker, tmp_path, journals=journals)
    try:
        assert await second.resume_all() == ["duel"]
        back = second.tables["duel"]
        played = len(back.host.host.batches)
        # The thing under test is an absence: alice is away and for a while (1.5 s of her
        # 20 s grace) her turn waits, no bot takes her seat; no state to wait for.
        await asyncio.sleep(1.5)
        assert back.host.host.seats[0] is not None and back.host.host.seats[0].standin is None
        assert len(back.host.host.batches) == played
    finally:
        await second.stop()


async def test_the_creator_asks_for_the_next_game_at_a_finished_table(tmp_path: Path) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path, linger=60.0, verify_wait=0.5)
    request = {"op": "open", "table": "duel", "players": 2, "bots": 1, "block_window": 0.2,
               "bot_delay": 0}
    try:
        await keeper.handle(ALICE, request)
        first = keeper.tables["duel"]
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            await wait_until_async(lambda: first.host.host.over, "the game's end")
        assert "already open" in (await keeper.handle(BOB, request))["error"]
        assert (await keeper.handle(ALICE, request))["ok"]
        second = keeper.tables["duel"]
        assert second is not first and first.why == "its creator started the next game"
        # A new host key: players' "join the next game" skips the old game's host.
        assert second.host.identity.key != first.host.identity.key
    finally:
        await keeper.stop()


async def test_a_host_that_dies_on_a_bug_is_brought_back_from_its_journal(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path, journals=tmp_path / "journals", verify_wait=1.0,
                     linger=0.2)
    await keeper.handle(ALICE, {"op": "open", "table": "duel", "players": 2, "bots": 1,
                                "block_window": 0.2, "bot_delay": 0.02})
    first = keeper.tables["duel"]
    try:
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice",
                           think=0.02) as alice:
            await wait_until_async(lambda: len(first.host.host.batches) >= 3, "a few batches")

            def boom(now: float) -> None:
                raise RuntimeError("a bug in the host")

            first.host.host.tick = boom  # type: ignore[method-assign]
            await wait_until_async(lambda: keeper.tables.get("duel") not in (None, first),
                                   "the table to come back")
            back = keeper.tables["duel"]
            assert back.restarts == 1 and back.host.identity.key == first.host.identity.key
            assert "a bug in the host" in first.why
            await asyncio.wait_for(back.ended.wait(), 10 * TIMEOUT)
            assert back.why == "its game is over"
            assert alice.verified.is_set()
    finally:
        await keeper.stop()


async def test_a_reply_that_comes_after_its_request_timed_out_is_not_taken_for_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server answered a slow request late; the program had given up on it and asked
    something else: it must get the answer to what it asked now, not the stale one."""
    monkeypatch.setattr("tui.serve_link.REPLY_WAIT", 0.3)
    first_done = asyncio.Event()
    release = asyncio.Event()

    async def handle(request: dict[str, Any]) -> dict[str, Any]:
        if request["op"] == "slow":
            await release.wait()
            first_done.set()
            return {"ok": True, "answer": "slow"}
        return {"ok": True, "answer": request["op"]}

    ours, theirs = socket.socketpair()
    server = asyncio.create_task(serve_link(ours, handle))
    link = ServeLink(theirs.fileno())
    try:
        with pytest.raises(LinkError, match="did not answer in time"):
            await link.request("slow")
        release.set()
        await asyncio.wait_for(first_done.wait(), TIMEOUT)  # its late reply is on the way
        reply = await asyncio.wait_for(link.request("info"), TIMEOUT)
        assert reply["answer"] == "info"
        assert (await asyncio.wait_for(link.request("fill"), TIMEOUT))["answer"] == "fill"
    finally:
        link.close()
        theirs.close()
        await asyncio.wait_for(server, TIMEOUT)


async def test_the_creator_back_with_join_rematches_with_the_bots_it_seated(
    tmp_path: Path,
) -> None:
    """The settings a creator coming back with `join TABLE` rematches with count the bots it
    seated with Ctrl+B (``fill``) too, as its own rematch does."""
    broker = AsyncMemoryBroker()
    keeper = _keeper(broker, tmp_path)
    try:
        await keeper.handle(ALICE, {"op": "open", "table": "friday", "players": 4,
                                    "bots": 1, "block_window": 0.3, "bot_delay": 0})
        info = await keeper.handle(ALICE, {"op": "info", "table": "friday"})
        assert info["settings"]["bots"] == 1
        async with Player(Identity.generate(), "friday", "alice", broker=broker) as alice:
            await wait_until_async(lambda: alice.seat == 0, "alice's seat")
            assert (await keeper.handle(ALICE, {"op": "fill", "table": "friday"}))["bots"] == 2
            info = await keeper.handle(ALICE, {"op": "info", "table": "friday"})
            assert info["settings"]["bots"] == 3
            assert info["settings"]["players"] == 4
    finally:
        await keeper.stop()

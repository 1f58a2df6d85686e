"""One spectator program per watched table, its screen sent to every browser visitor: the
web server in this process, a stand-in program (tests/webserver/fake_view.py) in place of
``stacks watch --kiosk``, and websocket clients that decode what they receive through a
terminal emulator.

What a visitor relies on: every visitor of a table sees the same screen, a late one the
whole of it at once; the program starts with the first visitor and stops a while after
the last; a table that ends while watched is said to have ended; the cap and the idle
close hold for each visitor; a visitor's keys reach nobody; a visitor who leaves is one
line."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import aiohttp
import pyte
import pytest

from netplay.lobby import TableInfo
from tests.support import wait_until_async
from webserver.server import WebServer, WebSettings

pytestmark = pytest.mark.asyncio

FAKE = str(Path(__file__).with_name("fake_view.py"))
TIMEOUT = 30.0


def _table(name: str, status: str = "playing") -> TableInfo:
    return TableInfo(table=name, name=name, broker="mqtt://127.0.0.1:1", players=2,
                     seated=("Ann", "Bo"), free=0, status=status, password=False)


class _Tables:
    """The tables the server is told of (a broker's, in the real thing)."""

    def __init__(self, *names: str) -> None:
        self.open = {name: _table(name) for name in names}

    async def __call__(self) -> list[TableInfo]:
        return list(self.open.values())


@asynccontextmanager
async def _server(tmp_path: Path, tables: _Tables, **settings: object) -> AsyncIterator[
        tuple[WebServer, list[str]]]:
    lines: list[str] = []
    base = WebSettings(port=0, command=(sys.executable, FAKE), home=tmp_path / "home",
                       list_fresh=0.1, idle_timeout=0)
    server = WebServer(replace(base, **settings),  # type: ignore[arg-type]
                       tables=tables, broker=lambda: "mqtt://127.0.0.1:1", say=lines.append)
    await server.start()
    try:
        yield server, lines
    finally:
        await server.stop()


class _Visitor:
    """A browser-like visitor: its websocket, and a terminal of the table's size that
    draws what it receives."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.screen = pyte.Screen(120, 40)
        self.stream = pyte.ByteStream(self.screen)
        self.messages: list[bytes] = []
        self.closed: tuple[int | None, str] | None = None
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            message = await self.ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                self.messages.append(message.data)
                self.stream.feed(message.data)
            elif message.type != aiohttp.WSMsgType.TEXT:
                self.closed = (self.ws.close_code, str(message.extra or ""))
                return

    def row(self, y: int) -> str:
        return str(self.screen.display[y]).rstrip()

    async def shows(self, pattern: str) -> str:
        async def matched() -> str | None:
            text = "\n".join(self.screen.display)
            return text if re.search(pattern, text) else None

        return await wait_until_async(matched, f"the visitor's screen to show {pattern!r}",
                                      TIMEOUT, interval=0.02,
                                      diagnostics=lambda: "\n".join(self.screen.display))

    async def closed_with(self) -> tuple[int | None, str]:
        await asyncio.wait_for(self.reader, TIMEOUT)
        assert self.closed is not None
        return self.closed


async def _visit(http: aiohttp.ClientSession, server: WebServer, table: str) -> _Visitor:
    return _Visitor(await http.ws_connect(f"{server.url}table/{table}/ws"))


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _frame(visitor: _Visitor) -> int:
    found = re.search(r"frame (\d+)", visitor.row(0))
    return int(found.group(1)) if found else -1


async def test_the_visitors_of_a_table_share_one_program_and_a_late_one_gets_the_whole_screen(
    tmp_path: Path,
) -> None:
    keys = tmp_path / "keys"
    os.environ["FAKE_VIEW_KEYS"] = str(keys)
    try:
        async with _server(tmp_path, _Tables("friday", "sunday")) as (server, lines), \
                aiohttp.ClientSession() as http:
            first, second = [await _visit(http, server, "friday") for _ in range(2)]
            await first.shows(r"frame \d+")
            await second.shows(r"frame \d+")
            [stage] = server.stages.values()
            pid = stage.program.pid
            assert _alive(pid)
            # A visitor's keys, clicks and size reach nobody: the view is the table's.
            await first.ws.send_str(json.dumps(["stdin", "q"]))
            await first.ws.send_str(json.dumps(["resize", {"width": 300, "height": 100}]))
            # A late visitor's first message is the whole screen, not a change to it.
            await asyncio.sleep(0.3)
            late = await _visit(http, server, "friday")
            await wait_until_async(lambda: late.messages, "the late visitor's first message",
                                   TIMEOUT)
            whole = pyte.Screen(120, 40)
            pyte.ByteStream(whole).feed(late.messages[0])
            assert re.match(r"frame \d+", whole.display[0]), whole.display[:3]
            assert whole.display[2].startswith("-Players-"), whole.display[:3]
            assert whole.buffer[2][1].bold and whole.buffer[2][1].fg == "e0e0e0"
            # All three follow the same program, frame after frame.
            now = _frame(first)
            for visitor in (first, second, late):
                await visitor.shows(rf"frame 0*{now + 5}\b|frame 0*{now + 6}\b")
            assert [s.program.pid for s in server.stages.values()] == [pid]
            # Another table: a program of its own.
            other = await _visit(http, server, "sunday")
            await other.shows(r"frame \d+")
            assert len({s.program.pid for s in server.stages.values()}) == 2
            assert not keys.exists() or keys.read_bytes() == b""
            for visitor in (first, second, late, other):
                await visitor.ws.close()
        started = [line for line in lines if "started for the web page" in line]
        assert len(started) == 2 and "(120x40, pid" in started[0], lines
    finally:
        del os.environ["FAKE_VIEW_KEYS"]


async def test_a_tables_program_starts_with_its_first_visitor_and_stops_a_while_after_its_last(
    tmp_path: Path,
) -> None:
    async with _server(tmp_path, _Tables("friday"), linger=3.0) as (server, lines), \
            aiohttp.ClientSession() as http:
        assert server.stages == {}
        visitor = await _visit(http, server, "friday")
        await visitor.shows(r"frame \d+")
        pid = server.stages["friday"].program.pid
        await visitor.ws.close()
        # Back within the linger: the same program, its screen at once.
        again = await _visit(http, server, "friday")
        await again.shows(r"frame \d+")
        assert server.stages["friday"].program.pid == pid
        await again.ws.close()
        await wait_until_async(lambda: not _alive(pid), "the program to stop", TIMEOUT)
        assert server.stages == {}
        # Said once the program has gone (the line may follow its exit by a moment).
        await wait_until_async(
            lambda: any(re.search(r"spectator of table friday stopped: nobody watched it "
                                  r"for 3 s", line) for line in lines),
            "the stop said in the log", TIMEOUT)
        # The next visitor starts a new one.
        last = await _visit(http, server, "friday")
        await last.shows(r"frame \d+")
        assert server.stages["friday"].program.pid != pid
        await last.ws.close()

        def left() -> int:
            return sum("watched table friday" in line and ": left (" in line for line in lines)

        # Each visitor who closed its socket is a line that says it left (the server says
        # it once it has seen the close: wait for that, not for the server to stop).
        await wait_until_async(lambda: left() >= 3, "three visitors' leaving said", TIMEOUT)
    assert left() == 3, lines


async def test_a_table_that_ends_while_watched_tells_its_visitors(tmp_path: Path) -> None:
    tables = _Tables("friday", "sunday")
    end = tmp_path / "end"
    os.environ["FAKE_VIEW_END"] = str(end)
    try:
        async with _server(tmp_path, tables, ended_grace=0.5) as (server, lines), \
                aiohttp.ClientSession() as http:
            visitors = [await _visit(http, server, "friday") for _ in range(3)]
            for visitor in visitors:
                await visitor.shows(r"frame \d+")
            pid = server.stages["friday"].program.pid
            del tables.open["friday"]  # its host has stopped: no longer listed
            for visitor in visitors:
                code, words = await visitor.closed_with()
                assert code == 4000 and "Table friday has ended" in words, (code, words)
            await wait_until_async(lambda: not _alive(pid), "the program to stop", TIMEOUT)
            # A program that ends by itself while its table is still listed: said so too.
            watcher = await _visit(http, server, "sunday")
            await watcher.shows(r"frame \d+")
            end.touch()
            code, words = await watcher.closed_with()
            assert code == 4003 and "Reload the page" in words, (code, words)
        ends = [line for line in lines if "watched table" in line]
        assert len(ends) == 4 and all(": the view ended (" in line for line in ends), lines
        assert any("friday stopped: the table has ended (3 visitors watching told so)" in line
                   for line in lines), lines
    finally:
        del os.environ["FAKE_VIEW_END"]


async def test_the_cap_and_the_idle_close_hold_for_each_visitor(tmp_path: Path) -> None:
    async with _server(tmp_path, _Tables("friday"), max_visitors=2,
                       idle_timeout=1.5) as (server, lines), aiohttp.ClientSession() as http:
        idle, busy = [await _visit(http, server, "friday") for _ in range(2)]
        await idle.shows(r"frame \d+")
        refused = await _visit(http, server, "friday")
        code, words = await refused.closed_with()
        assert code == 4001 and "This page is full" in words

        async def press() -> None:
            while True:
                await busy.ws.send_str(json.dumps(["stdin", " "]))
                await asyncio.sleep(0.3)

        pressing = asyncio.create_task(press())
        try:
            code, words = await idle.closed_with()
            assert code == 4002 and "without a key press or click" in words
            await asyncio.sleep(1.0)
            assert busy.closed is None  # the one who presses keys stays
            await busy.shows(r"frame \d+")
        finally:
            pressing.cancel()
        await busy.ws.close()
    assert any("closed as idle (1 of 2 now)" in line for line in lines), lines
    assert any("turned away from table friday: full (2 of 2)" in line for line in lines)


async def test_a_visitor_who_leaves_in_the_middle_of_anything_has_left(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with _server(tmp_path, _Tables("friday")) as (server, lines), \
            aiohttp.ClientSession() as http:
        for _ in range(5):
            visitor = await _visit(http, server, "friday")
            await visitor.shows(r"frame \d+")
            for n in range(50):
                await visitor.ws.send_str(json.dumps(["ping", f"p{n}"]))
            transport = visitor.ws._response.connection.transport  # type: ignore[union-attr]
            assert transport is not None
            transport.abort()  # gone without a close, pongs and frames on their way

        def ended() -> list[str]:
            return [line for line in lines if "watched table" in line]

        await wait_until_async(lambda: len(ended()) == 5 or None, "the 5 visitors' ends",
                               TIMEOUT)
    assert all(": left (" in line for line in ended()), lines
    assert "Traceback" not in caplog.text and "failed" not in caplog.text, caplog.text

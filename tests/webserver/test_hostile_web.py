"""The web page under attack: many visitors at the same moment get no more views than its
cap, and one program for their table; an over-long request is a 4xx and one line, never a
traceback; a visitor's size and keys change nothing of the table's view; a visitor who
leaves in the middle of a ping has left (one line, no traceback); and the table page says
it is connecting until the terminal draws."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
import pyte

from stacks.bench.browser import Chromium, wait_for_body, wait_for_text
from tests.support import SCALE, wait_until, wait_until_async
from tests.webserver.conftest import TIMEOUT, Table, Web

CLOSE_FULL = 4001
MAX_WIDTH, MAX_HEIGHT = 300, 100


def _kiosks(broker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--kiosk" in argv and broker.encode() in argv:
            found.append(int(entry.name))
    return found


async def _listed(http: aiohttp.ClientSession, server: Web, table: Table) -> None:
    """Wait until the page lists the table (its host has announced it)."""

    async def listed() -> bool:
        async with http.get(f"{server.url}tables.json") as reply:
            return any(t["table"] == table.name and re.match(r"lobby|playing", t["status"])
                       for t in (await reply.json())["tables"])

    await wait_until_async(listed, "the page to list the table", TIMEOUT / SCALE, interval=0.3)


def _no_traceback(server: Web) -> None:
    said = "\n".join(server.lines())
    assert "Traceback" not in said and "Error handling request" not in said, said


def test_visitors_at_the_same_moment_get_no_more_views_than_the_cap(
        table: Table, web: Callable[..., Web]) -> None:
    server = web("--broker", table.broker, "--max-spectators", "3")
    url = f"{server.url}table/{table.name}/ws"

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            await _listed(http, server, table)
            await asyncio.sleep(3.5)  # the listing is old: each visitor waits for a new one
            sockets = await asyncio.gather(*(http.ws_connect(url) for _ in range(10)))
            try:
                async def first(ws: aiohttp.ClientWebSocketResponse) -> bool:
                    """Whether the visitor got a view (its first message is not the close)."""
                    message = await ws.receive(TIMEOUT)
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                        assert ws.close_code == CLOSE_FULL, (ws.close_code, message)
                        return False
                    return True

                views = await asyncio.gather(*(first(ws) for ws in sockets))
                assert sum(views) == 3, views
                assert len(_kiosks(table.broker)) == 1  # one table: one program
            finally:
                await asyncio.gather(*(ws.close() for ws in sockets))

    asyncio.run(scenario())
    lines = server.lines()
    assert sum("turned away from table" in line for line in lines) == 7, lines
    _no_traceback(server)


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as sock:
        sock.sendall(request)
        got = b""
        while chunk := sock.recv(65536):
            got += chunk
        return got


def test_an_over_long_request_is_a_4xx_and_one_line(mosquitto: str,
                                                   web: Callable[..., Web]) -> None:
    server = web("--broker", mosquitto)
    port = int(server.url.rsplit(":", 1)[1].strip("/"))
    long_line = b"GET /" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    long_header = b"GET / HTTP/1.1\r\nHost: x\r\nX-Junk: " + b"b" * 20_000 + b"\r\n\r\n"
    many = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-A: b\r\n" * 5_000 + b"\r\n"
    for request in (long_line, long_header, many):
        answer = _raw(port, request)
        status = int(answer.split(b" ", 2)[1])
        assert 400 <= status < 500, answer[:200]
    # The log is written after the answer: the three lines, when they are all there.
    wait_until(lambda: len([line for line in server.lines() if "refused:" in line]) >= 3,
               "the server to log the 3 refusals", TIMEOUT / SCALE, interval=0.1,
               diagnostics=lambda: "\n".join(server.lines()))
    refused = [line for line in server.lines() if "refused:" in line]
    assert len(refused) == 3, server.lines()
    assert not any("aaaa" in line or "bbbb" in line for line in refused), refused
    _no_traceback(server)


def test_a_visitors_size_and_keys_change_nothing_of_the_tables_view(
        table: Table, web: Callable[..., Web]) -> None:
    server = web("--broker", table.broker)
    url = f"{server.url}table/{table.name}/ws?width=1000&height=1000"

    async def scenario() -> tuple[pyte.Screen, int]:
        async with aiohttp.ClientSession() as http:
            await _listed(http, server, table)
            ws = await http.ws_connect(url)
            screen = pyte.Screen(MAX_WIDTH, MAX_HEIGHT)
            stream = pyte.ByteStream(screen)
            got = 0
            deadline = time.monotonic() + TIMEOUT
            while got < 2000:  # the view's first screen
                message = await ws.receive(max(0.1, deadline - time.monotonic()))
                assert message.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT)
                if message.type == aiohttp.WSMsgType.BINARY:
                    stream.feed(message.data)
                got += len(message.data)
            began = time.monotonic()
            total = 0
            for _ in range(20):
                await ws.send_str(json.dumps(["resize", {"width": 1000, "height": 1000}]))
                await ws.send_str(json.dumps(["resize", {"width": 999, "height": 999}]))
                await ws.send_str(json.dumps(["stdin", "q"]))  # no key leaves the table
            while time.monotonic() - began < 6:
                try:
                    message = await ws.receive(0.5)
                except TimeoutError:
                    continue
                if message.type == aiohttp.WSMsgType.BINARY:
                    stream.feed(message.data)
                    total += len(message.data)
                elif message.type != aiohttp.WSMsgType.TEXT:
                    raise AssertionError(f"the view closed: {message}")
            await ws.close()
            return screen, total

    screen, sent = asyncio.run(scenario())
    # Drawn at the table's size (120x40), whatever size the visitor asked for.
    assert table.name in screen.display[0], screen.display[:3]
    assert all(row[120:].strip() == "" for row in screen.display), screen.display[:3]
    assert all(row.strip() == "" for row in screen.display[40:])
    # The table's changes, no screen redrawn for each resize (unbounded: 32 MB).
    assert sent < 2_000_000, sent
    assert len(_kiosks(table.broker)) == 1
    _no_traceback(server)


def test_a_visitor_who_leaves_during_a_ping_has_left(
        table: Table, web: Callable[..., Web]) -> None:
    server = web("--broker", table.broker)
    url = f"{server.url}table/{table.name}/ws"

    async def leave_in_a_ping() -> None:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(url)
            await ws.receive(TIMEOUT)  # the view is on
            for n in range(50):
                await ws.send_str(json.dumps(["ping", f"p{n}"]))
            # Gone without a close: the server's pong meets a closing transport.
            transport = ws._response.connection.transport  # type: ignore[union-attr]
            assert transport is not None
            transport.abort()

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            await _listed(http, server, table)
        for _ in range(5):
            await leave_in_a_ping()

    asyncio.run(scenario())
    wait_until(lambda: len([line for line in server.lines() if "watched table" in line]) >= 5,
               "the server to log the 5 visitors' ends", TIMEOUT / SCALE, interval=0.1,
               diagnostics=lambda: "\n".join(server.lines()))
    ends = [line for line in server.lines() if "watched table" in line]
    assert all(": left (" in line for line in ends), server.lines()
    _no_traceback(server)


def test_the_table_page_says_connecting_until_the_terminal_draws(
        table: Table, web: Callable[..., Web], browser: Chromium) -> None:
    server = web("--broker", table.broker)

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            await _listed(http, server, table)
        page = await browser.new_page()
        try:
            await page.open(f"{server.url}table/{table.name}")
            before = await wait_for_body(page, r"Connecting", TIMEOUT)
            assert "Players" not in before
            screen = await wait_for_text(page, r"Players|Seats", TIMEOUT)
            assert screen

            async def connected() -> bool:
                return "Connecting" not in await page.body_text()

            await wait_until_async(connected, "the page to stop saying it is connecting",
                                   TIMEOUT / SCALE, interval=0.1)
        finally:
            await page.close()

    asyncio.run(scenario())

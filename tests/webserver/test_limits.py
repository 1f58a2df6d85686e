"""The limits of a public page: a cap on browser spectators, idle views closed, one log
line per visitor, and the words a visitor reads on the page."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import aiohttp

from stacks.bench.browser import Chromium, wait_for_body, wait_for_text
from tests.support import SCALE, wait_until_async
from tests.webserver.conftest import TIMEOUT, Table, Web


def _kiosks(broker: str) -> list[int]:
    """The pids of the tables' programs (`stacks watch ... --kiosk` on ``broker``)."""
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


def test_a_full_page_turns_visitors_away_in_words_and_an_idle_view_is_closed(
    table: Table, web: Callable[..., Web], browser: Chromium,
) -> None:
    server = web("--broker", table.broker, "--max-spectators", "1", "--idle-timeout", "0.1",
                 "--linger", "0")
    page_url = f"{server.url}table/{table.name}"

    async def scenario() -> None:
        first = await browser.new_page()
        second = await browser.new_page()
        try:
            await first.open(server.url)
            await wait_for_body(first, rf"{table.name}\s+(lobby|playing)", TIMEOUT)
            await first.open(page_url)
            await wait_for_text(first, r"Players|Seats", TIMEOUT)
            assert len(_kiosks(table.broker)) == 1
            # The one place is taken: a second visitor reads why.
            await second.open(page_url)
            words = await wait_for_body(second, r"This page is full", TIMEOUT)
            assert "1 browser spectator already watch" in words
            server.wait_line(r"web visitor from 127\.0\.0\.1 turned away from table "
                             rf"{table.name}: full \(1 of 1\)")
            async with aiohttp.ClientSession() as http, \
                    http.ws_connect(f"{page_url}/ws") as ws:  # a socket straight in
                message = await ws.receive(TIMEOUT)
                assert message.type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == 4001 and "full" in str(message.extra)
            assert len(_kiosks(table.broker)) == 1
            await second.open(server.url)
            await wait_for_body(second, r"1 of 1 browser spectator places in use\. The "
                                r"page is full", TIMEOUT)
            # Nobody touches the first page: after 6 s it is closed, in words.
            try:
                words = await wait_for_body(first, r"without a key press or click", TIMEOUT)
            except AssertionError as exc:  # (once in CI: closed with no words at all)
                said = "\n".join(server.lines()[-30:])
                raise AssertionError(f"{exc}\nthe web server's log:\n{said}") from None
            assert "Reload the page to watch again" in words
            server.wait_line(rf"web visitor from 127\.0\.0\.1 watched table {table.name} "
                             r"for \d+ s: closed as idle \(0 of 1 now\)")
            # Nobody watches the table now: its program is gone too (--linger 0).
            await wait_until_async(lambda: not _kiosks(table.broker),
                                   "the table's program to end", TIMEOUT / SCALE,
                                   interval=0.1)
            # The place is free again: the second visitor gets in.
            await second.open(page_url)
            await wait_for_text(second, r"Players|Seats", TIMEOUT)
            assert len(_kiosks(table.broker)) == 1
        finally:
            await first.close()
            await second.close()

    asyncio.run(scenario())


def test_a_table_that_is_not_open_is_said_so(mosquitto: str, web: Callable[..., Web]) -> None:
    server = web("--broker", mosquitto)

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.get(server.url) as reply:
                assert reply.status == 200
                assert "No table is open right now" in await reply.text()
            async with http.get(f"{server.url}table/gone") as reply:
                assert reply.status == 404
                assert "Table gone has ended, or is not open" in await reply.text()
            async with http.get(f"{server.url}table/Not%20A%20Name") as reply:
                assert reply.status == 404
            async with http.ws_connect(f"{server.url}table/gone/ws") as ws:
                message = await ws.receive(TIMEOUT)
                assert message.type == aiohttp.WSMsgType.CLOSE
                assert ws.close_code == 4000 and "has ended" in str(message.extra)

    asyncio.run(scenario())
    server.wait_line(r"web visitor from 127\.0\.0\.1 asked for table gone: not open")

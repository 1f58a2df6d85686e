"""`stacks web` in a real headless Chromium: the table list shows a live table of bots,
opening it shows the spectator interface, and the board in the browser follows the same
events as a `stacks watch --headless` of the same table. The terminal's text is read from
the page's terminal (xterm.js) buffer through the DevTools protocol, never a picture."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

import aiohttp
from rich.text import Text

from engine.events import Event
from tests.support import SCALE, wait_until_async
from tests.webserver.chromium import Chromium, Page, wait_for_body, wait_for_text
from tests.webserver.conftest import TIMEOUT, Table, Web, spawn
from tui.words import Narrator


def _told(path: Path, names: list[str]) -> list[str]:
    """The lines the table's log says for the events `stacks watch --headless` printed."""
    narrator = Narrator(names, None)
    told = []
    for raw in path.read_text().splitlines():
        try:
            line = json.loads(raw)
        except ValueError:
            continue  # a line still being written
        if "event" not in line:
            continue
        words = narrator.describe(Event.from_wire(line["event"]))
        if words is not None:
            told.append(" ".join(Text.from_markup(words).plain.split()))
    return told


def log_text(screen: str) -> str:
    """The text of the table's log column (right of its border), its rows joined: a line
    the log wrapped reads whole again."""
    rows = [row.rsplit("▏", 1)[1] for row in screen.splitlines() if "▏" in row]
    text = " ".join(" ".join(rows).split())
    return re.sub(r"── \d+\. ", "── ", text)  # the log numbers the turns


def _shows_in_order(screen: str, lines: list[str]) -> bool:
    """Whether the log shows ``lines``, one after the other, as its last lines."""
    return log_text(screen).endswith(" ".join(lines))


async def _seated(url: str, table: str) -> list[str]:
    async with aiohttp.ClientSession() as http:

        async def seated() -> list[str] | None:
            async with http.get(url + "tables.json") as reply:
                data = await reply.json()
            for row in data["tables"]:
                if row["table"] == table and row["status"] == "playing":
                    return list(row["seated"])
            return None

        return await wait_until_async(seated, f"{table} to be listed as playing",
                                      TIMEOUT / SCALE, interval=0.5)


def test_the_page_lists_the_table_and_follows_it_like_a_headless_spectator(
    table: Table, web: Callable[..., Web], browser: Chromium, tmp_path: Path,
) -> None:
    server = web("--broker", table.broker)
    headless_out = tmp_path / "headless.jsonl"
    headless = spawn(tmp_path, "watch", table.name, "--headless", "--broker", table.broker,
                     "--profile", "headless", out=headless_out)

    async def scenario() -> None:
        names = await _seated(server.url, table.name)
        page = await browser.new_page()
        try:
            await page.open(server.url)
            listing = await wait_for_body(page, rf"{table.name}\s+playing", TIMEOUT)
            assert all(name in listing for name in names), listing
            assert "2 of 2" in listing  # seats taken
            started = time.monotonic()
            # Open it as a visitor would: the table's link on the list.
            await page.evaluate(
                f"document.querySelector('tr[data-table=\"{table.name}\"] a').click()")
            await wait_for_text(page, "|".join(names), TIMEOUT)
            first_frame = time.monotonic() - started
            # Within a few seconds the log in the browser shows what the headless spectator
            # printed last: the same last two lines, in the same order.
            await _follows(page, headless_out, names)
            print(f"first frame {first_frame:.2f} s")
        finally:
            await page.close()

    try:
        asyncio.run(scenario())
    finally:
        headless.terminate()
        headless.wait(10)
    server.proc.terminate()
    server.proc.wait(15)
    line = server.wait_line(r"web visitor from 127\.0\.0\.1 watched table webtable for")
    assert "the server stopped" in line or "left" in line, line


async def _follows(page: Page, headless_out: Path, names: list[str]) -> None:
    screen: str | None = ""
    last: list[str] = []

    async def caught_up() -> bool:
        nonlocal screen, last
        told = _told(headless_out, names)
        if len(told) >= 2:
            last = told[-2:]
            screen = await page.screen()
            # Still the headless spectator's last lines after the look: not behind.
            if screen is not None and _shows_in_order(screen, last) \
                    and _told(headless_out, names)[-2:] == last:
                assert "Say something" not in screen  # a kiosk has no chat field
                return True
        return False

    await wait_until_async(caught_up, "the browser to show the headless spectator's last lines",
                           TIMEOUT / SCALE, interval=0.2,
                           diagnostics=lambda: f"last lines {last!r}; its screen:\n{screen}")

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
from stacks.bench.browser import Chromium, Page, wait_for_body, wait_for_text
from tests.support import SCALE, wait_until_async
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


GEOMETRY = """
(() => {
  const t = window.__stacksTerminal;
  if (!t) { return null; }
  const box = t.element.querySelector(".xterm-screen").getBoundingClientRect();
  return {cols: t.cols, rows: t.rows, width: box.width, height: box.height,
          right: box.right, bottom: box.bottom, font: t.options.fontSize};
})()
"""


def _programs(broker: str) -> list[int]:
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


def test_visitors_of_a_live_table_see_one_screen_each_fitted_to_its_window(
    table: Table, web: Callable[..., Web], browser: Chromium,
) -> None:
    server = web("--broker", table.broker)
    windows = [(1280, 900), (800, 560), (1600, 1000)]

    async def scenario() -> None:
        names = await _seated(server.url, table.name)
        pages = [await browser.new_page() for _ in windows]
        try:
            for page, (width, height) in zip(pages, windows, strict=True):
                await page.send("Emulation.setDeviceMetricsOverride", width=width,
                                height=height, deviceScaleFactor=1, mobile=False)
                await page.open(f"{server.url}table/{table.name}")
            for page in pages:
                await wait_for_text(page, "|".join(names), TIMEOUT)
            # Each terminal is the table's size, its font scaled to the window: the whole
            # table on the page, filling it one way or the other.
            fonts = []
            for page, (width, height) in zip(pages, windows, strict=True):

                async def fitted(page: Page = page) -> dict[str, float] | None:
                    box = await page.evaluate(GEOMETRY)
                    return box if box and box["cols"] == 120 and box["rows"] == 40 else None

                box = await wait_until_async(fitted, "the terminal at the table's size",
                                             TIMEOUT / SCALE, interval=0.2)
                assert box["right"] <= width + 1 and box["bottom"] <= height + 1, box
                assert box["width"] > 0.8 * width or box["height"] > 0.8 * height, box
                fonts.append(box["font"])
            assert fonts[1] < fonts[0] < fonts[2], fonts
            # One program draws for the three.
            assert len(_programs(table.broker)) == 1
            # And the three show the same screen (the bots move once a second).
            seen: list[str | None] = []

            async def same() -> str | None:
                nonlocal seen
                seen = [await page.screen() for page in pages]
                first = seen[0]
                return first if first and names[0] in first and seen.count(first) == 3 \
                    else None

            await wait_until_async(same, "the three pages to show the same screen",
                                   TIMEOUT / SCALE, interval=0.1,
                                   diagnostics=lambda: "\n---\n".join(map(str, seen)))
        finally:
            for page in pages:
                await page.close()

    asyncio.run(scenario())

"""The real browser of ``stacks bench web``: one headless Chromium, a visitor of the watched
table at each count of the sweep, its picture checked against what the websocket clients
decoded.

One Chromium is started for the run (``stacks.bench.browser``); at each count it opens a
tab on the first table's page (``/table/NAME``), as a visitor would, once the websocket
clients are in and before the game starts, and closes it at the count's end: one more
visitor of the table, besides the N measured (its websocket is the server's like theirs).

- The picture: during the window, every ``READ_EVERY_S`` the text of the page's terminal
  is read from xterm.js's own buffer (the rows it draws), once the terminal has parsed
  every byte it received (textual-serve's client counts them). Each such read must be one
  of the screens the table's first websocket client decoded (row for row, all 40, each
  without its trailing blanks) within ``SLACK_S`` of the read: the browser and the
  clients got the same messages, so after any message both are on the same screen. A
  read that is none of them is a mismatch, told in words (the rows that differ from the
  client's screen of that moment), and the count fails.
- The latency: a listener on the terminal's renders notes when each turn's header
  (``── k.``) is first drawn on the page (the browser's clock: the same machine's), as
  the websocket clients note it in their stream; from the host's batch (the reference
  spectator's arrival) to the browser's screen, p50 / p99, and the turns it never drew
  within the clients' time for a miss (counted at that value).
- The browser's own CPU (every Chromium process) over the window: it shares the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stacks.argtypes import percentile

if TYPE_CHECKING:
    from stacks.bench.browser import Chromium, Page
    from stacks.bench.web import _Client

READ_EVERY_S = 0.5
"""How often the page's terminal is read during the window."""
SLACK_S = 5.0
"""A read of the page matches a client's screen decoded this close to it in time."""
OPEN_WAIT_S = 120.0
"""Seconds the page gets to show the table's screen."""
SHOWN_MISMATCHES = 3

SETTLED_SCREEN = """
(() => {
  const t = window.__stacksTerminal, client = window.__stacksClient;
  if (!t || !client || typeof client.bufferedBytes !== "number") { return null; }
  if (client.bufferedBytes) { return {busy: true}; }
  const buffer = t.buffer.active;
  const rows = [];
  for (let y = 0; y < t.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return {rows, cols: t.cols, at: performance.timeOrigin + performance.now()};
})()
"""
"""The terminal's rows once every byte received is parsed (``{busy: true}`` before;
``null`` if the page has no terminal, or its client no longer counts its bytes)."""

NOTE_TURNS = """
(() => {
  const t = window.__stacksTerminal;
  if (!t) { return false; }
  if (window.__stacksTurns) { return true; }
  const shown = {};
  window.__stacksTurns = shown;
  const header = /── (\\d+)\\. /g;
  t.onRender((rows) => {
    const now = performance.timeOrigin + performance.now();
    const buffer = t.buffer.active;
    for (let y = rows.start; y <= rows.end; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      if (!line) { continue; }
      for (const found of line.translateToString(true).matchAll(header)) {
        if (!(found[1] in shown)) { shown[found[1]] = now; }
      }
    }
  });
  return true;
})()
"""
"""Note, in the page, when each turn's header is first drawn (ms since the epoch)."""

GEOMETRY = """
(() => {
  const t = window.__stacksTerminal;
  return t ? [t.cols, t.rows] : null;
})()
"""


def screen_rows(rows: list[list[str]]) -> tuple[str, ...]:
    """A decoded screen's rows as the page's terminal reads them: each without its
    trailing blanks."""
    return tuple("".join(row).rstrip() for row in rows)


def _trimmed(rows: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    return tuple(row.rstrip() for row in rows)


def compare(reads: list[tuple[float, tuple[str, ...]]],
            decoded: list[tuple[float, tuple[str, ...]]], slack: float = SLACK_S,
            ) -> tuple[int, list[str]]:
    """How many of the page's ``reads`` (time, rows) are a screen of ``decoded`` (time,
    rows: what a websocket client decoded, in the order it did, its times rising) within
    ``slack`` seconds,
    and the words for those that are not (the rows that differ from the client's screen
    of that moment)."""
    matched = 0
    words: list[str] = []
    times = [when for when, _ in decoded]
    for at, rows in reads:
        page = _trimmed(rows)
        near = decoded[bisect_left(times, at - slack):bisect_right(times, at + slack)]
        if any(_trimmed(shown) == page for _, shown in near):
            matched += 1
            continue
        before = bisect_right(times, at)
        client = _trimmed(decoded[before - 1][1]) if before else ()
        words.append(_difference(page, client))
    return matched, words


def _difference(page: tuple[str, ...], client: tuple[str, ...]) -> str:
    if not client:
        return "the page showed a screen before the websocket client had one"
    if len(page) != len(client):
        return (f"the page's terminal had {len(page)} rows where the clients' screen has "
                f"{len(client)}")
    rows = [y for y in range(len(page)) if page[y] != client[y]]
    first = rows[0]
    return (f"{len(rows)} row(s) differ from the websocket client's screen of that moment "
            f"(nor was it any screen the client had within {SLACK_S:g} s); row {first + 1} "
            f"read {page[first].strip()[:80]!r} in the page, {client[first].strip()[:80]!r} "
            "in the client")


@dataclass
class BrowserView:
    """The page of one count: opened on the table, read during the window, closed."""

    table: str
    witness: _Client
    """The table's websocket client whose screens the page's reads are compared with."""
    miss_after: float
    """A turn not drawn this long after the reference saw it is a miss (the clients')."""
    cpu_seconds: Callable[[int], float]
    """A process's CPU so far (0 once it is gone)."""
    page: Page | None = None
    failure: str = ""
    """Why the page could not be checked at all (it never showed the table...)."""
    reads: list[tuple[float, tuple[str, ...]]] = field(default_factory=list)
    busy: int = 0
    """Reads put off as the terminal was still parsing what it had received."""
    clock: float = 0.0
    """The page's clock (seconds since the epoch) less this process's `time.perf_counter`."""
    pids: list[int] = field(default_factory=list)
    cpu_at: float = 0.0
    began: float = 0.0
    _reader: asyncio.Task[None] | None = None

    async def start(self, chromium: Chromium) -> None:
        """Begin the window: read the page every `READ_EVERY_S` until `finish`."""
        self.pids = _tree(chromium)
        self.cpu_at = sum(map(self.cpu_seconds, self.pids))
        self.began = time.perf_counter()
        if self.page is not None and not self.failure:
            self._reader = asyncio.create_task(self._read(self.page))

    async def _read(self, page: Page) -> None:
        from stacks.bench.browser import CdpError

        offset = self.clock
        while True:
            await asyncio.sleep(READ_EVERY_S)
            for _ in range(50):  # up to a second for the terminal to parse what came
                try:
                    seen = await page.evaluate(SETTLED_SCREEN)
                except CdpError as exc:
                    self.failure = f"the page could not be read: {exc}"
                    return
                if isinstance(seen, dict) and not seen.get("busy"):
                    self.reads.append((seen["at"] / 1000 - offset, tuple(seen["rows"])))
                    break
                self.busy += 1
                await asyncio.sleep(0.02)

    async def finish(self, chromium: Chromium, turns: dict[int, float],
                     end: float) -> dict[str, Any]:
        """The check of the count: the page's reads against the witness's screens, and
        the latency of ``turns`` (turn: the reference's arrival) to the page's screen."""
        from stacks.bench.browser import CdpError

        seconds = max(1e-9, time.perf_counter() - self.began)
        cpu = sum(map(self.cpu_seconds, set(self.pids) | set(_tree(chromium)))) - self.cpu_at
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        drawn: dict[int, float] = {}
        if self.page is not None and not self.failure:
            offset = self.clock
            try:
                noted = await self.page.evaluate("window.__stacksTurns || {}")
            except CdpError as exc:
                self.failure = f"the page could not be read: {exc}"
                noted = {}
            drawn = {int(k): v / 1000 - offset for k, v in (noted or {}).items()}
        decoded = [(at, screen_rows(screen.rows)) for at, screen in self.witness.history or ()
                   if at >= self.began - SLACK_S]
        reads = [read for read in self.reads if read[0] <= end]
        matched, mismatches = compare(reads, decoded)
        if not self.failure and not reads:
            self.failure = "the page's terminal was never read settled in the window"
        samples: list[float] = []
        missed = 0
        for turn, at in turns.items():
            seen = drawn.get(turn)
            if seen is None or seen - at > self.miss_after:
                missed += 1
            else:
                samples.append(max(0.0, seen - at))
        ordered = sorted(samples + [self.miss_after] * missed)

        def ms(q: float) -> float | None:
            return round(percentile(ordered, q) * 1000, 1) if ordered else None

        report: dict[str, Any] = {
            "checked": not self.failure,
            "table": self.table,
            "matched": not self.failure and not mismatches,
            "reads": len(reads),
            "reads_matched": matched,
            "screens_read": len({rows for _, rows in reads}),
            "reads_put_off": self.busy,
            "mismatches": mismatches[:SHOWN_MISMATCHES],
            "failure": self.failure or None,
            "samples": len(samples),
            "missed": missed,
            "p50_ms": ms(0.5),
            "p99_ms": ms(0.99),
            "max_ms": ms(1.0),
            "cpu_percent": round(100 * cpu / seconds, 1),
        }
        if not report["matched"]:
            report["words"] = self.failure or (
                f"{len(mismatches)} of {len(reads)} reads of the page's terminal were "
                f"no screen the websocket clients decoded: {mismatches[0]}")
        return report

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        if self.page is not None:
            page, self.page = self.page, None
            with contextlib.suppress(Exception):
                await page.close()


async def open_view(chromium: Chromium, web_url: str, table: str, witness: _Client,
                    screen: tuple[int, int], miss_after: float,
                    cpu_seconds: Callable[[int], float]) -> BrowserView:
    """A tab on ``table``'s page, once it shows the table's screen at its size
    (``screen``: columns, rows) and notes its turns; a view that says why if not."""
    from stacks.bench.browser import CdpError, wait_for_text

    view = BrowserView(table, witness, miss_after, cpu_seconds)
    try:
        view.page = await chromium.new_page()
        await view.page.open(f"{web_url}table/{table}")
        await wait_for_text(view.page, r"Players|Seats", OPEN_WAIT_S)
        deadline = time.monotonic() + OPEN_WAIT_S
        while await view.page.evaluate(GEOMETRY) != list(screen):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page's terminal never took the table's size "
                                   f"{screen[0]}x{screen[1]}")
            await asyncio.sleep(0.1)
        if not await view.page.evaluate(NOTE_TURNS):
            raise CdpError("the page's terminal went away")
        view.clock = await _clock(view.page)
    except (CdpError, TimeoutError, OSError) as exc:
        view.failure = f"the page of table {table} did not show it: {exc}"
    return view


async def _clock(page: Page) -> float:
    """The page's clock less `time.perf_counter`: of a few asks, the quickest answer's,
    taken as read halfway through it."""
    best: tuple[float, float] | None = None
    for _ in range(5):
        before = time.perf_counter()
        now = await page.evaluate("performance.timeOrigin + performance.now()")
        after = time.perf_counter()
        if best is None or after - before < best[0]:
            best = (after - before, float(now) / 1000 - (before + after) / 2)
    assert best is not None
    return best[1]


def words(report: dict[str, Any]) -> str:
    """The browser's line of a count."""
    if not report["matched"]:
        return f"  browser: FAILED: {report['words']}"
    return (f"  browser (one real Chromium on {report['table']}): the picture matched the "
            f"websocket clients' ({report['reads_matched']} of {report['reads']} reads of its "
            f"terminal); batch to its screen p50 {report['p50_ms']} ms, p99 "
            f"{report['p99_ms']} ms ({report['samples']} samples, {report['missed']} "
            f"missed); Chromium {report['cpu_percent']}% CPU")


def _tree(chromium: Chromium) -> list[int]:
    from stacks.bench.ssh import tree

    return tree(chromium.proc.pid) if chromium.proc is not None else []

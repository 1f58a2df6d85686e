"""A real headless Chromium driven through the DevTools protocol (CDP): it opens a page,
evaluates JavaScript in it, and reads the text of the textual-serve terminal (xterm.js)
row by row from the terminal's own buffer. ``stacks bench web`` opens one as a visitor
of the watched table and checks its picture (``stacks.bench.web_browser``); the tests of
``stacks web`` drive it too.

The terminal object is local to textual-serve's page script; a script the browser runs
before any of the page's (``Page.addScriptToEvaluateOnNewDocument``) catches it as the
page script stores it (``this.terminal = new Terminal(...)``) and keeps it as
``window.__stacksTerminal``, and the client object that stores it (which counts the bytes
its terminal has still to parse) as ``window.__stacksClient``. Nothing of this is in the
page ``stacks web`` serves: only this browser has it.

Every timeout here is in seconds as they are (a test scales its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
    "--disable-default-apps", "--disable-extensions", "--mute-audio",
    "--window-size=1280,900", "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)

CATCH_TERMINAL = """
(() => {
  Object.defineProperty(Object.prototype, "terminal", {
    configurable: true,
    set(value) {
      Object.defineProperty(this, "terminal", {
        value, writable: true, configurable: true, enumerable: true,
      });
      if (value && value.buffer && value.buffer.active) {
        window.__stacksTerminal = value;
        window.__stacksClient = this;
      }
    },
  });
})();
"""

SCREEN_TEXT = """
(() => {
  const t = window.__stacksTerminal;
  if (!t) { return null; }
  const buffer = t.buffer.active;
  const rows = [];
  for (let y = 0; y < t.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
})()
"""


def chromium_exe() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CdpError(RuntimeError):
    pass


class Page:
    """One page target, over its own DevTools websocket."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, http: aiohttp.ClientSession,
                 close_url: str | None = None) -> None:
        self.ws = ws
        self.http = http
        self.close_url = close_url
        """Where the browser is asked to close the tab (its DevTools ``/json/close``)."""
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                continue
            data = json.loads(message.data)
            future = self._waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
            elif "method" in data:
                self.events.append(data)
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(CdpError("the DevTools connection closed"))

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = future
        await self.ws.send_str(json.dumps({"id": ident, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise CdpError(f"{method}: {reply['error']}")
        result: dict[str, Any] = reply.get("result", {})
        return result

    async def evaluate(self, expression: str) -> Any:
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                                awaitPromise=True)
        if "exceptionDetails" in reply:
            raise CdpError(f"{expression[:60]!r}: {reply['exceptionDetails']}")
        return reply.get("result", {}).get("value")

    async def open(self, url: str) -> None:
        await self.send("Page.navigate", url=url)

    async def screen(self) -> str | None:
        """The terminal's text, one line per row (``None`` before it exists)."""
        text = await self.evaluate(SCREEN_TEXT)
        return text if isinstance(text, str) else None

    async def body_text(self) -> str:
        text = await self.evaluate("document.body ? document.body.innerText : ''")
        return text if isinstance(text, str) else ""

    async def close(self) -> None:
        """Close the tab (its page leaves: a visitor gone) and the connection to it."""
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader
        await self.ws.close()
        if self.close_url is not None:
            with contextlib.suppress(aiohttp.ClientError, OSError, asyncio.TimeoutError):
                async with self.http.get(self.close_url,
                                         timeout=aiohttp.ClientTimeout(total=10)) as reply:
                    await reply.read()
        await self.http.close()


class Chromium:
    """A headless Chromium of its own (fresh profile folder), on a DevTools port."""

    def __init__(self, exe: str) -> None:
        self.exe = exe
        self.folder = Path(tempfile.mkdtemp(prefix="stacks-chromium-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self, timeout: float = 60.0) -> None:
        """Start it and wait for its DevTools port (`CdpError` if it ends or is late)."""
        self.proc = subprocess.Popen(
            [self.exe, *CHROMIUM_FLAGS, f"--user-data-dir={self.folder}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        port_file = self.folder / "DevToolsActivePort"
        proc = self.proc
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise CdpError(f"chromium exited with {proc.returncode}")
            with contextlib.suppress(OSError, ValueError, IndexError):
                self.port = int(port_file.read_text().split()[0])
                return
            if time.monotonic() >= deadline:
                raise CdpError(f"chromium did not open its DevTools port within {timeout:g} s")
            time.sleep(0.1)

    async def new_page(self) -> Page:
        """A new tab, with the terminal catcher installed before any page script."""
        http = aiohttp.ClientSession()
        async with http.put(f"http://127.0.0.1:{self.port}/json/new?about:blank") as reply:
            target = await reply.json()
        ws = await http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0)
        page = Page(ws, http, f"http://127.0.0.1:{self.port}/json/close/{target['id']}")
        await page.send("Page.enable")
        await page.send("Runtime.enable")
        await page.send("Page.addScriptToEvaluateOnNewDocument", source=CATCH_TERMINAL)
        return page

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        shutil.rmtree(self.folder, ignore_errors=True)


async def wait_for_text(page: Page, pattern: str, timeout: float) -> str:
    """The terminal's text once it matches ``pattern`` (a regular expression)."""
    return await _wait_for(page.screen, pattern, timeout, "the page's terminal")


async def wait_for_body(page: Page, pattern: str, timeout: float) -> str:
    """The page's text (not the terminal's) once it matches ``pattern``."""
    return await _wait_for(page.body_text, pattern, timeout, "the page's text")


async def _wait_for(read: Callable[[], Awaitable[str | None]], pattern: str, timeout: float,
                    what: str) -> str:
    """`read()`'s first text that matches ``pattern``, within ``timeout`` seconds."""
    seen: str | None = None
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        # Between two documents (a click that navigates) the page can't be asked.
        with contextlib.suppress(CdpError):
            seen = await read()
            if seen is not None and re.search(pattern, seen):
                return seen
        if loop.time() >= deadline:
            raise TimeoutError(f"timed out after {timeout:g} s waiting for {what} to match "
                                 f"{pattern!r}\nlast seen:\n{seen}")
        await asyncio.sleep(0.1)

"""The web server: a broker's tables in a browser, each watched in the spectator
interface that `stacks watch` opens in a terminal.

textual-serve (Textualize's) carries the terminal client (JavaScript, fonts, styles) and
runs a Textual program under its web driver. This module is the aiohttp application
around it, in place of textual-serve's own ``Server`` (which runs one program per
visitor, with no limits): it lists the tables, and for each watched table it runs one
``stacks watch TABLE --kiosk`` (a spectator only: no seat, no menu, no chat) whose screen
goes to every browser visitor of that table (:mod:`webserver.stage`); at most
``max_visitors`` visitors at once, each closed when idle for ``idle_timeout``, one line
each when they go. A table's spectator starts with its first visitor and stops
``linger`` seconds after its last.

Pages (every URL relative, see :mod:`webserver.pages`): ``/`` the table list (or, with
one table given, that table), ``/tables.json`` the same as data, ``/table/NAME`` a
table's page, ``/table/NAME/ws`` its websocket, ``/static/`` textual-serve's files; with
a database, the leaderboards, players, games and replays, and the JSON API under ``/api/``
(:mod:`webserver.community`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import textual_serve
from aiohttp import ClientConnectionResetError, WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError

from netplay.lobby import TableInfo
from netplay.names import is_table_name
from webserver import pages
from webserver.community import DEFAULT_MAX_REPLAYS, Community, CommunityError
from webserver.stage import KIOSK_ENV, Stage

log = logging.getLogger(__name__)

DEFAULT_PORT = 8080
DEFAULT_BIND = "127.0.0.1"
DEFAULT_MAX_VISITORS = 500
DEFAULT_SCREEN = (120, 40)
DEFAULT_LINGER_S = 30.0
ENDED_GRACE_S = 60.0
DEFAULT_IDLE_MINUTES = 30.0
LIST_FRESH_S = 3.0
"""A table listing is kept this long: any number of page loads cost one broker query."""
LIST_TIMEOUT_S = 2.0
"""How long one listing listens (long enough to see each live host's heartbeat)."""
MAX_MESSAGE = 64 * 1024
"""The largest message a browser may send (keys, sizes: a few bytes each)."""
STOP_GRACE_S = 5.0
"""Seconds the server's visitors have to be told it stops."""
CLOSE_ENDED = 4000
CLOSE_FULL = 4001
CLOSE_IDLE = 4002
CLOSE_GONE = 4003
CLOSE_STOPPING = 4004

TableSource = Callable[[], Awaitable[list[TableInfo]]]
"""The tables to offer (a broker's, or the ssh server's held tables)."""
BrokerSource = Callable[[], str | None]
"""The broker the tables are on, when a visitor opens one (``None``: none yet)."""


def default_command() -> tuple[str, ...]:
    return (sys.executable, "-m", "stacks.cli")


@dataclass(frozen=True)
class WebSettings:
    bind: str = DEFAULT_BIND
    port: int = DEFAULT_PORT
    max_visitors: int = DEFAULT_MAX_VISITORS
    """Browser spectators at once (each a websocket; the programs are one per table);
    more are turned away in words."""
    idle_timeout: float = DEFAULT_IDLE_MINUTES * 60
    """Seconds without a key, click or resize from a browser before its view is closed;
    0: never."""
    table: str | None = None
    """Serve this table only: ``/`` opens it, no other is listed or opened."""
    command: tuple[str, ...] = field(default_factory=default_command)
    """The ``stacks`` program each watched table runs (``watch TABLE --kiosk ...``
    follows)."""
    home: Path | None = None
    """STACKS_HOME of the tables' programs (their profiles); ``None``: a temporary
    folder of the server's own, removed when it stops."""
    screen: tuple[int, int] = DEFAULT_SCREEN
    """The size of every table's view (columns, rows): the page scales its font to fit
    it in each visitor's window."""
    linger: float = DEFAULT_LINGER_S
    """Seconds a table's program is kept after its last visitor leaves (one who comes
    back meanwhile gets its screen at once)."""
    ended_grace: float = ENDED_GRACE_S
    """Seconds a watched table may be gone from the listing (its host has stopped) before
    its visitors are told it has ended: time to read the final screen."""
    list_fresh: float = LIST_FRESH_S
    list_timeout: float = LIST_TIMEOUT_S
    database: str | None = None
    """The ratings database whose leaderboards, players and games are shown, and replayed
    (`webserver.community`); ``None``: none."""
    max_replays: int = DEFAULT_MAX_REPLAYS
    """Replays at once (each a ``stacks replay`` process)."""
    wait_for_database: bool = False
    """A database that can't be opened at the start is tried again later (its pages
    answer 503 meanwhile), instead of the start failing."""


class WebError(Exception):
    """The web server can't start; the message says why."""


@dataclass
class Visitor:
    number: int
    table: str
    address: str
    opened: float
    last_input: float
    ws: web.WebSocketResponse
    done: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    """The server is closing its websocket (with words)."""
    why: str = "left"
    """How the visit ended: left, idle, ended, stopping."""


class WebServer:
    """The listening web server, its visitors and the watched tables' programs."""

    def __init__(self, settings: WebSettings, *, tables: TableSource, broker: BrokerSource,
                 say: Callable[[str], None] | None = None, where: str = "") -> None:
        self.settings = settings
        self._tables = tables
        self._broker = broker
        self._say = say or (lambda text: None)
        self.where = where
        """Where the tables are, in words, for the list page."""
        self.visitors: dict[int, Visitor] = {}
        self.stages: dict[str, Stage] = {}
        """The watched tables' programs, by table."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.served = 0
        """Visitors who got a view (for the figures)."""
        self.refused = 0
        self._numbers = itertools.count(1)
        self._listing: list[TableInfo] = []
        self._listed_at = -1e9
        self._list_lock = asyncio.Lock()
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._home: Path | None = settings.home
        self._own_home = False
        self._stopping = False
        self.community: Community | None = None
        self._reserved = 0
        """Places taken by visitors not yet in `visitors` (their table is being looked
        up): counted by `full` from the moment the cap is checked."""

    # -- start and stop ----------------------------------------------------------------------

    async def start(self) -> None:
        settings = self.settings
        if self._home is None:
            self._home = Path(tempfile.mkdtemp(prefix="stacks-web-"))
            self._own_home = True
        self._home.mkdir(parents=True, exist_ok=True)
        app = web.Application(client_max_size=MAX_MESSAGE)
        static = Path(textual_serve.__file__).parent / "static"
        self.community = Community(settings.database, tables=self._tables_json,
                                   command=settings.command, home=self._home,
                                   max_replays=settings.max_replays,
                                   idle_timeout=settings.idle_timeout, say=self._line,
                                   wait_for_database=settings.wait_for_database)
        try:
            await self.community.open()
        except CommunityError as exc:
            raise WebError(str(exc)) from exc
        self.community.install(app)
        app.add_routes([
            web.get("/", self._index),
            web.get("/tables.json", self._tables_json),
            web.get("/table/{name}", self._table_page),
            web.get("/table/{name}/ws", self._websocket),
            web.static("/static", static),
        ])
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None,
                                     shutdown_timeout=1.0, logger=_RequestLog(self._line))
        await self._runner.setup()
        self._site = web.TCPSite(self._runner, settings.bind or None, settings.port)
        try:
            await self._site.start()
        except OSError as exc:
            await self._runner.cleanup()
            self._runner = None
            await self.community.close()
            raise WebError(f"can't listen on {settings.bind}:{settings.port}: "
                           f"{exc.strerror or exc}") from exc

    @property
    def port(self) -> int:
        """The port it listens on (the one it got, when asked for 0)."""
        for address in self._runner.addresses if self._runner is not None else []:
            return int(address[1])
        return self.settings.port

    @property
    def url(self) -> str:
        host = self.settings.bind or "127.0.0.1"
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    async def stop(self) -> None:
        """Close every visitor's view and stop the tables' programs, then stop
        listening."""
        self._stopping = True
        visitors = list(self.visitors.values())
        for visitor in visitors:
            visitor.why = "stopping"
            visitor.closing = True
            await _close(visitor.ws, CLOSE_STOPPING, "The server has stopped.")
        if visitors:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(v.done.wait() for v in visitors)),
                                       STOP_GRACE_S)
        stages = list(self.stages.values())
        await asyncio.gather(*(stage.stop() for stage in stages), return_exceptions=True)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.community is not None:
            await self.community.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._own_home and self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)

    # -- the tables ---------------------------------------------------------------------------

    async def tables(self, *, fresh: bool = False) -> list[TableInfo]:
        """The tables offered, from a listing at most ``list_fresh`` seconds old."""
        loop = asyncio.get_running_loop()
        async with self._list_lock:
            if fresh or loop.time() - self._listed_at > self.settings.list_fresh:
                try:
                    found = await self._tables()
                except Exception:  # a broker's trouble is a page without tables, not a 500
                    log.exception("listing the tables failed")
                    found = []
                only = self.settings.table
                self._listing = [t for t in found if only is None or t.table == only]
                self._listed_at = loop.time()
            return list(self._listing)

    async def _find(self, name: str, *, fresh: bool = False) -> TableInfo | None:
        for info in await self.tables(fresh=fresh):
            if info.table == name:
                return info
        return None

    def watching(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for visitor in self.visitors.values():
            counts[visitor.table] = counts.get(visitor.table, 0) + 1
        return counts

    @property
    def used(self) -> int:
        """Places in use: visitors watching, and those on their way in."""
        return len(self.visitors) + self._reserved

    @property
    def full(self) -> bool:
        return self.used >= self.settings.max_visitors

    def _full_words(self) -> str:
        cap = self.settings.max_visitors
        return (f"This page is full: {cap} browser spectator{'s' if cap != 1 else ''} "
                "already watch here. Try again in a few minutes.")

    @staticmethod
    def _ended_words(name: str) -> str:
        return (f"Table {name} has ended, or is not open on this server: nothing to "
                "watch there now.")

    # -- pages --------------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if self.settings.table is not None:
            raise web.HTTPFound(f"table/{self.settings.table}")
        html = pages.table_list(await self.tables(), watching=self.watching(),
                                used=len(self.visitors), cap=self.settings.max_visitors,
                                where=self.where, games=self.settings.database is not None)
        return web.Response(text=html, content_type="text/html")

    async def _tables_json(self, request: web.Request) -> web.StreamResponse:
        watching = self.watching()
        rows = [{
            "table": t.table, "pinned": t.pinned, "status": t.status, "players": t.players,
            "seated": list(t.seated), "free": t.free, "password": t.password,
            "watching": watching.get(t.table, 0),
        } for t in await self.tables()]
        return web.json_response({"tables": rows, "visitors": len(self.visitors),
                                  "max_visitors": self.settings.max_visitors})

    async def _table_page(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        back = None if self.settings.table is not None else "../"
        if not is_table_name(name) or await self._find(name) is None:
            return web.Response(text=pages.words("No such table now", self._ended_words(name),
                                                 back=back),
                                content_type="text/html", status=404)
        if self.full:
            self.refused += 1
            self._line(f"web visitor from {request.remote or '?'} turned away from table "
                       f"{name}: full ({len(self.visitors)} of {self.settings.max_visitors})")
            return web.Response(text=pages.words("Full", self._full_words(), back=back),
                                content_type="text/html", status=503,
                                headers={"Retry-After": "60"})
        return web.Response(text=pages.terminal(name, screen=self.settings.screen, back=back),
                            content_type="text/html")

    # -- a visitor ----------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        # No compression: it would be one zlib state (~300 KiB) per visitor, and the same
        # bytes compressed again for each.
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE, compress=False)
        await ws.prepare(request)
        address = request.remote or "?"
        loop = asyncio.get_running_loop()
        if self._stopping:
            await _close(ws, CLOSE_STOPPING, "The server is stopping.")
            return ws
        if self.full:
            self.refused += 1
            self._line(f"web visitor from {address} turned away from table {name}: full "
                       f"({self.used} of {self.settings.max_visitors})")
            await _close(ws, CLOSE_FULL, self._full_words())
            return ws
        # The place is taken now, before anything is awaited: visitors arriving at the
        # same moment each see it taken (the cap holds however many come at once).
        self._reserved += 1
        try:
            info = await self._find(name) if is_table_name(name) else None
        finally:
            self._reserved -= 1
        broker = self._broker()
        if info is None or info.offline or broker is None or self._stopping:
            self._line(f"web visitor from {address} asked for table {name}: not open")
            await _close(ws, CLOSE_ENDED, self._ended_words(name))
            return ws
        now = loop.time()
        visitor = Visitor(number=next(self._numbers), table=name, address=address,
                          opened=now, last_input=now, ws=ws)
        self.visitors[visitor.number] = visitor
        self.served += 1
        started = time.monotonic()
        stage = self._stage_for(info, broker)
        stage.visitors += 1
        stage.idle_since = None
        tasks = [asyncio.create_task(self._show(ws, visitor, stage))]
        if self.settings.idle_timeout > 0:
            tasks.append(asyncio.create_task(self._idle_watch(ws, visitor)))
        try:
            await self._messages(ws, visitor)
        except _GONE:  # the visitor went while something was on its way to them: they left
            visitor.closing = True
        except Exception:
            log.exception("web visitor %d failed", visitor.number)
            visitor.why = "failed"
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            del self.visitors[visitor.number]
            self._left(stage)
            seconds = time.monotonic() - started
            self._line(f"web visitor from {visitor.address} watched table {visitor.table} "
                       f"for {_duration(seconds)}: {_WHY.get(visitor.why, visitor.why)} "
                       f"({len(self.visitors)} of {self.settings.max_visitors} now)")
            if not ws.closed:
                with contextlib.suppress(*_GONE):
                    await ws.close()
            visitor.done.set()
        return ws

    async def _show(self, ws: web.WebSocketResponse, visitor: Visitor, stage: Stage) -> None:
        """The table's screen to the visitor until its program ends (then why, in words);
        a visitor who has gone has left."""
        try:
            await stage.send_to(ws.send_bytes)
            await self._program_ended(ws, visitor, stage)
        except _GONE:
            visitor.closing = True
            with contextlib.suppress(*_GONE):
                await ws.close()

    async def _messages(self, ws: web.WebSocketResponse, visitor: Visitor) -> None:
        """What the browser sends. A visitor only watches: keys, clicks and sizes only say
        the visitor is there (the idle close); the table's view is the same for all, at its
        own size, and nobody's keys reach it. A ping is answered; anything else, or
        anything malformed, is dropped."""
        loop = asyncio.get_running_loop()
        async for message in ws:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope:
                continue
            kind = envelope[0]
            data = envelope[1] if len(envelope) > 1 else None
            if kind in ("stdin", "resize"):
                visitor.last_input = loop.time()
            elif kind == "ping" and isinstance(data, str):
                with contextlib.suppress(*_GONE):  # gone during a ping: they left
                    await ws.send_json(["pong", data[:32]])

    async def _idle_watch(self, ws: web.WebSocketResponse, visitor: Visitor) -> None:
        loop = asyncio.get_running_loop()
        limit = self.settings.idle_timeout
        while True:
            left = visitor.last_input + limit - loop.time()
            if left <= 0:
                visitor.why = "idle"
                visitor.closing = True
                words = (f"Closed after {_duration(limit)} without a key press or click. "
                         "Reload the page to watch again.")
                await _close(ws, CLOSE_IDLE, words)
                return
            await asyncio.sleep(left + 0.05)

    async def _program_ended(self, ws: web.WebSocketResponse, visitor: Visitor,
                             stage: Stage) -> None:
        """The table's program ended: say why on the page."""
        if ws.closed or visitor.closing:
            return
        visitor.closing = True
        if visitor.why == "left":
            visitor.why = "stopping" if self._stopping else "ended"
        if self._stopping:
            await _close(ws, CLOSE_STOPPING, "The server has stopped.")
            return
        info = await self._find(visitor.table, fresh=True)
        if info is None or info.offline:
            words = self._ended_words(visitor.table)
        else:
            words = "The spectator view has closed. Reload the page to watch again."
        await _close(ws, CLOSE_GONE if info is not None else CLOSE_ENDED, words)

    # -- one spectator per table ---------------------------------------------------------------

    def _stage_for(self, info: TableInfo, broker: str) -> Stage:
        """The table's spectator, started for its first visitor (or still there, lingering
        after its last)."""
        stage = self.stages.get(info.table)
        if stage is not None and not stage.stopping and not stage.ended.is_set():
            return stage
        taken = {s.slot for s in self.stages.values()}
        slot = next(n for n in itertools.count(1) if n not in taken)
        stage = Stage(info.table, self._command(info, broker, slot), size=self.settings.screen,
                      env={"STACKS_HOME": str(self._home), **KIOSK_ENV}, slot=slot,
                      on_end=self._stage_ended)
        self.stages[info.table] = stage
        for job in (self._start_stage(stage), self._mind_table(stage)):
            self._tasks.add(task := asyncio.create_task(job))
            task.add_done_callback(self._tasks.discard)
        return stage

    async def _start_stage(self, stage: Stage) -> None:
        try:
            await stage.start()
        except Exception as exc:  # a program that can't start: its visitors are told
            self._line(f"the spectator of table {stage.table} could not start: {exc}")
            stage.program_ended()
            return
        width, height = stage.size
        self._line(f"spectator of table {stage.table} started for the web page "
                   f"({width}x{height}, pid {stage.program.pid})")

    async def _mind_table(self, stage: Stage) -> None:
        """Stop ``stage`` once its table has been gone from the listing (or offline) for
        ``ended_grace``: its visitors are told the table has ended."""
        loop = asyncio.get_running_loop()
        gone_since: float | None = None
        every = max(0.2, min(self.settings.list_fresh, self.settings.ended_grace / 2))
        while not stage.ended.is_set() and not stage.stopping:
            await asyncio.sleep(every)
            info = await self._find(stage.table)
            if info is not None and not info.offline:
                gone_since = None
                continue
            gone_since = loop.time() if gone_since is None else gone_since
            if loop.time() - gone_since >= self.settings.ended_grace and not stage.stopping:
                if self.stages.get(stage.table) is stage:
                    del self.stages[stage.table]
                await stage.stop()
                self._line(f"spectator of table {stage.table} stopped: the table has ended "
                           f"({counted(stage.visitors)} watching told so)")
                return

    def _stage_ended(self, stage: Stage) -> None:
        if self.stages.get(stage.table) is stage:
            del self.stages[stage.table]
        if not stage.stopping and not self._stopping:
            self._line(f"spectator of table {stage.table} ended ({counted(stage.visitors)} "
                       "watching)")

    def _left(self, stage: Stage) -> None:
        """A visitor of ``stage`` has gone: the last one leaves it to linger a while."""
        stage.visitors -= 1
        if stage.visitors > 0 or stage.ended.is_set():
            return
        loop = asyncio.get_running_loop()
        stage.idle_since = loop.time()
        if self._stopping:
            return
        self._tasks.add(task := asyncio.create_task(self._linger(stage)))
        task.add_done_callback(self._tasks.discard)

    async def _linger(self, stage: Stage) -> None:
        """Stop ``stage`` once nobody has watched it for ``linger`` seconds."""
        loop = asyncio.get_running_loop()
        linger = self.settings.linger
        while stage.idle_since is not None and not stage.ended.is_set():
            left = stage.idle_since + linger - loop.time()
            if left <= 0:
                stage.stopping = True  # from here on a new visitor starts a new one
                if self.stages.get(stage.table) is stage:
                    del self.stages[stage.table]
                await stage.stop()
                self._line(f"spectator of table {stage.table} stopped: nobody watched it "
                           f"for {_duration(linger)}")
                return
            await asyncio.sleep(left + 0.05)

    def _command(self, info: TableInfo, broker: str, slot: int) -> str:
        argv = [*self.settings.command, "watch", info.pinned, "--kiosk", "--broker", broker,
                "--profile", f"web-{slot}", "--name", "web spectator"]
        return "exec " + shlex.join(argv)

    def _line(self, text: str) -> None:
        log.info("%s", text)
        self._say(text)


async def _close(ws: web.WebSocketResponse, code: int, words: str) -> None:
    """Close a visitor's websocket with words for the page (a visitor already gone: no
    matter)."""
    with contextlib.suppress(*_GONE):
        await ws.close(code=code, message=words.encode()[:120])


def counted(n: int) -> str:
    return f"{n} visitor{'s' if n != 1 else ''}"


_WHY = {
    "left": "left",
    "idle": "closed as idle",
    "ended": "the view ended",
    "stopping": "the server stopped",
    "failed": "failed (see the log)",
}


_GONE = (ConnectionError, ClientConnectionResetError)
"""What writing to a visitor who has gone raises (aiohttp: "Cannot write to closing
transport")."""


class _RequestLog(logging.LoggerAdapter):  # type: ignore[type-arg]
    """aiohttp's server log: a request it could not read (a line or header too long, not
    HTTP) is answered 400 by aiohttp and said here in one line, not a traceback."""

    def __init__(self, say: Callable[[str], None]) -> None:
        super().__init__(logging.getLogger("aiohttp.server"), {})
        self._say_line = say

    def exception(self, msg: object, *args: object, exc_info: Any = True,
                  **kwargs: Any) -> None:
        if isinstance(exc_info, HttpProcessingError):
            remote = args[0] if args else "?"
            said = re.sub(r":\s*(bytearray\()?b['\"].*", "", str(exc_info.message))
            reason = " ".join(said.split())[:120]  # not the bytes it was sent
            self._say_line(f"web request from {remote} refused: {reason}")
            return
        super().exception(msg, *args, exc_info=exc_info, **kwargs)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

"""The web server: a broker's tables in a browser, each watched in the spectator
interface that `stacks watch` opens in a terminal.

textual-serve (Textualize's) carries the terminal client (JavaScript, fonts, styles) and
:class:`textual_serve.app_service.AppService`, which runs one program per browser visitor
and relays its screen over a websocket. This module is the aiohttp application around
it, in place of textual-serve's own ``Server`` (which serves one fixed command, with no
limits): it lists the tables, and for each visitor it runs ``stacks watch TABLE
--kiosk`` (a spectator only: no seat, no menu, no chat) under a profile of its own, at
most ``max_visitors`` at once, closes a visitor idle for ``idle_timeout``, and says one
line per visitor when the visitor goes.

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
import signal
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
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from netplay.lobby import TableInfo
from netplay.names import is_table_name
from webserver import pages
from webserver.community import DEFAULT_MAX_REPLAYS, Community, CommunityError

log = logging.getLogger(__name__)

DEFAULT_PORT = 8080
DEFAULT_BIND = "127.0.0.1"
DEFAULT_MAX_VISITORS = 32
DEFAULT_IDLE_MINUTES = 30.0
LIST_FRESH_S = 3.0
"""A table listing is kept this long: any number of page loads cost one broker query."""
LIST_TIMEOUT_S = 2.0
"""How long one listing listens (long enough to see each live host's heartbeat)."""
MAX_MESSAGE = 64 * 1024
"""The largest message a browser may send (keys, sizes: a few bytes each)."""
STOP_GRACE_S = 5.0
"""Seconds a visitor's program has to quit before it is killed."""
MAX_WIDTH = 300
MAX_HEIGHT = 100
"""The largest terminal a browser may ask for (columns, rows): every screen the visitor's
program draws is relayed to it, and a 1000x1000 one is 32 MB for 20 resizes."""
RESIZE_EVERY_S = 0.5
"""A visitor's resizes are applied at most this often (the newest one wins)."""

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
    """Browser spectators at once (each is a process); more are turned away in words."""
    idle_timeout: float = DEFAULT_IDLE_MINUTES * 60
    """Seconds without a key, click or resize from a browser before its view is closed;
    0: never."""
    table: str | None = None
    """Serve this table only: ``/`` opens it, no other is listed or opened."""
    command: tuple[str, ...] = field(default_factory=default_command)
    """The ``stacks`` program each visitor runs (``watch TABLE --kiosk ...`` follows)."""
    home: Path | None = None
    """STACKS_HOME of the visitors' programs (their profiles); ``None``: a temporary
    folder of the server's own, removed when it stops."""
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


class _Service(AppService):
    """One visitor's program (textual-serve's, plus: its environment, and a call when it
    ends by itself, which textual-serve leaves unsaid when a program dies)."""

    def __init__(self, command: str, *, env: dict[str, str],
                 ended: Callable[[], Awaitable[None]], **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self._env = env
        self._ended = ended

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self._env)
        return environment

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    async def run(self) -> None:
        await super().run()
        await self._ended()

    def kill(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGKILL)


@dataclass
class Visitor:
    number: int
    table: str
    address: str
    slot: int
    opened: float
    last_input: float
    ws: web.WebSocketResponse
    service: _Service | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    """The server is closing its websocket (with words)."""
    why: str = "left"
    """How the visit ended: left, idle, ended, stopping."""
    size: tuple[int, int] | None = None
    """A resize asked for and not applied yet (`RESIZE_EVERY_S`)."""
    resized_at: float = -1e9
    resizing: asyncio.Task[None] | None = None


class WebServer:
    """The listening web server and its visitors' programs."""

    def __init__(self, settings: WebSettings, *, tables: TableSource, broker: BrokerSource,
                 say: Callable[[str], None] | None = None, where: str = "") -> None:
        self.settings = settings
        self._tables = tables
        self._broker = broker
        self._say = say or (lambda text: None)
        self.where = where
        """Where the tables are, in words, for the list page."""
        self.visitors: dict[int, Visitor] = {}
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
        self._downloads = DownloadManager()
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
        """Close every visitor's view (their programs end), then stop listening."""
        self._stopping = True
        visitors = list(self.visitors.values())
        for visitor in visitors:
            visitor.why = "stopping"
            with contextlib.suppress(Exception):
                await visitor.ws.close(code=CLOSE_STOPPING, message=b"The server has stopped.")
        if visitors:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(v.done.wait() for v in visitors)),
                                       STOP_GRACE_S + 5)
        for visitor in visitors:
            if visitor.service is not None:
                visitor.service.kill()
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
        font = request.query.get("fontsize", "16")
        size = int(font) if font.isdigit() and 6 <= int(font) <= 64 else 16
        return web.Response(text=pages.terminal(name, font_size=size, back=back),
                            content_type="text/html")

    # -- a visitor ----------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        address = request.remote or "?"
        loop = asyncio.get_running_loop()
        if self._stopping:
            await ws.close(code=CLOSE_STOPPING, message=b"The server is stopping.")
            return ws
        if self.full:
            self.refused += 1
            self._line(f"web visitor from {address} turned away from table {name}: full "
                       f"({self.used} of {self.settings.max_visitors})")
            await ws.close(code=CLOSE_FULL, message=self._full_words().encode()[:120])
            return ws
        # The place is taken now, before anything is awaited: visitors arriving at the
        # same moment each see it taken (the cap holds however many come at once).
        self._reserved += 1
        try:
            info = await self._find(name) if is_table_name(name) else None
        finally:
            self._reserved -= 1
        broker = self._broker()
        if info is None or info.offline or broker is None:
            self._line(f"web visitor from {address} asked for table {name}: not open")
            await ws.close(code=CLOSE_ENDED, message=self._ended_words(name).encode()[:120])
            return ws
        now = loop.time()
        visitor = Visitor(number=next(self._numbers), table=name, address=address,
                          slot=self._free_slot(), opened=now, last_input=now, ws=ws)
        self.visitors[visitor.number] = visitor
        self.served += 1
        started = time.monotonic()
        idle: asyncio.Task[None] | None = None
        try:
            service = visitor.service = _Service(
                self._command(info, broker, visitor),
                env={"STACKS_HOME": str(self._home)},
                ended=lambda: self._program_ended(ws, visitor),
                write_bytes=ws.send_bytes, write_str=ws.send_str,
                close=lambda: self._program_ended(ws, visitor),
                download_manager=self._downloads,
            )
            width = _size(request.query.get("width"), 80, MAX_WIDTH)
            height = _size(request.query.get("height"), 24, MAX_HEIGHT)
            await service.start(width, height)
            visitor.resized_at = loop.time()
            if self.settings.idle_timeout > 0:
                idle = asyncio.create_task(self._idle_watch(ws, visitor))
            await self._messages(ws, service, visitor)
        except _GONE:  # the visitor went while something was on its way to them: they left
            visitor.closing = True
        except Exception:
            log.exception("web visitor %d failed", visitor.number)
            visitor.why = "failed"
        finally:
            if idle is not None:
                idle.cancel()
            if visitor.resizing is not None:
                visitor.resizing.cancel()
            await self._end_program(visitor)
            del self.visitors[visitor.number]
            seconds = time.monotonic() - started
            self._line(f"web visitor from {visitor.address} watched table {visitor.table} "
                       f"for {_duration(seconds)}: {_WHY.get(visitor.why, visitor.why)} "
                       f"({len(self.visitors)} of {self.settings.max_visitors} now)")
            if not ws.closed:
                with contextlib.suppress(*_GONE):
                    await ws.close()
            visitor.done.set()
        return ws

    def _command(self, info: TableInfo, broker: str, visitor: Visitor) -> str:
        argv = [*self.settings.command, "watch", info.pinned, "--kiosk", "--broker", broker,
                "--profile", f"web-{visitor.slot}", "--name", "web spectator"]
        return "exec " + shlex.join(argv)

    def _free_slot(self) -> int:
        taken = {v.slot for v in self.visitors.values()}
        return next(n for n in itertools.count(1) if n not in taken)

    async def _messages(self, ws: web.WebSocketResponse, service: _Service,
                        visitor: Visitor) -> None:
        """What the browser sends: keys and clicks (``stdin``), its size, focus, pings.
        Anything else, or anything malformed, is dropped."""
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
            if kind == "stdin" and isinstance(data, str):
                visitor.last_input = loop.time()
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                visitor.last_input = loop.time()
                self._resize(service, visitor, _size(data.get("width"), 80, MAX_WIDTH),
                             _size(data.get("height"), 24, MAX_HEIGHT))
            elif kind == "ping" and isinstance(data, str):
                await ws.send_json(["pong", data[:32]])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    def _resize(self, service: _Service, visitor: Visitor, width: int, height: int) -> None:
        """Apply a visitor's new size, at most once per `RESIZE_EVERY_S` (each makes the
        program draw its whole screen again): a newer size asked meanwhile replaces it."""
        visitor.size = (width, height)
        if visitor.resizing is None or visitor.resizing.done():
            visitor.resizing = asyncio.create_task(self._apply_size(service, visitor))

    async def _apply_size(self, service: _Service, visitor: Visitor) -> None:
        loop = asyncio.get_running_loop()
        while visitor.size is not None:
            wait = visitor.resized_at + RESIZE_EVERY_S - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            size, visitor.size = visitor.size, None
            if size is None:
                return
            visitor.resized_at = loop.time()
            with contextlib.suppress(*_GONE):
                await service.set_terminal_size(*size)

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
                await ws.close(code=CLOSE_IDLE, message=words.encode()[:120])
                return
            await asyncio.sleep(left + 0.05)

    async def _program_ended(self, ws: web.WebSocketResponse, visitor: Visitor) -> None:
        """The visitor's program ended by itself (or said it exits): say why on the page."""
        if ws.closed or visitor.closing:
            return
        visitor.closing = True
        if visitor.why == "left":
            visitor.why = "ended"
        info = await self._find(visitor.table, fresh=True)
        if info is None or info.offline:
            words = self._ended_words(visitor.table)
        else:
            words = "The spectator view has closed. Reload the page to watch again."
        await ws.close(code=CLOSE_GONE if info is not None else CLOSE_ENDED,
                       message=words.encode()[:120])

    async def _end_program(self, visitor: Visitor) -> None:
        service = visitor.service
        if service is None:
            return
        try:
            await asyncio.wait_for(service.stop(), STOP_GRACE_S)
        except (TimeoutError, Exception):
            service.kill()

    def _line(self, text: str) -> None:
        log.info("%s", text)
        self._say(text)


_WHY = {
    "left": "left",
    "idle": "closed as idle",
    "ended": "the view ended",
    "stopping": "the server stopped",
    "failed": "failed (see the log)",
}


_GONE = (ConnectionResetError, ClientConnectionResetError, BrokenPipeError)
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


def _size(value: object, default: int, most: int) -> int:
    try:
        number = int(str(value)[:8])
    except ValueError:
        return default
    return min(max(number, 10), most)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"

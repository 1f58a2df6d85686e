"""A stored game's replay in the browser: for each visitor of ``/game/ID`` one ``stacks
replay FILE`` (the same replay screen as in a terminal, stepped with the same keys), run
through textual-serve's :class:`~textual_serve.app_service.AppService` and relayed over
the page's websocket.

A replay is the visitor's own (each steps it alone), so each is a process: at most
``max_viewers`` at once (more are told the page is full), closed after ``idle_timeout``
without a key. The record is written once per game to the server's folder, from the
database, and read by the program as any record file.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import shlex
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import ClientConnectionResetError, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from netplay.record import write_record

log = logging.getLogger(__name__)

MAX_MESSAGE = 64 * 1024
MAX_WIDTH = 300
MAX_HEIGHT = 100
RESIZE_EVERY_S = 0.5
STOP_GRACE_S = 5.0
CLOSE_FULL = 4001
CLOSE_IDLE = 4002
CLOSE_GONE = 4003
CLOSE_STOPPING = 4004
_GONE = (ConnectionResetError, ClientConnectionResetError, BrokenPipeError)


class _Program(AppService):
    """One viewer's ``stacks replay`` (textual-serve's service, with an environment of
    its own and a call when the program ends by itself)."""

    def __init__(self, command: str, *, env: dict[str, str],
                 ended: Callable[[], Awaitable[None]], **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self._env = env
        self._ended = ended

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self._env)
        return environment

    async def run(self) -> None:
        await super().run()
        await self._ended()

    def kill(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGKILL)


@dataclass(eq=False)
class Viewer:
    game: str
    address: str
    ws: web.WebSocketResponse
    last_input: float
    program: _Program | None = None
    closing: bool = False
    size: tuple[int, int] | None = None
    resized_at: float = -1e9
    resizing: asyncio.Task[None] | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Replays:
    """The replay viewers of one web server."""

    def __init__(self, *, command: tuple[str, ...], home: Path, max_viewers: int,
                 idle_timeout: float, say: Callable[[str], None]) -> None:
        self.command = command
        self.home = home
        self.max_viewers = max_viewers
        self.idle_timeout = idle_timeout
        self._say = say
        self.viewers: set[Viewer] = set()
        self._downloads = DownloadManager()
        self._stopping = False

    @property
    def full(self) -> bool:
        return len(self.viewers) >= self.max_viewers

    def full_words(self) -> str:
        return (f"Every replay place is taken ({self.max_viewers} at once, each a program "
                "on the server). Try again in a few minutes.")

    def record_file(self, game_id: str, record: dict[str, Any]) -> Path:
        """The game's record as a file the replay program reads (written once)."""
        path = self.home / "replays" / f"{game_id}.json"
        if not path.exists():
            write_record(path, record)
        return path

    async def serve(self, request: web.Request, game_id: str,
                    record: Callable[[], Awaitable[dict[str, Any] | None]]) -> web.StreamResponse:
        """A viewer's websocket: its own ``stacks replay`` of the game, until it leaves,
        is idle too long, or the program ends."""
        ws = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        await ws.prepare(request)
        address = request.remote or "?"
        if self._stopping:
            await ws.close(code=CLOSE_STOPPING, message=b"The server is stopping.")
            return ws
        if self.full:
            self._say(f"web visitor from {address} turned away from the replay of game "
                      f"{game_id[:12]}: full ({self.max_viewers})")
            await ws.close(code=CLOSE_FULL, message=self.full_words().encode()[:120])
            return ws
        loop = asyncio.get_running_loop()
        viewer = Viewer(game_id, address, ws, loop.time())
        self.viewers.add(viewer)  # the place is taken before anything is awaited
        idle: asyncio.Task[None] | None = None
        try:
            found = await record()
            if found is None:
                await ws.close(code=CLOSE_GONE, message=b"No such game is stored here.")
                return ws
            path = self.record_file(game_id, found)
            argv = [*self.command, "replay", str(path)]
            program = viewer.program = _Program(
                "exec " + shlex.join(argv), env={"STACKS_HOME": str(self.home)},
                ended=lambda: self._ended(viewer), close=lambda: self._ended(viewer),
                write_bytes=ws.send_bytes, write_str=ws.send_str,
                download_manager=self._downloads)
            width = _size(request.query.get("width"), 80, MAX_WIDTH)
            height = _size(request.query.get("height"), 24, MAX_HEIGHT)
            await program.start(width, height)
            viewer.resized_at = loop.time()
            self._say(f"web visitor from {address} opened the replay of game "
                      f"{game_id[:12]} ({len(self.viewers)} of {self.max_viewers} replays)")
            if self.idle_timeout > 0:
                idle = asyncio.create_task(self._idle_watch(viewer))
            await self._messages(viewer, program)
        except _GONE:
            viewer.closing = True
        except Exception:
            log.exception("the replay of game %s failed", game_id)
        finally:
            if idle is not None:
                idle.cancel()
            if viewer.resizing is not None:
                viewer.resizing.cancel()
            await self._end_program(viewer)
            self.viewers.discard(viewer)
            if not ws.closed:
                with contextlib.suppress(*_GONE):
                    await ws.close()
            viewer.done.set()
        return ws

    async def _messages(self, viewer: Viewer, program: _Program) -> None:
        """What the browser sends: keys (``stdin``), its size, focus, pings; anything
        else, or malformed, is dropped."""
        loop = asyncio.get_running_loop()
        async for message in viewer.ws:
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
                viewer.last_input = loop.time()
                await program.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                viewer.last_input = loop.time()
                viewer.size = (_size(data.get("width"), 80, MAX_WIDTH),
                               _size(data.get("height"), 24, MAX_HEIGHT))
                if viewer.resizing is None or viewer.resizing.done():
                    viewer.resizing = asyncio.create_task(self._apply_size(viewer, program))
            elif kind == "ping" and isinstance(data, str):
                await viewer.ws.send_json(["pong", data[:32]])
            elif kind == "blur":
                await program.blur()
            elif kind == "focus":
                await program.focus()

    async def _apply_size(self, viewer: Viewer, program: _Program) -> None:
        """A size at most every `RESIZE_EVERY_S` (each redraws the whole screen); the
        newest asked for wins."""
        loop = asyncio.get_running_loop()
        while viewer.size is not None:
            wait = viewer.resized_at + RESIZE_EVERY_S - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            size, viewer.size = viewer.size, None
            if size is None:
                return
            viewer.resized_at = loop.time()
            with contextlib.suppress(*_GONE):
                await program.set_terminal_size(*size)

    async def _idle_watch(self, viewer: Viewer) -> None:
        loop = asyncio.get_running_loop()
        while True:
            left = viewer.last_input + self.idle_timeout - loop.time()
            if left <= 0:
                viewer.closing = True
                words = "Closed after a while without a key press. Reload to replay again."
                await viewer.ws.close(code=CLOSE_IDLE, message=words.encode()[:120])
                return
            await asyncio.sleep(left + 0.05)

    async def _ended(self, viewer: Viewer) -> None:
        """The replay program ended (the visitor pressed q): say so on the page."""
        if viewer.ws.closed or viewer.closing:
            return
        viewer.closing = True
        await viewer.ws.close(code=CLOSE_GONE, message=b"The replay has closed.")

    async def _end_program(self, viewer: Viewer) -> None:
        program = viewer.program
        if program is None:
            return
        try:
            await asyncio.wait_for(program.stop(), STOP_GRACE_S)
        except (TimeoutError, Exception):
            program.kill()

    async def stop(self) -> None:
        """Close every viewer (their programs end)."""
        self._stopping = True
        viewers = list(self.viewers)
        for viewer in viewers:
            with contextlib.suppress(Exception):
                await viewer.ws.close(code=CLOSE_STOPPING, message=b"The server has stopped.")
        if viewers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(v.done.wait() for v in viewers)),
                                       STOP_GRACE_S + 5)
        for viewer in viewers:
            if viewer.program is not None:
                viewer.program.kill()


def _size(value: object, default: int, most: int) -> int:
    try:
        number = int(str(value)[:8])
    except ValueError:
        return default
    return min(max(number, 10), most)

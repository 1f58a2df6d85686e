"""One spectator per watched table, its screen sent to every browser visitor of the table.

The visitors of a table all see the same thing (the spectator's view, after the table's
spectator delay), so it is drawn once: a :class:`Stage` runs one ``stacks watch TABLE
--kiosk`` under Textual's web driver (textual-serve's :class:`AppService`), at one fixed
terminal size, and keeps what it writes:

- what it draws goes through a terminal emulator (:mod:`webserver.terminal`): once it
  is quiet for `FLUSH_S` (at most `FLUSH_MAX_S` after the first frame) the cells that
  changed become one chunk, numbered, kept in a short run
  shared by every visitor (no visitor has a copy of its own: each has only the number of
  the next chunk it is owed);
- the whole screen as of the last chunk, for a visitor who arrives late or falls behind
  the kept run.

Each visitor has a sender (:meth:`Stage.send_to`) that writes what it is owed to its
websocket, all it is owed in one message; a slow visitor waits on its own socket and
stalls no one, and one who falls behind the kept chunks gets the whole screen again.

A stage starts with its table's first visitor and is stopped by its owner a while after
the last one leaves (:attr:`Stage.idle_since`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from webserver.terminal import Screen

log = logging.getLogger(__name__)

KEEP_BYTES = 512 * 1024
"""The changes kept for visitors catching up (one table's, not one visitor's): a visitor
further behind gets the whole screen instead."""
FLUSH_S = 0.02
"""The program's frames this close together are sent as one change (a Textual program
draws a change in a few frames, a few milliseconds apart): a change is sent once the
program has been quiet this long..."""
FLUSH_MAX_S = 0.08
"""...or this long after its first frame, whichever comes first (a program that keeps
drawing is still seen)."""
KIOSK_ENV = {"TEXTUAL_ANIMATIONS": "none"}
"""The table's program draws for spectators: no animation (a scroll, a fade) is drawn
frame by frame to be sent to every visitor."""
STOP_GRACE_S = 5.0
"""Seconds the table's program has to quit before it is killed."""

Write = Callable[[bytes], Awaitable[None]]


class _Program(AppService):
    """The table's program: textual-serve's, with its environment, its output kept by
    the stage, and a call when it ends (by itself or stopped)."""

    def __init__(self, command: str, *, env: dict[str, str], stage: Stage,
                 **kwargs: Any) -> None:
        super().__init__(command, write_bytes=stage.written, write_str=_ignore,
                         close=_nothing, **kwargs)
        self._env = env
        self._stage = stage

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.update(self._env)
        return environment

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None else None

    async def run(self) -> None:
        try:
            await super().run()
        finally:
            self._stage.program_ended()

    def kill(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGKILL)


async def _ignore(text: str) -> None:
    """What the program says besides its screen (open a URL, a download): not for
    spectators."""


async def _nothing() -> None:
    """The program says it exits: its end (`_Program.run`) says it to the stage."""


class Stage:
    """One table's spectator program and what it has drawn."""

    def __init__(self, table: str, command: str, *, size: tuple[int, int],
                 env: dict[str, str], slot: int,
                 on_end: Callable[[Stage], None] | None = None) -> None:
        self.table = table
        self.slot = slot
        """A number no other live stage has (its program's profile)."""
        self.size = size
        self.screen = Screen(*size)
        self.visitors = 0
        self.idle_since: float | None = None
        """When its last visitor left (``None`` while someone watches)."""
        self.ended = asyncio.Event()
        """The program has ended (the table ended, or the program failed or was stopped)."""
        self.stopping = False
        self._on_end = on_end
        self._chunks: deque[bytes] = deque()
        self._first = 0
        """The number of the oldest chunk kept."""
        self._kept = 0
        self._flush: asyncio.TimerHandle | None = None
        self._drawn_first = 0.0
        """When the first frame not yet sent came (the loop's clock)."""
        self._drawn_last = 0.0
        """When the last frame came."""
        self._changed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.program = _Program(command, env=env, stage=self,
                                download_manager=DownloadManager())

    @property
    def next(self) -> int:
        """The number the next chunk will have (every chunk so far is below it)."""
        return self._first + len(self._chunks)

    async def start(self) -> None:
        await self.program.start(*self.size)

    async def stop(self) -> None:
        """Ask the program to quit; kill it if it has not within `STOP_GRACE_S`."""
        self.stopping = True
        try:
            await asyncio.wait_for(self.program.stop(), STOP_GRACE_S)
        except (TimeoutError, Exception):
            self.program.kill()
        self.program_ended()

    # -- what the program draws ---------------------------------------------------------------

    async def written(self, data: bytes) -> None:
        """A piece of the program's screen output: drawn, and said as a change once the
        program is quiet for `FLUSH_S` (at most `FLUSH_MAX_S` after its first frame)."""
        if not data:
            return
        self.screen.feed(data)
        loop = asyncio.get_running_loop()
        self._drawn_last = loop.time()
        if self._flush is None:
            self._drawn_first = self._drawn_last
            self._flush = loop.call_later(FLUSH_S, self._due)

    def _due(self) -> None:
        """Say the changes if the program is quiet (or has drawn long enough); else look
        again when it may be."""
        loop = asyncio.get_running_loop()
        at = min(self._drawn_last + FLUSH_S, self._drawn_first + FLUSH_MAX_S)
        if at - loop.time() > 0.001:
            self._flush = loop.call_at(at, self._due)
            return
        self._said()

    def _said(self) -> None:
        """The changes drawn since the last time become a chunk; every visitor is woken."""
        self._flush = None
        data = self.screen.changes()
        if not data:
            return
        self._chunks.append(data)
        self._kept += len(data)
        while self._kept > KEEP_BYTES and len(self._chunks) > 1:
            self._kept -= len(self._chunks.popleft())
            self._first += 1
        self._wake()

    def program_ended(self) -> None:
        if self.ended.is_set():
            return
        if self._flush is not None:  # its last frames too
            self._flush.cancel()
            self._said()
        self.ended.set()
        self._wake()
        if self._on_end is not None:
            self._on_end(self)

    def _wake(self) -> None:
        changed = self._changed
        self._changed = asyncio.get_running_loop().create_future()
        if not changed.done():
            changed.set_result(None)

    # -- a visitor ------------------------------------------------------------------------------

    async def send_to(self, write: Write) -> None:
        """Send a visitor the whole screen (once there is one), then every change, until
        the program ends. Returns when it has; raises what ``write`` raises."""
        owed: int | None = None  # the next chunk the visitor is owed (None: the screen)
        while True:
            if owed is None or owed < self._first:
                if self.screen.drawn:  # the whole screen, as of the newest chunk
                    data = self.screen.repaint()
                    owed = self.next
                    await write(data)
                    continue
            elif owed < self.next:
                start = owed - self._first
                if start == len(self._chunks) - 1:
                    data = self._chunks[start]
                else:
                    data = b"".join(self._chunks[i] for i in range(start, len(self._chunks)))
                owed = self.next
                await write(data)
                continue
            if self.ended.is_set():
                return
            await asyncio.shield(self._changed)

"""A terminal driver that reads keys and writes frames on the event loop's own thread.

Textual's `LinuxDriver` reads the terminal in a thread of its own (which also wakes ten
times a second to look for a lone Escape) and writes each frame through a second thread
(a queue, one ``put`` per piece of a frame). Every key press is then three threads taking
turns at the interpreter's lock: the input thread parses the key and hands it to the loop
(a task made through ``run_coroutine_threadsafe``), the loop handles it and renders, the
writer thread wakes for the frame. Under ``stacks serve`` a hundred of these programs share
two cores (key to repaint p99 at 100 sessions: docs/benchmarks.md), and those hand-overs are a good
part of what a key costs, on top of the idle wake-ups of a hundred input threads.

`LoopDriver` is `LinuxDriver` with both jobs moved onto the loop: the terminal is read
when the loop sees it readable (``add_reader``), the keys are parsed there and posted
straight to the app, and a frame is written with one ``write`` when Textual flushes it.
The output goes through a descriptor of its own opened non-blocking on the same terminal,
so a player whose connection is slow never blocks the loop until a good deal of output
(`MAX_BACKLOG`) waits for them; past that the frame is written blocking, as Textual's own
driver blocks once its queue is full. Everything else (terminal modes, mouse, resize,
bracketed paste, suspend and resume) is Textual's. (Its writer thread is still started,
and waits idle: nothing is queued for it.)
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import select
from codecs import getincrementaldecoder
from typing import TYPE_CHECKING, Any

from textual import constants
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

if TYPE_CHECKING:
    import asyncio

    from textual.app import App
    from textual.message import Message

MAX_BACKLOG = 1 << 20
"""Bytes of output that may wait for a slow terminal before a write blocks the loop."""
READ_SIZE = 4096


class LoopDriver(LinuxDriver):
    """`LinuxDriver` whose input and output run on the event loop's thread (no threads)."""

    def __init__(self, app: App[Any], *, debug: bool = False, mouse: bool = True,
                 size: tuple[int, int] | None = None) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._pieces: list[str] = []
        """What Textual wrote since its last flush."""
        self._backlog = bytearray()
        """Output the terminal has not taken yet (it was slow to read)."""
        self._file_fd = self._file.fileno() if self._file is not None else 2
        """Where `LinuxDriver` writes (standard error, the terminal)."""
        self._out = -1
        """Our own non-blocking descriptor of the terminal (-1: write to ``_file_fd``)."""
        self._encoding = getattr(self._file, "encoding", None) or "utf-8"
        self._errors = getattr(self._file, "errors", None) or "strict"
        self._parser: XTermParser | None = None
        self._decode = getincrementaldecoder("utf-8")().decode
        self._reading = False
        self._input_on = False
        """Input is wanted (between `start_application_mode` and `disable_input`)."""
        self._tick: asyncio.TimerHandle | None = None

    # -- output ----------------------------------------------------------------------------

    def write(self, data: str) -> None:
        """Keep ``data`` for the next `flush` (Textual flushes once a frame)."""
        self._pieces.append(data)

    def flush(self) -> None:
        """Write what Textual wrote since the last flush, in one piece."""
        if not self._pieces:
            return
        data = "".join(self._pieces).encode(self._encoding, self._errors)
        self._pieces.clear()
        self._send(data)

    def _out_fd(self) -> int:
        return self._out if self._out >= 0 else self._file_fd

    def _open_output(self) -> None:
        """A descriptor of our own on the terminal, non-blocking (its flag is not shared
        with standard input and output, which stay blocking for everything else)."""
        if self._out >= 0:
            return
        fd = self._file_fd
        if not os.isatty(fd):
            return
        with contextlib.suppress(OSError):
            self._out = os.open(f"/proc/self/fd/{fd}",
                                os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)

    def _send(self, data: bytes) -> None:
        if self._backlog:  # still waiting for the terminal: keep the order
            self._backlog += data
            if len(self._backlog) > MAX_BACKLOG:
                self._drain()
            return
        try:
            written = os.write(self._out_fd(), data)
        except BlockingIOError:
            written = 0
        except OSError:
            return  # the terminal is gone (hung up): nobody to show anything to
        if written < len(data):
            self._backlog += data[written:]
            with contextlib.suppress(OSError, RuntimeError):
                self._loop.add_writer(self._out_fd(), self._write_backlog)

    def _write_backlog(self) -> None:
        """The terminal can take more: give it what waits."""
        try:
            written = os.write(self._out_fd(), self._backlog)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._backlog)  # gone: drop it
        del self._backlog[:written]
        if not self._backlog:
            with contextlib.suppress(OSError, RuntimeError):
                self._loop.remove_writer(self._out_fd())

    def _drain(self) -> None:
        """Write all that waits, waiting for the terminal as long as it takes."""
        fd = self._out_fd()
        while self._backlog:
            try:
                select.select([], [fd], [])
                written = os.write(fd, self._backlog)
            except BlockingIOError:
                continue
            except OSError:
                written = len(self._backlog)
            del self._backlog[:written]
        with contextlib.suppress(OSError, RuntimeError):
            self._loop.remove_writer(fd)

    # -- input -----------------------------------------------------------------------------

    def _run_input_thread(self) -> None:
        """Runs on the thread `LinuxDriver` starts for its input: hands reading over to
        the loop and ends."""
        self._loop.call_soon_threadsafe(self._start_reading)

    def _start_reading(self) -> None:
        if self._reading or not self._input_on:
            return
        self._parser = XTermParser(self._debug)
        self._decode = getincrementaldecoder("utf-8")().decode
        # An empty context, as the input thread had: nothing of whatever ran before
        # (a prevented message, say) rides along with the keys.
        contextvars.Context().run(self._loop.add_reader, self.fileno, self._read_input)
        self._reading = True

    def _stop_reading(self) -> None:
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        if self._reading:
            self._reading = False
            with contextlib.suppress(OSError, RuntimeError):
                self._loop.remove_reader(self.fileno)

    def _read_input(self) -> None:
        try:
            data = os.read(self.fileno, READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the terminal hung up: the hang-up signal ends us
            self._stop_reading()
            return
        parser = self._parser
        assert parser is not None
        for message in parser.feed(self._decode(data)):
            self.process_message(message)
        self._watch_escape(parser)

    def _watch_escape(self, parser: XTermParser) -> None:
        """A lone Escape is a key once no more bytes follow it for a moment (the parser
        says when): look again then, as the input thread did every tenth of a second."""
        if self._tick is not None:
            self._tick.cancel()
            self._tick = None
        due = getattr(parser, "_timeout_time", 0.0)  # None: nothing waits
        if due is not None:
            delay = constants.ESCAPE_DELAY + 0.005
            self._tick = self._loop.call_later(delay, self._check_timeout)

    def _check_timeout(self) -> None:
        self._tick = None
        parser = self._parser
        if parser is None or not self._reading:
            return
        for message in parser.tick():
            self.process_message(message)
        self._watch_escape(parser)

    def send_message(self, message: Message) -> None:
        """Post ``message`` to the app: we are on its loop already."""
        self._app.post_message(message)

    def disable_input(self) -> None:
        self._input_on = False
        self._stop_reading()
        super().disable_input()

    def stop_application_mode(self) -> None:
        super().stop_application_mode()
        self._drain()

    def start_application_mode(self) -> None:
        self._open_output()
        self._input_on = True
        super().start_application_mode()  # type: ignore[no-untyped-call]

    def close(self) -> None:
        """Write what is left and close our descriptor (`start_application_mode` opens
        another if the app resumes)."""
        self.flush()
        self._drain()
        if self._out >= 0:
            with contextlib.suppress(OSError):
                os.close(self._out)
            self._out = -1
        super().close()

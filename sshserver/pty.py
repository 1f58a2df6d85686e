"""One program in a pseudo-terminal of its own, driven from asyncio.

`PtyProcess` is what the ssh server runs for each connection: the program is the leader
of a new session whose controlling terminal is the pty (so the kernel sends it SIGWINCH
when the window size changes, and SIGHUP reaches its whole process group). Output is read
from the pty's master side without blocking the event loop and handed to a callback;
input is written to it. Nothing here knows about ssh.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sshserver.zygote import ForkServer

#: What a program that left its terminal in full-screen mode (killed, crashed) leaves
#: behind: the Kitty keyboard protocol, the alternate screen, a hidden cursor, focus
#: events, mouse reporting, bracketed paste, no line wrap, a colour. This undoes it all
#: (each part is harmless on a terminal already in its normal state).
TERMINAL_RESET = (
    b"\x1b[<u"  # pop the Kitty keyboard protocol flags
    b"\x1b[?1049l"  # leave the alternate screen
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1015l"  # mouse reporting off
    b"\x1b[?1004l"  # focus events off
    b"\x1b[?2004l"  # bracketed paste off
    b"\x1b[?7h"  # line wrap on
    b"\x1b[?25h"  # show the cursor
    b"\x1b[0m"  # plain colours
)

_READ_SIZE = 65536
#: Input kept for a program that doesn't read it (the rest is dropped, not buffered).
_MAX_PENDING_INPUT = 1 << 20


@dataclass(frozen=True)
class WindowSize:
    """A terminal's size in characters (and in pixels, 0 when unknown)."""

    columns: int
    rows: int
    width_px: int = 0
    height_px: int = 0

    def clamped(self) -> WindowSize:
        """The same size within what a pty accepts (1-9999 cells; 0 means unknown)."""
        return WindowSize(
            max(1, min(self.columns or 80, 9999)), max(1, min(self.rows or 24, 9999)),
            max(0, min(self.width_px, 65535)), max(0, min(self.height_px, 65535)),
        )

    def packed(self) -> bytes:
        size = self.clamped()
        return struct.pack("HHHH", size.rows, size.columns, size.width_px, size.height_px)


def set_window_size(fd: int, size: WindowSize) -> None:
    """Set the size of the terminal behind ``fd``; the kernel then sends SIGWINCH to the
    terminal's foreground process group if the size changed."""
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size.packed())


def get_window_size(fd: int) -> WindowSize:
    rows, columns, width, height = struct.unpack(
        "HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
    )
    return WindowSize(columns, rows, width, height)


def _take_terminal() -> None:  # pragma: no cover - runs in the child between fork and exec
    # After setsid() (start_new_session): standard input, the pty's slave side, becomes
    # this new session's controlling terminal.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class _Running(Protocol):
    """A started program: a spawned subprocess, or a child of the fork server."""

    @property
    def pid(self) -> int: ...

    async def wait(self) -> int: ...


class PtyProcess:
    """A program running in its own pty, in its own session.

    ``on_output`` gets every chunk the program writes; ``on_exit`` is called once, after
    the program exited and its output was read to the end, with its exit status (the
    negative signal number if a signal ended it).
    """

    def __init__(
        self,
        on_output: Callable[[bytes], None],
        on_exit: Callable[[int], None],
    ) -> None:
        self._on_output = on_output
        self._on_exit = on_exit
        self._master = -1
        self._proc: _Running | None = None
        self._reading = False
        self._paused = False
        self._pending = bytearray()  # input the pty could not take yet
        self._writing = False
        self._output_done = asyncio.Event()
        self._exited = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self.returncode: int | None = None
        self.forked = False
        """Forked by the fork server (else spawned as a new program)."""
        self.fork_problem: str | None = None
        """Why a fork server asked for this program did not fork it (it was spawned)."""

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and not self._exited.is_set()

    async def start(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        size: WindowSize,
        cwd: str | None = None,
        pass_fds: Sequence[int] = (),
        fork: tuple[ForkServer, Sequence[str]] | None = None,
    ) -> None:
        """Start ``argv`` in a new pty of ``size``; raises ``OSError`` if it can't.
        ``pass_fds`` stay open in the program (every other descriptor is closed).
        ``fork``: a fork server and the arguments of its entry that do what ``argv``
        does; the program is forked from it when it can, else ``argv`` is spawned."""
        master, slave = os.openpty()
        try:
            set_window_size(slave, size)
            attrs = termios.tcgetattr(slave)
            attrs[0] |= getattr(termios, "IUTF8", 0)  # erase whole UTF-8 characters
            termios.tcsetattr(slave, termios.TCSANOW, attrs)
            if fork is not None:
                from sshserver.zygote import ForkError

                server, args = fork
                try:
                    self._proc = await server.fork(args, env=env, cwd=cwd, slave=slave,
                                                   passed=pass_fds)
                    self.forked = True
                except ForkError as exc:
                    self.fork_problem = str(exc)
            if self._proc is None:
                self._proc = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=slave, stdout=slave, stderr=slave,
                    env=dict(env), cwd=cwd,
                    start_new_session=True,
                    preexec_fn=_take_terminal,
                    close_fds=True, pass_fds=tuple(pass_fds),
                )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the child has its copies: EIO on read once they all close
        os.set_blocking(master, False)
        self._master = master
        self._resume_reading()
        self._watcher = asyncio.create_task(self._watch(), name=f"pty-{self._proc.pid}")

    # -- output ---------------------------------------------------------------------------

    def _resume_reading(self) -> None:
        if not self._reading and self._master >= 0 and not self._output_done.is_set():
            asyncio.get_running_loop().add_reader(self._master, self._read)
            self._reading = True

    def _stop_reading(self) -> None:
        if self._reading:
            asyncio.get_running_loop().remove_reader(self._master)
            self._reading = False

    def _read(self) -> None:
        try:
            data = os.read(self._master, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError as exc:  # EIO: every copy of the slave side is closed
            if exc.errno not in (errno.EIO, errno.EBADF):
                raise
            data = b""
        if not data:
            self._stop_reading()
            self._output_done.set()
            return
        self._on_output(data)

    def pause_output(self) -> None:
        """Stop reading the program's output (the reader is slow): its output waits in
        the pty's buffer, then in the program (the interface's driver keeps up to
        `tui.driver.MAX_BACKLOG` before its writes block)."""
        self._paused = True
        self._stop_reading()

    def resume_output(self) -> None:
        self._paused = False
        self._resume_reading()

    # -- input ------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Type ``data`` into the program's terminal."""
        if self._master < 0 or self._exited.is_set():
            return
        if len(self._pending) + len(data) > _MAX_PENDING_INPUT:
            return  # the program stopped reading: keys typed at it now are lost anyway
        self._pending += data
        self._flush_input()

    def _flush_input(self) -> None:
        while self._pending:
            try:
                sent = os.write(self._master, self._pending)
            except BlockingIOError:
                break
            except OSError:
                self._pending.clear()  # the program is gone: its input with it
                break
            del self._pending[:sent]
        loop = asyncio.get_running_loop()
        if self._pending and not self._writing:
            loop.add_writer(self._master, self._flush_input)
            self._writing = True
        elif not self._pending and self._writing:
            loop.remove_writer(self._master)
            self._writing = False

    def resize(self, size: WindowSize) -> None:
        """Give the terminal a new size: the program gets SIGWINCH."""
        if self._master >= 0 and not self._exited.is_set():
            with contextlib.suppress(OSError):
                set_window_size(self._master, size)

    # -- the end --------------------------------------------------------------------------

    def signal_group(self, sig: int) -> bool:
        """Send ``sig`` to the program's process group; False if nobody was there."""
        pid = self.pid
        if pid is None:
            return False
        try:
            os.killpg(pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    async def hangup(self, grace: float) -> int:
        """End the program as a terminal hang-up does: SIGHUP (and SIGCONT, should it be
        stopped) to its process group, SIGKILL if it is still there after ``grace``
        seconds. Returns its exit status."""
        if self._proc is None:
            return 0
        if not self._exited.is_set():
            self.signal_group(signal.SIGHUP)
            self.signal_group(signal.SIGCONT)
            try:
                await asyncio.wait_for(self._exited.wait(), grace)
            except TimeoutError:
                self.signal_group(signal.SIGKILL)
        await self._exited.wait()
        return self.returncode if self.returncode is not None else 0

    async def wait(self) -> int:
        await self._exited.wait()
        return self.returncode if self.returncode is not None else 0

    async def _watch(self) -> None:
        assert self._proc is not None
        try:
            code = await self._proc.wait()
            # Its last words: what it wrote before exiting is still in the pty. A paused
            # reader (slow client) gets a little longer.
            if self._paused:
                self._resume_reading()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._output_done.wait(), 1.0)
            # Anything left in its process group (it started helpers and died) goes too.
            self.signal_group(signal.SIGKILL)
        finally:
            self._close()
        self.returncode = code
        self._exited.set()
        self._on_exit(code)

    def _close(self) -> None:
        self._stop_reading()
        if self._writing:
            asyncio.get_running_loop().remove_writer(self._master)
            self._writing = False
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        self._output_done.set()

"""The fork server: a warm, pre-imported process that forks one child per ssh session.

A fresh interpreter per session imports Textual, the interface, the protocol and the
engine again (about half a second of CPU and 30 MiB of private memory each). Instead,
``stacks serve`` starts one *fork server* (``python -m sshserver.zygote ENTRY``): it
imports the session program's modules once, moves every object it made out of the
garbage collector's reach (`gc.freeze`, so that no collection writes to the shared pages
afterwards) and then waits. For each session the server sends it the pty's slave side and
the session's other descriptors (``SCM_RIGHTS``) with the command line, environment and
working directory; the fork server forks, and the child becomes what a freshly started
program would be:

- the leader of a new session whose controlling terminal is the pty (fds 0-2), the passed
  descriptors at the numbers the server gave them, every other descriptor closed;
- its own environment, working directory, locale, signal dispositions, fresh standard
  streams and ``sys.argv``; ``random`` reseeded from the kernel (a fork copies the
  Mersenne Twister's state: two sessions would otherwise draw the same numbers). Keys and
  nonces come from the kernel (``os.urandom``, libsodium) and are never shared;
- no event loop, no thread, no socket of the fork server's (it has none but its control
  socket, closed in the child before anything runs).

The child then calls ENTRY (``module:function``, given the arguments) and exits with what
it returns (``python -m sshserver.zygote --run ENTRY ARGS...`` runs it as a program of
its own: a session's when it can't be forked). The fork server stays the children's
parent: it reaps them and reports each exit status; the server watches each child
through a pidfd it is handed at the fork, so a child's end is seen even if the fork
server is gone. What the server does when the fork server dies (restart it, spawn
sessions meanwhile) is `ForkServer`'s part.

The control channel is a Unix ``SOCK_SEQPACKET`` pair, one JSON object a message:

    server -> fork server: {"id": 7, "args": [...], "env": {...}, "cwd": "/",
                            "targets": [3]}        + fds [pty slave, *passed]
    fork server -> server: {"ready": PID, "modules": N}   (once, when warm)
                           {"id": 7, "pid": PID}   + fds [pidfd of the child]
                           {"id": 7, "error": "..."}
                           {"exit": PID, "code": CODE}   (CODE < 0: killed by -CODE)

Only ``stacks serve`` talks on it (a socket pair, no address); the fork server still
checks every message and refuses a malformed one in words instead of failing.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import contextlib
import fcntl
import gc
import importlib
import io
import json
import locale
import logging
import os
import pkgutil
import random
import selectors
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

CONTROL_ENV = "STACKS_ZYGOTE_FD"
"""The environment variable naming the fork server's end of its control socket."""
MAX_MESSAGE = 256 * 1024
MAX_FDS = 16
#: What a session's program needs, imported once by the fork server: the entry's module
#: and these packages, every module in them.
DEFAULT_PRELOAD = ("tui", "netplay", "engine")
READY_WAIT_S = 60.0
"""How long a session waits for a fork server that is still starting."""
RESTART_DELAYS_S = (0.0, 1.0, 5.0, 30.0)
"""Pauses before restarting a fork server that died, by how many died in a row."""
STEADY_S = 60.0
"""A fork server that lived this long resets the count of deaths in a row."""


# == the fork server's side ====================================================================


@dataclass
class _Child:
    """What a forked child is to become."""

    request: int
    args: list[str]
    env: dict[str, str]
    cwd: str | None
    slave: int
    passed: list[tuple[int, int]]  # (descriptor now, number it must have)


def _send(sock: socket.socket, message: dict[str, Any], fds: Sequence[int] = ()) -> None:
    data = json.dumps(message, separators=(",", ":")).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.send(data)


def _parse_request(data: bytes, fds: list[int]) -> _Child:
    """A fork request, or ``ValueError`` saying what is wrong with it."""
    message = json.loads(data)
    if not isinstance(message, dict):
        raise ValueError("not a JSON object")
    request = message.get("id")
    args, env, cwd = message.get("args"), message.get("env"), message.get("cwd")
    targets = message.get("targets", [])
    if not isinstance(request, int):
        raise ValueError("no request id")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ValueError("args must be a list of strings")
    if not isinstance(env, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and k and "=" not in k and "\0" not in k + v
        for k, v in env.items()
    ):
        raise ValueError("env must map names to strings")
    if cwd is not None and not isinstance(cwd, str):
        raise ValueError("cwd must be a string")
    if not isinstance(targets, list) or not all(
        isinstance(t, int) and not isinstance(t, bool) and 3 <= t < 1024 for t in targets
    ):
        raise ValueError("targets must be descriptor numbers from 3 to 1023")
    if len(set(targets)) != len(targets):
        raise ValueError("two descriptors can't have the same number")
    if len(fds) != 1 + len(targets):
        raise ValueError(f"{len(fds)} descriptors for {len(targets)} targets and a pty")
    return _Child(request, list(args), dict(env), cwd, fds[0],
                  list(zip(fds[1:], targets, strict=True)))


def serve(sock: socket.socket) -> _Child | None:
    """Fork a child for each request until the server closes the channel (``None``).
    Returns, in a child, what that child is to become."""
    try:
        return _serve(sock)
    except (BrokenPipeError, ConnectionError):
        return None  # the server went away while we told it something: nothing to do


def _serve(sock: socket.socket) -> _Child | None:
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ, None)
    children: dict[int, int] = {}  # pidfd -> pid
    try:
        while True:
            for key, _ in selector.select():
                if key.data is not None:  # a child ended
                    pidfd, pid = int(key.fd), int(key.data)
                    selector.unregister(pidfd)
                    os.close(pidfd)
                    del children[pidfd]
                    _, status = os.waitpid(pid, 0)
                    _send(sock, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})
                    continue
                try:
                    data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, MAX_FDS)
                except ConnectionError:
                    data, fds = b"", []
                if not data:
                    for fd in fds:
                        os.close(fd)
                    return None  # the server is gone or done: the children live on
                try:
                    child = _parse_request(data, fds)
                except (ValueError, UnicodeDecodeError) as exc:
                    for fd in fds:
                        os.close(fd)
                    _send(sock, {"id": _request_id(data), "error": f"bad request: {exc}"})
                    continue
                try:
                    pid = os.fork()
                except OSError as exc:
                    _close_child_fds(child)
                    _send(sock, {"id": child.request, "error": f"fork: {exc}"})
                    continue
                if pid == 0:  # the child: nothing of the fork server may stay open
                    with contextlib.suppress(OSError):
                        selector.close()
                    for pidfd in children:
                        os.close(pidfd)
                    sock.close()
                    return child
                _close_child_fds(child)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = pid
                selector.register(pidfd, selectors.EVENT_READ, pid)
                _send(sock, {"id": child.request, "pid": pid}, [pidfd])
    finally:
        with contextlib.suppress(Exception):
            selector.close()


def _request_id(data: bytes) -> int | None:
    with contextlib.suppress(ValueError, UnicodeDecodeError, AttributeError):
        value = json.loads(data).get("id")
        return value if isinstance(value, int) else None
    return None


def _close_child_fds(child: _Child) -> None:
    os.close(child.slave)
    for fd, _ in child.passed:
        os.close(fd)


def _fresh_stream(fd: int, mode: str, errors: str) -> io.TextIOWrapper:
    raw = io.FileIO(fd, mode, closefd=False)
    buffered: io.BufferedReader | io.BufferedWriter = io.BufferedReader(raw) if mode == "r" else \
        io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding="utf-8", errors=errors,
                            line_buffering=mode == "w" and raw.isatty(),
                            write_through=fd == 2)


def become(child: _Child) -> None:
    """In a freshly forked child: take the pty as the controlling terminal and standard
    streams, put the passed descriptors where they belong, close everything else, and
    take the session's environment, signals, locale and a random state of its own."""
    os.setsid()
    fcntl.ioctl(child.slave, termios.TIOCSCTTY, 0)
    # Out of the way first: a received descriptor may sit on a number another needs.
    floor = max([2, *(target for _, target in child.passed)]) + 1
    moved = [(fcntl.fcntl(fd, fcntl.F_DUPFD, floor), target) for fd, target in child.passed]
    for fd, _ in child.passed:
        os.close(fd)
    for number in (0, 1, 2):
        os.dup2(child.slave, number)
    if child.slave > 2:
        os.close(child.slave)
    for fd, target in moved:
        os.dup2(fd, target)  # inheritable, as subprocess's pass_fds leaves them
        os.close(fd)
    keep = {0, 1, 2, *(target for _, target in moved)}
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)  # (the listing's own descriptor is gone by now: EBADF)
    # Signals as a fresh interpreter has them.
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT,
                signal.SIGWINCH, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(child.env)
    with contextlib.suppress(locale.Error):
        locale.setlocale(locale.LC_CTYPE, "")
    if child.cwd:
        os.chdir(child.cwd)
    random.seed()  # from os.urandom: not the fork server's state
    # Textual's driver writes to sys.__stderr__ and reads sys.__stdin__: both are new.
    sys.stdin = sys.__stdin__ = _fresh_stream(0, "r", "surrogateescape")  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = _fresh_stream(1, "w", "surrogateescape")  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = _fresh_stream(2, "w", "backslashreplace")  # type: ignore[misc]
    sys.argv = list(child.args)
    # What ps shows: this session's command line, not the fork server's (SPT_NOENV: in
    # the room of the fork server's own, leaving /proc/PID/environ as it was).
    import setproctitle

    setproctitle.setproctitle(" ".join(child.args))


def load_entry(entry: str) -> Callable[[list[str]], int | None]:
    """``module:function``, imported."""
    module_name, _, function = entry.partition(":")
    if not module_name or not function:
        raise ValueError(f"entry {entry!r} is not module:function")
    module = importlib.import_module(module_name)
    found: Callable[[list[str]], int | None] = getattr(module, function)
    return found


def preload(packages: Sequence[str]) -> int:
    """Import every module of ``packages``; how many modules are loaded then. A module
    that can't be imported is left for the sessions to fail on (logged)."""
    for name in packages:
        try:
            package = importlib.import_module(name)
        except Exception as exc:  # any import error: the session's to show
            log.warning("fork server: can't import %s: %s", name, exc)
            continue
        for info in pkgutil.walk_packages(getattr(package, "__path__", []), name + "."):
            try:
                importlib.import_module(info.name)
            except Exception as exc:
                log.warning("fork server: can't import %s: %s", info.name, exc)
    return len(sys.modules)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sshserver.zygote")
    parser.add_argument("entry", help="module:function each child runs with its arguments")
    parser.add_argument("--preload", nargs="*", default=list(DEFAULT_PRELOAD),
                        metavar="PACKAGE", help="packages imported once, every module")
    parser.add_argument("--warm", metavar="MODULE:FUNCTION",
                        help="called once after the imports, before the first fork")
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["--run"] and len(words) >= 2:
        # The entry as a program of its own, with the rest as its arguments: what a
        # session runs when it can't be forked (`sshserver.settings.entry_command`).
        return int(load_entry(words[1])(words[2:]) or 0)
    args = parser.parse_args(words)
    text = os.environ.pop(CONTROL_ENV, "")
    if not text.isdigit():
        print(f"{parser.prog}: no control socket (${CONTROL_ENV})", file=sys.stderr)
        return 2
    sock = socket.socket(fileno=int(text))
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as exc:  # (Linux before 5.3): the server can't watch our children
        _send(sock, {"error": f"no pidfd on this system ({exc}): can't fork sessions"})
        return 1
    # A title of its own now, so that setproctitle finds where titles go before a child
    # empties the environment; SPT_NOENV: only in the room of this command line (long
    # enough for a session's), leaving /proc/PID/environ readable.
    os.environ["SPT_NOENV"] = "1"
    import setproctitle

    setproctitle.setproctitle(f"stacks fork server (python -m sshserver.zygote {args.entry})")

    entry = load_entry(args.entry)
    modules = preload(args.preload)
    if args.warm:
        warm: Callable[[], object] = load_entry(args.warm)  # type: ignore[assignment]
        warm()
        modules = len(sys.modules)
    if threading.active_count() > 1:
        # Forking a process with threads copies their locks in whatever state: refuse.
        _send(sock, {"error": f"{threading.active_count()} threads after the imports: "
                     "can't fork safely"})
        return 1
    gc.collect()
    gc.freeze()  # what is here now is shared with every child: keep the collector off it
    try:
        _send(sock, {"ready": os.getpid(), "modules": modules})
    except OSError:  # the server stopped (or died) while this one warmed up: nothing to do
        return 0
    child = serve(sock)
    if child is None:
        return 0
    # -- in a child: this process is one session's program from here on --
    become(child)
    del sock
    try:
        code = entry(child.args[1:])
    except KeyboardInterrupt:
        code = 130
    return int(code or 0)


# == the ssh server's side =====================================================================


def _set_none(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class ForkError(Exception):
    """The fork server can't start this session (the caller spawns it instead)."""


class ForkedProcess:
    """A session's program forked by the fork server, watched through its pidfd."""

    def __init__(self, pid: int, pidfd: int, status: asyncio.Future[int | None]) -> None:
        self.pid = pid
        self._pidfd = pidfd
        self._status = status
        self.returncode: int | None = None

    async def wait(self) -> int:
        """Its exit status once it ended (the negative signal number if a signal ended
        it); 0 if nobody can say any more (its fork server died before reaping it)."""
        if self.returncode is not None:
            return self.returncode
        loop = asyncio.get_running_loop()
        ended: asyncio.Future[None] = loop.create_future()
        if self._pidfd >= 0:
            loop.add_reader(self._pidfd, _set_none, ended)
            try:
                await ended
            finally:
                loop.remove_reader(self._pidfd)
                os.close(self._pidfd)
                self._pidfd = -1
        try:
            # The fork server reaps it at once and says how it ended.
            code = await asyncio.wait_for(asyncio.shield(self._status), 5.0)
        except TimeoutError:
            code = None
        if code is None:
            log.warning("session %d ended; its exit status is unknown (its fork server is "
                        "gone)", self.pid)
        self.returncode = 0 if code is None else code
        return self.returncode


class ForkServer:
    """The ssh server's handle on its fork server: starts it, asks it for sessions,
    restarts it when it dies (spawning sessions meanwhile is the caller's part: `fork`
    raises `ForkError`)."""

    def __init__(self, entry: str, *, preload: Sequence[str] = DEFAULT_PRELOAD,
                 warm: str | None = None, env: Mapping[str, str] | None = None,
                 say: Callable[[str], None] = lambda text: None,
                 python: str = sys.executable) -> None:
        self.entry = entry
        self.preload = tuple(preload)
        self.warm = warm
        self.env = dict(os.environ if env is None else env)
        self.say = say
        self.python = python
        self.proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._ready: asyncio.Future[None] | None = None
        self._requests: dict[int, asyncio.Future[tuple[int, int]]] = {}
        self._exits: dict[int, asyncio.Future[int | None]] = {}
        self._next_id = 0
        self._deaths = 0
        self._started_at = 0.0
        self._restart: asyncio.Task[None] | None = None
        self._closed = False
        self._gave_up = False
        self.forks = 0
        """Sessions forked, over every fork server this handle started."""

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None and self.proc.poll() is None else None

    @property
    def ready(self) -> bool:
        return self._ready is not None and self._ready.done() and \
            self._ready.exception() is None and self._sock is not None

    def start(self) -> None:
        """Start the fork server (it gets ready in the background)."""
        if self._closed or self._gave_up:
            return
        if not hasattr(os, "pidfd_open") or not hasattr(socket, "SOCK_SEQPACKET"):
            self._gave_up = True
            self.say("no fork server on this system (it needs Linux's pidfd): sessions "
                     "start as new processes")
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = {**self.env, CONTROL_ENV: str(theirs.fileno())}
        try:
            self.proc = subprocess.Popen(
                [self.python, "-m", "sshserver.zygote", self.entry,
                 *(["--warm", self.warm] if self.warm else []), "--preload", *self.preload],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env,
                pass_fds=(theirs.fileno(),), start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            self._failed(f"the fork server could not start: {exc}")
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        self._sock = ours
        self._started_at = time.monotonic()
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._ready.add_done_callback(lambda f: f.cancelled() or f.exception())
        loop.add_reader(ours.fileno(), self._readable)

    async def wait_ready(self, timeout: float = READY_WAIT_S) -> bool:
        """Whether the fork server is ready (waits while it starts)."""
        if self._ready is None or self._sock is None:
            return False
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        return self.ready

    async def fork(self, args: Sequence[str], *, env: Mapping[str, str], cwd: str | None,
                   slave: int, passed: Sequence[int] = ()) -> ForkedProcess:
        """A child running the entry with ``args`` on the pty ``slave``, the descriptors
        ``passed`` at the same numbers. `ForkError` if the fork server can't."""
        if not await self.wait_ready():
            raise ForkError("the fork server is not running")
        sock = self._sock
        assert sock is not None
        self._next_id += 1
        request = self._next_id
        reply: asyncio.Future[tuple[int, int]] = asyncio.get_running_loop().create_future()
        self._requests[request] = reply
        message = json.dumps({"id": request, "args": ["stacks", *args], "env": dict(env),
                              "cwd": cwd, "targets": list(passed)}).encode()
        try:
            await self._sendmsg(sock, message, [slave, *passed])
            pid, pidfd = await asyncio.wait_for(reply, 10.0)
        except (OSError, TimeoutError) as exc:
            raise ForkError(f"the fork server did not answer: {exc or 'timed out'}") from None
        finally:
            self._requests.pop(request, None)
        self.forks += 1
        status = self._exits.setdefault(pid, asyncio.get_running_loop().create_future())
        status.add_done_callback(lambda _: self._exits.pop(pid, None))
        return ForkedProcess(pid, pidfd, status)

    async def _sendmsg(self, sock: socket.socket, data: bytes, fds: list[int]) -> None:
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock.sendmsg([data], ancillary)
                return
            except BlockingIOError:
                writable: asyncio.Future[None] = loop.create_future()
                loop.add_writer(sock.fileno(), _set_none, writable)
                try:
                    await writable
                finally:
                    loop.remove_writer(sock.fileno())

    def _readable(self) -> None:
        sock = self._sock
        if sock is None:
            return
        while True:
            try:
                data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, MAX_FDS)
            except BlockingIOError:
                return
            except OSError:
                data, fds = b"", []
            if not data:
                for fd in fds:
                    os.close(fd)
                self._died()
                return
            try:
                message = json.loads(data)
                if not isinstance(message, dict):
                    raise ValueError("not an object")
            except ValueError:
                for fd in fds:
                    os.close(fd)
                log.warning("fork server: unreadable message %r", data[:200])
                continue
            self._message(message, fds)

    def _message(self, message: dict[str, Any], fds: list[int]) -> None:
        if "ready" in message:
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(None)
            self.say(f"fork server ready (pid {message['ready']}, "
                     f"{message.get('modules')} modules loaded)")
            return
        if "exit" in message:
            pid, code = message.get("exit"), message.get("code")
            if isinstance(pid, int):
                status = self._exits.setdefault(pid, asyncio.get_running_loop().create_future())
                if not status.done():
                    status.set_result(code if isinstance(code, int) else None)
            return
        request = message.get("id")
        reply = self._requests.get(request) if isinstance(request, int) else None
        if "error" in message and request is None:
            # It can't get ready (threads after the imports, no pidfd): never will.
            self.say(f"fork server: {message['error']}; sessions start as new processes")
            self._gave_up = True
            if self._ready is not None and not self._ready.done():
                self._ready.set_exception(ForkError(str(message["error"])))
            return
        if reply is None or reply.done():
            for fd in fds:
                os.close(fd)
            return
        pid = message.get("pid")
        if isinstance(pid, int) and len(fds) == 1:
            reply.set_result((pid, fds[0]))
        else:
            for fd in fds:
                os.close(fd)
            reply.set_exception(ForkError(str(message.get("error") or "no child")))

    def _failed(self, text: str) -> None:
        self._deaths += 1
        self.say(text)
        self._schedule_restart()

    def _died(self) -> None:
        """The control channel closed: the fork server is gone."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(sock.fileno())
            sock.close()
        proc = self.proc
        code = proc.poll() if proc is not None else None
        if proc is not None and code is None:
            # Its channel is closed: whatever it still does, it forks nothing more.
            with contextlib.suppress(OSError):
                proc.kill()
            asyncio.get_running_loop().run_in_executor(None, proc.wait)  # (reaped there)
        for reply in self._requests.values():
            if not reply.done():
                reply.set_exception(ForkError("the fork server died"))
        for status in self._exits.values():
            if not status.done():
                status.set_result(None)  # its children live on; their statuses are lost
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(ForkError("the fork server died while starting"))
        if self._closed or self._gave_up:
            return
        if time.monotonic() - self._started_at > STEADY_S:
            self._deaths = 0
        self._deaths += 1
        how = f"exit status {code}" if code is not None and code >= 0 else \
            f"signal {-code}" if code is not None else "unknown"
        self.say(f"the fork server died ({how}); sessions start as new processes until "
                 "it is back")
        self._schedule_restart()

    def _schedule_restart(self) -> None:
        if self._closed or self._gave_up or (self._restart is not None and
                                             not self._restart.done()):
            return
        delay = RESTART_DELAYS_S[min(self._deaths, len(RESTART_DELAYS_S)) - 1] \
            if self._deaths else 0.0
        self._restart = asyncio.get_running_loop().create_task(self._restart_after(delay))

    async def _restart_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self._restart = None  # (a start that fails at once schedules the next)
        if not self._closed:
            self.say("restarting the fork server")
            self.start()

    async def close(self) -> None:
        """Stop the fork server (its children, the sessions, are the caller's to end)."""
        self._closed = True
        if self._restart is not None:
            self._restart.cancel()
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(sock.fileno())
            sock.close()  # EOF: the fork server returns and exits
        proc = self.proc
        if proc is not None and proc.poll() is None:
            for _ in range(50):
                if proc.poll() is not None:
                    break
                await asyncio.sleep(0.05)
            else:
                proc.kill()
            proc.wait()


if __name__ == "__main__":
    sys.exit(main())

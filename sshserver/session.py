"""One ssh session channel: its program in its own pty, from the request to the end.

The session reads what the connection asks for (`sshserver.request`), gets its account's
name and profile, starts its ``stacks`` (forked from the server's fork server, or
spawned), feeds it the player's keys and window, answers what the program asks over its
link (`tui.serve_link`: the account, the held tables), hangs it up when the player goes
idle, and tells the player how it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections.abc import Collection, Coroutine, Mapping
from typing import TYPE_CHECKING, Protocol

import asyncssh

from sshserver.accounts import ACCOUNT_OPS, Login
from sshserver.keys import fingerprint
from sshserver.pty import TERMINAL_RESET, PtyProcess, WindowSize
from sshserver.request import (
    Request,
    RequestError,
    parse_request,
    player_name,
    profile_for_key,
    session_argv,
    session_env,
)
from sshserver.tables import Caller
from tui.serve_link import LINK_ENV, SSH_ENV, serve_link

if TYPE_CHECKING:
    from sshserver.accounts import Accounts
    from sshserver.settings import ServeSettings
    from sshserver.status import Status
    from sshserver.tables import TableKeeper
    from sshserver.zygote import ForkServer

UNDRAWN_GRACE = 60.0
"""Seconds a session may stay without a key while its program has not drawn anything yet
(the idle timeout counts from the program's first output; a program that never draws
still ends)."""

NO_TERMINAL = (
    "This server runs an interactive game: connect with a terminal, e.g.\n"
    "  ssh -t -p {port} NAME@HOST            (the main menu)\n"
    "  ssh -t -p {port} NAME@HOST join TABLE (straight to a table)\n"
)
USAGE = (
    "This server runs Sequence Stacks and nothing else. Connect with\n"
    "  ssh -p {port} NAME@HOST               the main menu\n"
    "  ssh -t -p {port} NAME@HOST join TABLE join a table\n"
    "  ssh -t -p {port} NAME@HOST watch TABLE watch a table\n"
)


class Link(Protocol):
    """What a session uses of its ssh connection: the key it signed in with, the peer's
    address, and the connection itself (the address the client reached)."""

    @property
    def key(self) -> asyncssh.SSHKey | None: ...

    @property
    def peer(self) -> str: ...

    @property
    def conn(self) -> asyncssh.SSHServerConnection | None: ...


class Served(Protocol):
    """What a session uses of the server that runs it: its settings, accounts, held
    tables, status, fork server and addresses, and its bookkeeping of the sessions (one
    per account at the menu or a table, at most ``max_sessions``). Its sessions and
    tables also make it what the status line counts (`sshserver.status.Counted`)."""

    @property
    def settings(self) -> ServeSettings: ...

    @property
    def accounts(self) -> Accounts: ...

    @property
    def tables(self) -> TableKeeper: ...

    @property
    def sessions(self) -> Collection[Session]: ...

    @property
    def status(self) -> Status: ...

    @property
    def zygote(self) -> ForkServer | None: ...

    @property
    def port(self) -> int: ...

    @property
    def broker_url(self) -> str | None: ...

    def admit(self, session: Session) -> bool: ...

    async def take_over(self, session: Session) -> None: ...

    def forget(self, session: Session) -> None: ...

    async def share_profile(self, profile: str) -> None: ...

    def ssh_command(self, connection: Link) -> str: ...


class Session(asyncssh.SSHServerSession[bytes]):
    """One ssh session channel: one program in one pty."""

    def __init__(self, server: Served, connection: Link) -> None:
        self.server = server
        self.connection = connection
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.command: str | None = None
        self.request: Request | None = None
        self.profile = ""
        self.name = ""
        self.login: Login | None = None
        self.proc: PtyProcess | None = None
        self.early_input = bytearray()  # typed before the program started
        self.at_table = ""
        """The last table its program hosted or joined (the log says it when it leaves)."""
        self.size: WindowSize | None = None  # the latest the client gave
        self.last_input = time.monotonic()
        self.drawn = False  # the program wrote nothing yet
        self.reason: str | None = None  # why the server ends this session
        self.gone = False  # the client is not there any more
        self.ended = asyncio.Event()
        self.hanging_up = False
        self._tasks: set[asyncio.Task[object]] = set()

    # -- asyncssh's callbacks -----------------------------------------------------------------

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Mapping[int, int]
    ) -> bool:
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False  # no sftp, nothing but the game

    def session_started(self) -> None:
        self._spawn(self._run())

    def data_received(self, data: bytes, datatype: asyncssh.DataType) -> None:
        self.last_input = time.monotonic()
        if self.proc is not None:
            self.proc.write(data)
        elif len(self.early_input) < 65536:
            self.early_input += data

    def terminal_size_changed(self, width: int, height: int, pixwidth: int,
                              pixheight: int) -> None:
        self.size = WindowSize(width, height, pixwidth, pixheight)
        if self.proc is not None:
            self.proc.resize(self.size)

    def eof_received(self) -> bool:
        # The client's standard input ended (``ssh host < file``): nothing more to type,
        # but the player may still be watching; a real hang-up is `connection_lost`.
        return True

    def pause_writing(self) -> None:
        if self.proc is not None:
            self.proc.pause_output()

    def resume_writing(self) -> None:
        if self.proc is not None:
            self.proc.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._client_left()

    # -- the session ----------------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[object, object, object]) -> None:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _client_left(self) -> None:
        if not self.gone:
            self.gone = True
            self.end(None)

    def end(self, reason: str | None) -> None:
        """Hang the program up; ``reason`` is told to the player when they are still here."""
        if self.reason is None and reason is not None:
            self.reason = reason
        if self.proc is None:
            return  # nothing runs yet: _run sees `gone` / `reason`
        if not self.hanging_up:
            self.hanging_up = True
            self._spawn(self.proc.hangup(self.server.settings.grace))

    def _say(self, text: str) -> None:
        if self.chan is None or self.gone:
            return
        with contextlib.suppress(Exception):
            if self.chan.get_terminal_type() is None:
                self.chan.write_stderr(text.encode())
            else:
                self.chan.write(text.replace("\n", "\r\n").encode())

    def _exit(self, status: int) -> None:
        if self.chan is None or self.gone:
            return
        with contextlib.suppress(Exception):
            self.chan.exit(status)

    def _output(self, data: bytes) -> None:
        if not self.drawn:  # the idle clock counts from the program's first output
            self.drawn = True
            self.last_input = time.monotonic()
        if self.chan is not None and not self.gone:
            with contextlib.suppress(Exception):
                self.chan.write(data)

    async def _run(self) -> None:
        chan = self.chan
        assert chan is not None
        server = self.server
        port = server.port
        try:
            term = chan.get_terminal_type()
            if term is None:
                self._say(NO_TERMINAL.format(port=port))
                self._exit(1)
                return
            try:
                self.request = parse_request(self.command)
            except RequestError as exc:
                self._say(f"{exc}\n\n{USAGE.format(port=port)}")
                self._exit(2)
                return
            key = self.connection.key
            assert key is not None, "a session before public-key authentication"
            username = str(chan.get_extra_info("username") or "")
            # The key's account decides the name and the game identity; a key without
            # one plays as the ssh login name until its program asks for a name.
            self.login = await server.accounts.login(
                fingerprint(key), profile_for_key(key.public_data), player_name(username))
            self.name, self.profile = self.login.name, self.login.profile
            if self.login.problem is not None:
                server.status.event(f"accounts can't be looked up for {self.name}: "
                                    f"{self.login.problem}")
            if self.request.kind == "watch":
                self.profile += "-w"  # a spectator identity: never blocks the seat's
            # One identity for the profile on every node of the community: its seats.
            await server.share_profile(self.profile)
            if not server.admit(self):
                self._say(f"The server is full ({server.settings.max_sessions} players): "
                          "try again later.\n")
                self._exit(1)
                return
            await server.take_over(self)
            if self.gone:
                return
            if self.reason is not None:
                self._say(f"{self.reason}\n")
                self._exit(1)
                return
            await self._play(term, key)
        finally:
            server.forget(self)
            self.ended.set()

    async def _play(self, term: str, key: asyncssh.SSHKey) -> None:
        """Run the session's program until it ends, then tell the player how it ended."""
        chan = self.chan
        assert chan is not None and self.request is not None
        width, height, pixwidth, pixheight = chan.get_terminal_size()
        size = self.size = WindowSize(width, height, pixwidth, pixheight)
        ssh = self.server.ssh_command(self.connection)
        started = await self._start(term, ssh, size)
        if started is None:
            return
        proc, ours = started
        # Whatever the program asks for, it asks as this connection's key and name.
        link = asyncio.create_task(serve_link(ours, lambda req: self._link_request(req, ssh)))
        self.server.status.event(
            f"{self.name} connected from {self.connection.peer} "
            f"(key {fingerprint(key)}): {self.request.describe()}"
        )
        self._catch_up(proc, size)
        code = await self._wait(proc, link)
        self._note_left()
        self._tell_end(code)

    def _program(self, term: str, ssh: str) -> tuple[list[str], dict[str, str]]:
        """The command line and environment of the session's program."""
        chan, request, server = self.chan, self.request, self.server
        assert chan is not None and request is not None
        argv = session_argv(server.settings.command, request, name=self.name,
                            profile=self.profile, broker=server.broker_url)
        env = session_env(os.environ, term=term, client=chan.get_environment(),
                          user=self.name)
        env[SSH_ENV] = ssh
        if server.settings.database:
            env["STACKS_DATABASE"] = server.settings.database  # ratings.local.DATABASE_ENV
        return argv, env

    async def _start(
        self, term: str, ssh: str, size: WindowSize
    ) -> tuple[PtyProcess, socket.socket] | None:
        """Start the program in its pty, forked from the fork server if there is one, with
        the far end of its link; the process and the near end, or ``None`` when it could
        not start (the player is told)."""
        request, server = self.request, self.server
        assert request is not None
        argv, env = self._program(term, ssh)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env[LINK_ENV] = str(theirs.fileno())
        proc = PtyProcess(self._output, lambda code: None)
        fork = None
        if server.zygote is not None:
            fork = (server.zygote, session_argv((), request, name=self.name,
                                                profile=self.profile, broker=server.broker_url))
        try:
            await proc.start(argv, env=env, size=size, pass_fds=(theirs.fileno(),), fork=fork)
        except OSError as exc:
            ours.close()
            server.status.event(f"could not start {argv[0]} for {self.name}: {exc}")
            self._say(f"The game could not start on the server: {exc}\n")
            self._exit(1)
            return None
        finally:
            theirs.close()
        self.proc = proc
        if proc.fork_problem is not None:
            server.status.event(f"{self.name}'s session started as a new process: "
                                f"{proc.fork_problem}")
        return proc, ours

    def _catch_up(self, proc: PtyProcess, size: WindowSize) -> None:
        """Give the program what happened while it was starting: a new window size, the
        keys typed, the player gone or the server ending the session."""
        if self.size is not None and self.size != size:
            proc.resize(self.size)
        if self.early_input:
            proc.write(bytes(self.early_input))
            self.early_input.clear()
        if self.gone or self.reason is not None:
            self.hanging_up = True
            self._spawn(proc.hangup(self.server.settings.grace))

    async def _wait(self, proc: PtyProcess, link: asyncio.Task[None]) -> int:
        """The program's exit status, the idle watch running meanwhile."""
        idle = asyncio.create_task(self._idle_watch())
        try:
            return await proc.wait()
        finally:
            idle.cancel()
            link.cancel()

    def _note_left(self) -> None:
        """The server's log line for a player who left."""
        assert self.request is not None
        where = self.request.describe()
        if self.at_table and self.at_table != self.request.table:
            where += f"; was at table {self.at_table}"  # came in by the menu, sat at a table
        self.server.status.event(f"{self.name} left ({where})")

    def _tell_end(self, code: int) -> None:
        """Tell a player still here why the program ended, with its exit status."""
        chan = self.chan
        if self.gone or chan is None:
            return
        if self.reason is not None:
            self._output(TERMINAL_RESET)
            self._say(f"\n{self.reason}\n")
            self._exit(1)
        elif code < 0:
            self._output(TERMINAL_RESET)
            self._say(f"\nThe game stopped unexpectedly (signal {-code}).\n")
            self._exit(128 - code)
        else:
            self._exit(code)
        with contextlib.suppress(Exception):
            chan.close()

    async def _link_request(self, request: dict[str, object], ssh: str) -> dict[str, object]:
        """One request of this session's program: about its account, or a table."""
        if request.get("op") in ACCOUNT_OPS and self.login is not None:
            before = self.name
            reply = await self.server.accounts.request(self.login, dict(request))
            if self.login.name != before:
                self.name = self.login.name
                self.server.status.event(f"{before} is now called {self.name} "
                                         f"(key {self.login.ssh_fingerprint})")
                self.server.status.changed(self.server)
            elif reply.get("ok") and request.get("op") == "add_key":
                self.server.status.event(f"{self.name}: {reply.get('note')}")
            return reply
        table = request.get("table")
        if request.get("op") in ("open", "info") and isinstance(table, str):
            self.at_table = table  # hosting or joining one from the menu: the log says
        return await self.server.tables.handle(Caller(self.profile, self.name, ssh),
                                               dict(request))

    async def _idle_watch(self) -> None:
        timeout = self.server.settings.idle_timeout
        if timeout <= 0:
            return
        while True:
            # Nobody is idle before the game is on their screen (a loaded server may take
            # seconds to draw it): until the program writes, a minute at least; its first
            # output starts the clock again (_output).
            allowed = timeout if self.drawn else max(timeout, UNDRAWN_GRACE)
            left = self.last_input + allowed - time.monotonic()
            if left <= 0:
                minutes = timeout / 60
                self.end(f"No key pressed for {minutes:g} minute{'s' if minutes != 1 else ''}: "
                         "disconnected. Connect again with your key to take up where "
                         "you were.")
                return
            await asyncio.sleep(min(left, timeout) + 0.05)

"""``stacks serve``: a built-in ssh server; each connection plays in its own ``stacks``.

For players who can reach the host machine by ssh and nothing else. Every ssh session
runs its own ``stacks`` process in its own pseudo-terminal (`sshserver.pty.PtyProcess`),
so one crash or hang touches nobody else:

- ``ssh -p 2222 NAME@host`` opens the main menu as player NAME;
  ``ssh -t -p 2222 NAME@host join TABLE`` / ``watch TABLE`` go straight to a table.
  Nothing else runs: no shell, no scp/sftp, no forwarding.
- The seat belongs to the client's account (`sshserver.accounts`): the first login of a
  key asks for a name; the account plays with the profile of the key that made it
  (``ssh-`` and 16 hex digits of the SHA-256 of the key), and every key added to it logs
  in to that profile, so reconnecting with any of its keys takes back the same seat with
  its hand. A second connection of an account that is already at the menu or a table
  takes over from the first, which is told and hung up.
- Only public-key logins: keys in the authorized-keys file (or any key with ``--open``),
  and the keys account holders added to their accounts (`sshserver.accounts`).
- The terminal type and window size come from the client's pty request; window changes
  resize the pty (the program gets SIGWINCH). A client that goes away, the idle timeout
  and the server's stop hang the program up (SIGHUP, then SIGKILL after a grace).
- A table opened from the menu is held by the server (`sshserver.tables`), not by the
  connection that opened it: the program asks for it over a channel of its own
  (`tui.serve_link`) and then sits at it as a player, so its connection may drop too.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import re
import shlex
import signal
import socket
import sys
import time
import unicodedata
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

import asyncssh

from broker.address import lan_address
from sshserver.accounts import ACCOUNT_OPS, Accounts, Login
from sshserver.options import (
    DEFAULT_GRACE_S,
    DEFAULT_IDLE_MINUTES,
    DEFAULT_LOBBY_MINUTES,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SSH_PORT,
    DEFAULT_WEB_SPECTATORS,
)
from sshserver.pty import TERMINAL_RESET, PtyProcess, WindowSize
from sshserver.tables import Caller, KeeperSettings, TableKeeper
from tui.serve_link import LINK_ENV, SSH_ENV, serve_link

if TYPE_CHECKING:
    from broker.autostart import MeetingPoint
    from netplay.lobby import TableInfo
    from sshserver.zygote import ForkServer
    from webserver.server import WebServer

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"
AUTHORIZED_KEYS_FILE = "authorized_keys"
PROFILE_PREFIX = "ssh-"
SERVED_TABLES = "served-tables"
RATINGS_PENDING = "ratings-pending"
"""Finished held tables not yet stored in the database (`ratings.archive`)."""
"""The journals of the tables the server holds, in the data directory: apart from
``stacks host``'s, since the server resumes these itself."""
MAX_NAME = 24
UNDRAWN_GRACE = 60.0
"""Seconds a session may stay without a key while its program has not drawn anything yet
(the idle timeout counts from the program's first output; a program that never draws
still ends)."""
DEFAULT_TERM = "xterm-256color"

#: Variables of the server's own environment that describe the server's terminal or
#: session, not the player's (and the server's ssh agent is nobody else's business).
_ENV_DROP = frozenset({
    "TMUX", "TMUX_PANE", "STY", "WINDOW", "COLUMNS", "LINES", "COLORTERM", "TERM",
    "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TERM_SESSION_ID", "WINDOWID", "KITTY_WINDOW_ID",
    "KITTY_PID", "VTE_VERSION", "WT_SESSION", "ITERM_SESSION_ID", "KONSOLE_VERSION",
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY",
    "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
})
#: What a client may set in its session's environment (OpenSSH sends LANG and LC_*).
_ENV_FROM_CLIENT = frozenset({"LANG", "COLORTERM", "NO_COLOR"})
#: What such a value (and the terminal type) may look like: a name, not a path or a story.
_SAFE_ENV = re.compile(r"[A-Za-z0-9._+@-]{0,64}")
"""Used with ``fullmatch``: ``$`` would also take a value ending in a newline."""

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


# -- what a connection asks for ---------------------------------------------------------------


class RequestError(ValueError):
    """The remote command is not one this server runs; the message says what is."""


@dataclass(frozen=True)
class Request:
    """What the player asked for: the menu, or a table to join or watch."""

    kind: Literal["menu", "join", "watch"]
    table: str | None = None
    ask_password: bool = False
    """``join TABLE --password``: the interface asks for the table's password."""

    def describe(self) -> str:
        return self.kind if self.table is None else f"{self.kind} {self.table}"


def parse_request(command: str | None) -> Request:
    """The request of an ssh command line: nothing (menu), ``join [TABLE] [--password]``,
    ``watch TABLE``; a leading ``stacks`` is allowed. Raises `RequestError`."""
    from netplay.topics import check_table_name

    try:
        words = shlex.split(command or "")
    except ValueError as exc:
        raise RequestError(f"can't read the command {command!r}: {exc}") from None
    if words[:1] in (["stacks"], ["sequence-stacks"]):
        words = words[1:]
    if not words or words == ["menu"]:
        return Request("menu")
    verb, rest = words[0], words[1:]
    if verb not in ("join", "watch"):
        raise RequestError(f"{verb!r} is not something this server runs")
    ask_password = False
    if verb == "join" and "--password" in rest:
        rest = [word for word in rest if word != "--password"]
        ask_password = True
    if any(word.startswith("-") for word in rest) or len(rest) > 1:
        raise RequestError(f"{verb} takes a table name and nothing else: {command!r}")
    if not rest and verb == "watch":
        raise RequestError("watch needs a table name: watch TABLE")
    table = None
    if rest:
        try:
            table = check_table_name(rest[0])
        except ValueError as exc:
            raise RequestError(str(exc)) from None
    return Request("join" if verb == "join" else "watch", table, ask_password)


def profile_for_key(key_blob: bytes) -> str:
    """The profile bound to an ssh public key (its wire-format blob)."""
    return PROFILE_PREFIX + hashlib.sha256(key_blob).hexdigest()[:16]


def player_name(username: str) -> str:
    """The ssh user name as a player name: printable, trimmed, at most 24 characters."""
    text = "".join(
        ch for ch in username if not unicodedata.category(ch).startswith(("C", "Z")) or ch == " "
    )
    text = " ".join(text.split())[:MAX_NAME].strip()
    return text or "player"


def session_argv(
    command: Sequence[str], request: Request, *, name: str, profile: str, broker: str | None
) -> list[str]:
    """The command line of one connection's ``stacks``."""
    if request.kind == "menu":
        argv = [*command, "--profile", profile, "--name", name]
        return argv + (["--broker", broker] if broker is not None else [])
    argv = [*command, request.kind]
    if request.table is not None:
        argv.append(request.table)
    if request.ask_password:
        argv.append("--password")
    argv += ["--profile", profile, "--name", name]
    if broker is not None:
        argv += ["--broker", broker]
    return argv


def session_env(
    base: Mapping[str, str], *, term: str | None, client: Mapping[str, str], user: str
) -> dict[str, str]:
    """The environment of one connection's program: the server's, minus what describes
    the server's own terminal, plus the client's terminal type and locale."""
    env = {key: value for key, value in base.items() if key not in _ENV_DROP}
    for key, value in client.items():
        if (key in _ENV_FROM_CLIENT or key.startswith("LC_")) and _SAFE_ENV.fullmatch(value):
            env[key] = value
    env["TERM"] = term if term and _SAFE_ENV.fullmatch(term) else DEFAULT_TERM
    env["STACKS_SSH_USER"] = user
    locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    if not re.search(r"utf-?8", locale, re.IGNORECASE):
        env.pop("LC_ALL", None)
        env["LC_CTYPE"] = "C.UTF-8"  # ssh clients are UTF-8 terminals; Textual needs it
    return env


# -- settings and keys ----------------------------------------------------------------------------


def config_dir() -> Path:
    """The stacks config directory (``STACKS_HOME`` overrides the platform's)."""
    from netplay.identity import profiles_dir

    return profiles_dir().parent


def default_command() -> tuple[str, ...]:
    return (sys.executable, "-m", "stacks.cli")


#: What `default_command` runs, as the fork server's entry (`sshserver.zygote`).
DEFAULT_ENTRY = "stacks.cli:main"
#: What the fork server imports for `DEFAULT_ENTRY`: its packages (every module) and the
#: modules it imports only when it runs.
PRELOAD = ("tui", "netplay", "engine", "stacks.commands.ui", "textual.scrollbar")
#: What the fork server does once before its first fork (`sshserver.warm`).
DEFAULT_WARM = "sshserver.warm:menu"


@dataclass(frozen=True)
class ServeSettings:
    bind: str = "0.0.0.0"
    port: int = DEFAULT_SSH_PORT
    broker: str | None = None
    open: bool = False
    authorized_keys: Path | None = None
    """``None``: ``authorized_keys`` in the config dir (unless ``open``)."""
    idle_timeout: float = DEFAULT_IDLE_MINUTES * 60
    """Seconds without a key press before a session is hung up; 0: never."""
    grace: float = DEFAULT_GRACE_S
    """Seconds between SIGHUP and SIGKILL."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    command: tuple[str, ...] = field(default_factory=default_command)
    config: Path | None = None
    """``None``: `config_dir()`."""
    public_host: str | None = None
    """The host name players reach the server by, for the join commands shown to them;
    ``None``: the address each connection came to."""
    tables: KeeperSettings = field(default_factory=KeeperSettings)
    """When the tables opened from the menu end (`sshserver.tables`)."""
    database: str | None = None
    """Where finished held tables and ratings are stored; ``None``: SQLite in the data
    directory."""
    web_port: int | None = None
    """Also serve the held tables' web page (`webserver`) on this port; ``None``: no page."""
    web_bind: str = "127.0.0.1"
    web_max_spectators: int = DEFAULT_WEB_SPECTATORS
    fork: bool = True
    """Fork each session's ``stacks`` from a warm, pre-imported fork server
    (`sshserver.zygote`) instead of starting a new interpreter; only for the default
    command (``--session-command`` is always spawned)."""

    @property
    def config_path(self) -> Path:
        return self.config or config_dir()

    @property
    def keys_path(self) -> Path:
        return self.authorized_keys or self.config_path / AUTHORIZED_KEYS_FILE


class ServeError(Exception):
    """The server can't start; the message says why and what to do."""


def load_host_key(path: Path) -> asyncssh.SSHKey:
    """The server's host key: read, or generated once and kept (mode 0600)."""
    if path.exists():
        try:
            return asyncssh.read_private_key(path)
        except (OSError, ValueError, asyncssh.KeyImportError) as exc:
            raise ServeError(f"can't read the host key {path}: {exc}") from exc
    key = asyncssh.generate_private_key("ssh-ed25519", comment="stacks serve")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.export_private_key())
        os.replace(tmp, path)
        path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    except OSError as exc:
        raise ServeError(f"can't write the host key {path}: {exc}") from exc
    return key


class AuthorizedKeys:
    """The authorized-keys file, read again whenever it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._keys: asyncssh.SSHAuthorizedKeys | None = None
        self._stamp: tuple[int, int] | None = None
        self.count = 0

    def load(self) -> None:
        """Read the file; `ServeError` if it is missing or unreadable."""
        try:
            stat = self.path.stat()
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ServeError(
                f"no authorized keys file at {self.path}.\n"
                "  Put the players' public keys there (one per line, as in "
                "~/.ssh/authorized_keys),\n"
                "  give another file with --authorized-keys FILE, or let any key in with "
                "--open (a LAN party)."
            ) from None
        except OSError as exc:
            raise ServeError(f"can't read {self.path}: {exc}") from exc
        self._stamp = (stat.st_mtime_ns, stat.st_size)
        lines = [line for line in text.splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        self.count = len(lines)
        try:
            self._keys = asyncssh.import_authorized_keys(text) if lines else None
        except ValueError:  # no valid entry at all
            self._keys, self.count = None, 0

    def _refresh(self) -> None:
        try:
            stat = self.path.stat()
        except OSError:
            return  # keep what we had
        if (stat.st_mtime_ns, stat.st_size) != self._stamp:
            try:
                self.load()
            except ServeError as exc:
                log.warning("%s", exc)

    def allows(self, key: asyncssh.SSHKey, host: str, addr: str) -> bool:
        self._refresh()
        return self._keys is not None and self._keys.validate(key, host, addr) is not None


# -- the server -----------------------------------------------------------------------------------


def _raise_fd_limit(sessions: int) -> None:
    """Room for ``sessions`` sessions' descriptors (about five each: the connection, the
    pty, the link, the process's pidfd), up to the hard limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 8 * sessions + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def _fingerprint(key: asyncssh.SSHKey) -> str:
    return key.get_fingerprint("sha256")


def _record_path(table: str, game: str) -> Path:
    """A held table's record: in the records folder, named after its game and table."""
    from netplay.journal import default_record_path

    return default_record_path(table, game)


class _Connection(asyncssh.SSHServer):
    """One ssh connection: authentication, then its session channels."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.key: asyncssh.SSHKey | None = None
        self.peer = "?"

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"

    def begin_auth(self, username: str) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if self.server.allows(key, self.peer) or \
                await self.server.accounts.key_allowed(_fingerprint(key)):
            self.key = key  # the last key accepted is the one that signs in
            return True
        self.server.status.event(
            f"refused key {_fingerprint(key)} for {player_name(username)!r} from {self.peer}"
        )
        return False

    def session_requested(self) -> _Session:
        return _Session(self.server, self)


class _Session(asyncssh.SSHServerSession[bytes]):
    """One ssh session channel: one program in one pty."""

    def __init__(self, server: GameServer, connection: _Connection) -> None:
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
                _fingerprint(key), profile_for_key(key.public_data), player_name(username))
            self.name, self.profile = self.login.name, self.login.profile
            if self.login.problem is not None:
                server.status.event(f"accounts can't be looked up for {self.name}: "
                                    f"{self.login.problem}")
            if self.request.kind == "watch":
                self.profile += "-w"  # a spectator identity: never blocks the seat's
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
        chan = self.chan
        assert chan is not None and self.request is not None
        server = self.server
        width, height, pixwidth, pixheight = chan.get_terminal_size()
        size = self.size = WindowSize(width, height, pixwidth, pixheight)
        argv = session_argv(server.settings.command, self.request, name=self.name,
                            profile=self.profile, broker=server.broker_url)
        env = session_env(os.environ, term=term, client=chan.get_environment(),
                          user=self.name)
        ssh = server.ssh_command(self.connection)
        env[SSH_ENV] = ssh
        if server.settings.database:
            env["STACKS_DATABASE"] = server.settings.database  # ratings.local.DATABASE_ENV
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env[LINK_ENV] = str(theirs.fileno())
        proc = PtyProcess(self._output, lambda code: None)
        fork = None
        if server.zygote is not None:
            fork = (server.zygote, session_argv((), self.request, name=self.name,
                                                profile=self.profile, broker=server.broker_url))
        try:
            await proc.start(argv, env=env, size=size, pass_fds=(theirs.fileno(),), fork=fork)
        except OSError as exc:
            ours.close()
            server.status.event(f"could not start {argv[0]} for {self.name}: {exc}")
            self._say(f"The game could not start on the server: {exc}\n")
            self._exit(1)
            return
        finally:
            theirs.close()
        self.proc = proc
        if proc.fork_problem is not None:
            server.status.event(f"{self.name}'s session started as a new process: "
                                f"{proc.fork_problem}")
        # Whatever the program asks for, it asks as this connection's key and name.
        link = asyncio.create_task(serve_link(ours, lambda req: self._link_request(req, ssh)))
        server.status.event(
            f"{self.name} connected from {self.connection.peer} "
            f"(key {_fingerprint(key)}): {self.request.describe()}"
        )
        if self.size != size:  # the window changed while the program was starting
            proc.resize(self.size)
        if self.early_input:
            proc.write(bytes(self.early_input))
            self.early_input.clear()
        if self.gone or self.reason is not None:
            self.hanging_up = True
            self._spawn(proc.hangup(server.settings.grace))
        idle = asyncio.create_task(self._idle_watch())
        try:
            code = await proc.wait()
        finally:
            idle.cancel()
            link.cancel()
        where = self.request.describe()
        if self.at_table and self.at_table != self.request.table:
            where += f"; was at table {self.at_table}"  # came in by the menu, sat at a table
        server.status.event(f"{self.name} left ({where})")
        if self.gone:
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


class GameServer:
    """The listening ssh server and the sessions it runs."""

    def __init__(self, settings: ServeSettings, status: Status | None = None) -> None:
        self.settings = settings
        self.status = status or Status()
        self.sessions: set[_Session] = set()
        self.seats: dict[str, _Session] = {}
        self.authorized: AuthorizedKeys | None = None
        self.host_key: asyncssh.SSHKey | None = None
        self._acceptor: asyncssh.SSHAcceptor | None = None
        tables = settings.tables
        if tables.journals is None:
            from netplay.journal import data_dir

            tables = replace(tables, journals=data_dir() / SERVED_TABLES)
        from netplay.journal import data_dir
        from ratings.archive import Archive
        from ratings.store import default_database

        self.archive = Archive(settings.database or default_database(data_dir()),
                               data_dir() / RATINGS_PENDING, say=self._table_news)
        self.accounts = Accounts(self.archive)
        self._draining: asyncio.Task[int] | None = None
        self.tables = TableKeeper(self._table_broker, settings=tables,
                                  say=self._table_news, record_path=_record_path,
                                  archive=self.archive)
        self._meeting: MeetingPoint | None = None
        self._meeting_lock = asyncio.Lock()
        self.web: WebServer | None = None
        self.zygote: ForkServer | None = None
        """The fork server the sessions' programs come from (`sshserver.zygote`)."""

    def _table_news(self, text: str) -> None:
        self.status.event(text)
        self.status.changed(self)

    @property
    def broker_url(self) -> str | None:
        """The broker every session meets on: ``--broker``, or the one the server started
        for its tables (``None`` before: the sessions' default, a broker on this machine)."""
        if self.settings.broker is not None:
            return self.settings.broker
        return self._meeting.url if self._meeting is not None else None

    async def _table_broker(self) -> str:
        """The broker of the tables the server holds; without ``--broker``, the embedded
        one on this machine's port 1883 (or the broker found there), started on first use
        so that a server nobody hosts on touches no port but its own."""
        if self.settings.broker is not None:
            return self.settings.broker
        async with self._meeting_lock:
            if self._meeting is None:
                from broker.autostart import start_meeting_point

                self._meeting = await start_meeting_point("127.0.0.1")
                self.status.event(self._meeting.note)
            return self._meeting.url

    def ssh_command(self, connection: _Connection) -> str:
        """``ssh -t [-p PORT] NAME@HOST``: how players reach this server, as
        ``connection`` reached it (or ``--public-host``); NAME is each player's own (the
        name they play under), so it stays a word to replace."""
        host = self.settings.public_host
        if not host:
            sockname = connection.conn.get_extra_info("sockname") if connection.conn else None
            host = str(sockname[0]) if sockname else (lan_address() or socket.gethostname())
            if host.startswith("::ffff:"):
                host = host[len("::ffff:"):]
        port = self.port
        return f"ssh -t {'' if port == 22 else f'-p {port} '}NAME@{host}"

    @property
    def port(self) -> int:
        return self._acceptor.get_port() if self._acceptor is not None else self.settings.port

    def allows(self, key: asyncssh.SSHKey, peer: str) -> bool:
        if self.settings.open:
            return True
        return self.authorized is not None and self.authorized.allows(key, peer, peer)

    def admit(self, session: _Session) -> bool:
        if len(self.sessions) >= self.settings.max_sessions:
            return False
        self.sessions.add(session)
        self.status.changed(self)
        return True

    def forget(self, session: _Session) -> None:
        self.sessions.discard(session)
        if self.seats.get(session.profile) is session:
            del self.seats[session.profile]
        self.status.changed(self)

    async def take_over(self, session: _Session) -> None:
        """Make ``session`` the one session of its key at the menu or a table: an earlier
        one is told and hung up first (the same player, reconnecting)."""
        if session.request is None or session.request.kind == "watch":
            return
        while (old := self.seats.get(session.profile)) is not None and old is not session:
            old.end("You connected again from elsewhere (the same account): this connection "
                    "is closed.")
            await old.ended.wait()
            if self.seats.get(session.profile) is old:
                del self.seats[session.profile]
        self.seats[session.profile] = session

    async def start(self) -> None:
        settings = self.settings
        if not settings.open:
            self.authorized = AuthorizedKeys(settings.keys_path)
            self.authorized.load()
        self.host_key = load_host_key(settings.config_path / HOST_KEY_FILE)
        try:
            self._acceptor = await asyncssh.create_server(
                lambda: _Connection(self), settings.bind or None, settings.port,
                server_host_keys=[self.host_key],
                encoding=None,
                line_editor=False,
                allow_pty=True,
                x11_forwarding=False,
                agent_forwarding=False,
                allow_scp=False,
                keepalive_interval=30,
                keepalive_count_max=4,
                login_timeout=60,
                server_version="sequence-stacks",
            )
        except OSError as exc:
            raise ServeError(f"can't listen on {settings.bind}:{settings.port}: "
                             f"{exc.strerror or exc}") from exc
        _raise_fd_limit(settings.max_sessions)
        if settings.fork and settings.command == default_command():
            from sshserver.zygote import ForkServer

            env = session_env(os.environ, term=None, client={}, user="")
            env.pop("STACKS_SSH_USER", None)
            self.zygote = ForkServer(DEFAULT_ENTRY, warm=DEFAULT_WARM, preload=PRELOAD,
                                     env=env, say=self.status.event)
            self.zygote.start()
        # Finished games a stopped (or killed) server had not stored yet: stored once.
        self._draining = asyncio.create_task(self.archive.drain(), name="ratings-drain")
        if settings.web_port is not None:
            await self._start_web(settings.web_port)
        await self.tables.resume_all()  # the tables a stopped (or crashed) server held

    async def _start_web(self, port: int) -> None:
        """The web page of the tables the server holds, beside the ssh port."""
        from webserver.server import WebError, WebServer, WebSettings

        settings = self.settings
        web = WebServer(
            WebSettings(bind=settings.web_bind, port=port,
                        max_visitors=settings.web_max_spectators,
                        idle_timeout=settings.idle_timeout),
            tables=self.held_tables, broker=lambda: self.broker_url,
            say=self.status.event, where="the tables this ssh server holds")
        try:
            await web.start()
        except WebError as exc:
            if self._acceptor is not None:
                self._acceptor.close()
            raise ServeError(f"web page: {exc}") from exc
        self.web = web

    async def held_tables(self) -> list[TableInfo]:
        """The tables the server holds, as its broker lists them (the web page's)."""
        from netplay.lobby import list_tables

        held = set(self.tables.tables)
        url = self.broker_url
        if not held or url is None:
            return []
        return [t for t in await list_tables(url, timeout=2.0) if t.table in held]

    async def stop(self, reason: str = "The server is stopping: goodbye.") -> None:
        """Stop listening, hang up every session, wait for their programs, end the
        tables the server holds."""
        if self._acceptor is not None:
            self._acceptor.close()
        if self.web is not None:
            await self.web.stop()
            self.web = None
        sessions = list(self.sessions)
        for session in sessions:
            session.end(reason)
        if sessions:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    asyncio.gather(*(s.ended.wait() for s in sessions)),
                    self.settings.grace + 5,
                )
        for session in sessions:
            if session.proc is not None and session.proc.running:
                session.proc.signal_group(signal.SIGKILL)
        if self.zygote is not None:
            await self.zygote.close()
        await self.tables.stop()
        if self._draining is not None and not self._draining.done():
            self._draining.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._draining
        await self.archive.close()
        if self._meeting is not None:
            await self._meeting.close()
            self._meeting = None
        if self._acceptor is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acceptor.wait_closed(), 5)


# -- what the server's own terminal shows ---------------------------------------------------------


class Status:
    """Events and the session count on the server's terminal.

    On a terminal: a live status line under the events; otherwise timestamped lines.
    """

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out
        self._live: Callable[[str], None] | None = None
        self._print: Callable[[str], None] | None = None
        self.line = ""

    def attach(self, live: Callable[[str], None], printer: Callable[[str], None]) -> None:
        self._live, self._print = live, printer

    def event(self, text: str) -> None:
        log.info("%s", text)
        if self._print is not None:
            self._print(text)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {text}", file=self.out, flush=True)

    def changed(self, server: GameServer) -> None:
        n = len(server.sessions)
        names = sorted(s.name for s in server.sessions if s.name)
        line = f"{n} session{'s' if n != 1 else ''} connected"
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            line += f": {shown}"
        tables = len(server.tables.tables)
        if tables:
            line += f" · {tables} table{'s' if tables != 1 else ''} held"
        if line == self.line:
            return
        self.line = line
        if self._live is not None:
            self._live(line)
        elif self.out is not None:
            print(f"{time.strftime('%H:%M:%S')} {line}", file=self.out, flush=True)


def _where(server: GameServer) -> list[str]:
    settings = server.settings
    bind = settings.bind or "0.0.0.0"
    shown = "HOST"
    if bind in ("0.0.0.0", "::"):
        shown = lan_address() or socket.gethostname()
    elif bind:
        shown = bind
    port = server.port
    flag = "" if port == 22 else f"-p {port} "
    if settings.open:
        who = "any ssh key may connect (--open)"
    else:
        count = server.authorized.count if server.authorized else 0
        who = f"{count} authorized key{'s' if count != 1 else ''} in {settings.keys_path}"
        if count == 0:
            who += " (nobody new can connect)"
        who += ", and the keys added to accounts"
    broker = settings.broker or "mqtt://127.0.0.1:1883 (this machine)"
    fingerprint = _fingerprint(server.host_key) if server.host_key else "?"
    lines = [
        f"ssh server on {bind}:{port} · players: ssh {flag}NAME@{shown}",
        f"{who} · tables on {broker}",
        f"host key {fingerprint} · Ctrl-C to stop",
    ]
    if server.web is not None:
        lines.insert(2, f"web page of the held tables on {server.web.url} (at most "
                     f"{settings.web_max_spectators} browser spectators)")
    return lines


# -- the command --------------------------------------------------------------------------------


def settings_from(args: argparse.Namespace) -> ServeSettings:
    command = default_command()
    if getattr(args, "session_command", None):
        command = tuple(shlex.split(args.session_command))
    keys = getattr(args, "authorized_keys", None)
    return ServeSettings(
        bind=args.bind, port=args.ssh_port, broker=args.broker, open=args.open,
        authorized_keys=Path(keys).expanduser() if keys else None,
        idle_timeout=args.idle_timeout * 60, max_sessions=args.max_sessions, command=command,
        public_host=getattr(args, "public_host", None),
        tables=KeeperSettings(
            lobby_timeout=getattr(args, "lobby_timeout", DEFAULT_LOBBY_MINUTES) * 60),
        database=getattr(args, "database", None),
        web_port=getattr(args, "web_port", None),
        web_bind=getattr(args, "web_bind", "127.0.0.1"),
        web_max_spectators=getattr(args, "web_max_spectators", DEFAULT_WEB_SPECTATORS),
        fork=not getattr(args, "no_fork", False),
    )


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM: 0 after a clean stop, 2 if it can't start."""
    if logging.getLogger("asyncssh").level == logging.NOTSET:
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    settings = settings_from(args)
    try:
        return asyncio.run(serve(settings, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return 0


async def serve(settings: ServeSettings, out: TextIO, err: TextIO) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    status = Status(out)
    server = GameServer(settings, status)
    try:
        await server.start()
    except ServeError as exc:
        print(f"stacks serve: {exc}", file=err)
        return 2
    checked = asyncio.create_task(_check_broker(server))
    try:
        if out.isatty():
            await _live_status(server, stop, out)
        else:
            for line in _where(server):
                print(line, file=out, flush=True)
            status.changed(server)
            await stop.wait()
    finally:
        checked.cancel()
        await server.stop()
    print("ssh server stopped.", file=out, flush=True)
    return 0


async def _check_broker(server: GameServer) -> None:
    """Does the broker of the held tables hold small messages back (Nagle)? Measured once
    beside the serving and said in the server's log: its operator can fix the broker's
    config, its players can't (``netplay.nagle``)."""
    from netplay.nagle import holds_back, slow_words

    url = server.settings.broker
    if not url:
        return
    try:
        delay = await asyncio.wait_for(holds_back(url), 20)
    except (TimeoutError, OSError):
        return
    if delay is not None:
        server.status.event(f"warning: {slow_words(url, delay)}")


async def _live_status(server: GameServer, stop: asyncio.Event, out: TextIO) -> None:
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console(file=out)
    for line in _where(server):
        console.print(Text(line))

    def render(line: str) -> Text:
        return Text(f"● {line}", no_wrap=True, overflow="ellipsis")

    with Live(render("0 sessions connected"), console=console, auto_refresh=False) as live:
        server.status.attach(
            lambda line: live.update(render(line), refresh=True),
            lambda text: console.print(Text(f"{time.strftime('%H:%M:%S')} {text}")),
        )
        server.status.changed(server)
        await stop.wait()

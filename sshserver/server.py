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

The modules of the server: this one listens and authenticates (`GameServer`,
`_Connection`), shows its banner and runs the command; `sshserver.session` is one
session's flow (it knows the server and the connection by what it uses of them:
`sshserver.session.Served`, `sshserver.session.Link`), `sshserver.request` what a
connection asks for and what its program runs as, `sshserver.settings` and
`sshserver.keys` the settings and keys, `sshserver.status` the events and the status line
on the server's terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO, overload

import asyncssh

from broker.address import lan_address
from sshserver.accounts import Accounts
from sshserver.keys import HOST_KEY_FILE, AuthorizedKeys, fingerprint, load_host_key
from sshserver.moderation import WHO_FILE, Moderation
from sshserver.request import player_name, session_env
from sshserver.session import Link, Session
from sshserver.settings import (
    DEFAULT_ENTRY,
    DEFAULT_WARM,
    PRELOAD,
    ServeError,
    ServeSettings,
    settings_from,
)
from sshserver.status import Status
from sshserver.tables import TableKeeper
from sshserver.wordfilter import WordFilterError

if TYPE_CHECKING:
    from broker.autostart import MeetingPoint
    from netplay.lobby import TableInfo
    from sshserver.beacon import MqttBeacon
    from sshserver.cluster import ClusterNode
    from sshserver.health import OpsServer
    from sshserver.metrics import ServerMetrics
    from sshserver.zygote import ForkServer
    from webserver.server import WebServer

log = logging.getLogger(__name__)
BROKER_CUT = ("This server lost its connection to the game's broker: connect again (the same "
              "ssh command) and you are back in your seat.")
"""What a node's ssh players read when its broker does not reach the community."""

SERVED_TABLES = "served-tables"
"""The journals of the tables the server holds, in the data directory: apart from
``stacks host``'s, since the server resumes these itself."""
RATINGS_PENDING = "ratings-pending"
"""Finished held tables not yet stored in the database (`ratings.archive`)."""


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
        self.refused_key = False
        """A key it offered was refused (the login is refused if no other key is let in)."""
        self.authenticated = False

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"

    def auth_completed(self) -> None:
        self.authenticated = True

    def connection_lost(self, exc: Exception | None) -> None:
        if self.refused_key and not self.authenticated:
            self.server.refused("unknown_key")  # once a connection, however many keys

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
                await self.server.accounts.key_allowed(fingerprint(key)):
            self.key = key  # the last key accepted is the one that signs in
            return True
        self.refused_key = True
        self.server.status.event(
            f"refused key {fingerprint(key)} for {player_name(username)!r} from {self.peer}",
            "key_refused", key=fingerprint(key), peer=self.peer,
        )
        return False

    def session_requested(self) -> Session:
        return Session(self.server, self)


class GameServer:
    """The listening ssh server and the sessions it runs."""

    def __init__(self, settings: ServeSettings, status: Status | None = None) -> None:
        self.settings = settings
        self.status = status or Status()
        self.sessions: set[Session] = set()
        self.seats: dict[str, Session] = {}
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
        self.moderation = Moderation(self, settings.moderation,
                                     who_file=data_dir() / WHO_FILE)
        """Mutes, bans, reports and the rest (`sshserver.moderation`)."""
        self.tables.admit = self.moderation.admit
        self.tables.left_early = self.moderation.left_early
        self._meeting: MeetingPoint | None = None
        self._meeting_lock = asyncio.Lock()
        self.web: WebServer | None = None
        self.zygote: ForkServer | None = None
        """The fork server the sessions' programs come from (`sshserver.zygote`)."""
        self.metrics: ServerMetrics | None = None
        """What the server counts for Prometheus (``--metrics-port``)."""
        self.ops: OpsServer | None = None
        """The HTTP server of the metrics and the health check."""
        self.node: ClusterNode | None = None
        self._beacon: MqttBeacon | None = None
        """This server's part in a community of several (``--node``), once started."""
        self._broker_now: str | None = None
        """Of several ``--broker``s, the one in use (the first that answered)."""

    def _table_news(self, text: str) -> None:
        self.status.event(text)
        self.status.changed(self)

    @property
    def broker_url(self) -> str | None:
        """The broker every session meets on: ``--broker``, or the one the server started
        for its tables (``None`` before: the sessions' default, a broker on this machine)."""
        if self._broker_now is not None:
            return self._broker_now
        if self.settings.broker is not None:
            return self.settings.broker
        return self._meeting.url if self._meeting is not None else None

    async def _table_broker(self) -> str:
        """The broker of the tables the server holds; without ``--broker``, the embedded
        one on this machine's port 1883 (or the broker found there), started on first use
        so that a server nobody hosts on touches no port but its own."""
        if len(self.settings.brokers) > 1:
            self._broker_now = await first_answering(self.settings.brokers,
                                                     self._broker_now)
            return self._broker_now
        if self.settings.broker is not None:
            return self.settings.broker
        async with self._meeting_lock:
            if self._meeting is None:
                from broker.autostart import start_meeting_point

                self._meeting = await start_meeting_point("127.0.0.1")
                self.status.event(self._meeting.note)
            return self._meeting.url

    def ssh_command(self, connection: Link) -> str:
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

    def admit(self, session: Session) -> bool:
        if len(self.sessions) >= self.settings.max_sessions:
            self.refused("server_full")
            return False
        self.sessions.add(session)
        self.status.changed(self)
        return True

    def refused(self, cause: str) -> None:
        """A login turned away, counted by cause (`sshserver.metrics`)."""
        if self.metrics is not None:
            self.metrics.refused(cause)

    def reload_keys(self) -> None:
        """Read the authorized-keys file again (SIGHUP): a key removed is refused at its
        next login, a key added is let in; an unreadable file keeps the keys read last."""
        if self.authorized is None:
            self.status.event("SIGHUP: any key may connect (--open): no keys to reload",
                              "keys_reloaded")
            return
        path = self.authorized.path
        try:
            self.authorized.load()
        except ServeError as exc:
            self.status.event(f"SIGHUP: the authorized keys were not reloaded, the server "
                              f"keeps the {self.authorized.count} it had: {exc}",
                              "keys_reloaded", error=str(exc))
            return
        count = self.authorized.count
        self.status.event(f"SIGHUP: {count} authorized key{'s' if count != 1 else ''} "
                          f"reloaded from {path}", "keys_reloaded", keys=count)

    async def _broker_answers(self) -> str | None:
        """The broker in use, or the next of ``--broker``'s list that answers (then used
        from now on); ``None`` when none does."""
        urls = self.settings.brokers or ((self.settings.broker,) if self.settings.broker
                                         else ())
        found = await first_answering(urls, self._broker_now, strict=True) if urls else None
        if found is not None and len(urls) > 1 and found != self._broker_now:
            if self._broker_now is not None:
                self._table_news(f"broker {self._broker_now} does not answer: using {found}")
            self._broker_now = found
        return found

    async def share_profile(self, profile: str) -> None:
        """A node of several: the profile's game identity is the community's (the same
        on every node, so a player's seats are theirs whichever node they reach)."""
        if self.node is None:
            return
        try:
            await self.node.share_profile(profile)
        except Exception as exc:  # the local identity still plays; its seats may differ
            self.status.event(f"profile {profile}: the shared identity can't be used "
                              f"now: {exc}")

    def forget(self, session: Session) -> None:
        self.sessions.discard(session)
        if self.seats.get(session.profile) is session:
            del self.seats[session.profile]
        self.status.changed(self)

    async def take_over(self, session: Session) -> None:
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
        try:
            await self.moderation.start()
        except WordFilterError as exc:
            raise ServeError(str(exc)) from None
        if not settings.open:
            self.authorized = AuthorizedKeys(settings.keys_path)
            self.authorized.load()
        self.host_key = load_host_key(settings.config_path / HOST_KEY_FILE)
        if settings.metrics_port is not None:  # up before the players can come
            await self._start_metrics(settings.metrics_port)
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
            if self.ops is not None:
                await self.ops.stop()
            raise ServeError(f"can't listen on {settings.bind}:{settings.port}: "
                             f"{exc.strerror or exc}") from exc
        _raise_fd_limit(settings.max_sessions)
        if settings.node is not None:  # before anything else starts: it may refuse
            await self._join_community(settings.node)
        entry = settings.fork_entry
        if entry is not None:
            from sshserver.zygote import DEFAULT_PRELOAD, ForkServer

            env = session_env(os.environ, term=None, client={}, user="")
            env.pop("STACKS_SSH_USER", None)
            ours = entry == DEFAULT_ENTRY  # `stacks` itself: warmed up as its menu
            self.zygote = ForkServer(entry, warm=DEFAULT_WARM if ours else None,
                                     preload=PRELOAD if ours else DEFAULT_PRELOAD,
                                     env=env, say=self.status.event)
            self.zygote.start()
        # Finished games a stopped (or killed) server had not stored yet: stored once.
        self._draining = asyncio.create_task(self.archive.drain(), name="ratings-drain")
        if settings.web_port is not None:
            await self._start_web(settings.web_port)
        if settings.node is None:
            await self.tables.resume_all()  # the tables a stopped (or crashed) server held
        for line in await self.tables.check_engines():
            self.status.event(line)

    async def _start_metrics(self, port: int) -> None:
        """The metrics and the health check (`sshserver.health`), beside the ssh port;
        every held table's host is watched for its latency from now on."""
        from sshserver.health import OpsServer
        from sshserver.latency import watch_host
        from sshserver.metrics import ServerMetrics

        metrics = ServerMetrics(self)
        ops = OpsServer(metrics, self.archive, lambda: self.broker_url,
                        bind=self.settings.metrics_bind, port=port)
        await ops.start()
        self.tables.on_host = lambda host: watch_host(host, metrics.observe_latency)
        self.metrics, self.ops = metrics, ops

    async def _join_community(self, node: str) -> None:
        """Run as ``node`` of the community on the shared database: its schema brought up
        to date, then its tables held under leases (`sshserver.cluster`)."""
        from netplay.journal import data_dir
        from ratings.cluster import ClusterStore
        from ratings.schema import SchemaTooNew
        from ratings.store import DatabaseError, Store, default_database
        from sshserver.cluster import ClusterNode

        url = self.settings.database or str(default_database(data_dir()))
        if self.settings.broker is None:
            if self._acceptor is not None:
                self._acceptor.close()
            raise ServeError(f"node {node}: give --broker, the broker (cluster) every node "
                             "of the community uses")
        try:
            store = await Store.open(url)
            await store.close()
        except (DatabaseError, SchemaTooNew) as exc:
            if self._acceptor is not None:
                self._acceptor.close()
            raise ServeError(f"node {node}: {exc}") from exc
        if len(self.settings.brokers) > 1:
            self._broker_now = await first_answering(self.settings.brokers, None)
        from sshserver.beacon import MqttBeacon

        first = self.settings.broker
        urls = self.settings.brokers or (first,)
        self._beacon = MqttBeacon(node, lambda: self._broker_now or first, urls)
        await self._beacon.start()
        self.node = ClusterNode(ClusterStore(url, node), self.tables, say=self._table_news,
                                broker=self._broker_answers, hearing=self._beacon,
                                cut_off=self._broker_cut_off)
        await self.node.start()

    def _broker_cut_off(self) -> None:
        """This node's broker does not reach the community: its tables went to the other
        nodes; its ssh players are told to come back (through another node)."""
        sessions = list(self.sessions)
        for session in sessions:
            session.end(BROKER_CUT)
        if sessions:
            self._table_news(f"{len(sessions)} ssh session(s) told to connect again: this "
                             "node's broker does not reach the community")

    async def _start_web(self, port: int) -> None:
        """The web page of the tables the server holds, beside the ssh port."""
        from webserver.server import WebError, WebServer, WebSettings

        settings = self.settings
        web = WebServer(
            WebSettings(bind=settings.web_bind, port=port,
                        max_visitors=settings.web_max_spectators,
                        idle_timeout=settings.idle_timeout, database=self.archive.url,
                        wait_for_database=True),
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
        if self.node is not None:  # every node's tables
            from ratings.cluster import ClusterDown

            with contextlib.suppress(ClusterDown):
                held |= {row.table for row in
                         await asyncio.to_thread(self.node.store.listed)}
        url = self.broker_url
        if not held or url is None:
            return []
        return [t for t in await list_tables(url, timeout=2.0) if t.table in held]

    async def stop(self, reason: str = "The server is stopping: goodbye.") -> None:
        """Stop listening, hang up every session, wait for their programs, end the
        tables the server holds."""
        if self._acceptor is not None:
            self._acceptor.close()
        if self.node is not None:
            # A drain: the tables go to the other nodes first (nothing more is published
            # here, each lease is handed over), then the players are told to come back at
            # once: their hosts close here meanwhile (below), fenced already.
            others = await self.node.alive_others()
            count = await self.node.drain("this server is stopping: another takes the "
                                          "table over")
            if count:
                self._table_news(f"node {self.node.name} handed {count} table(s) over"
                                 + (f" to {', '.join(others)}" if others else
                                    " (no other node is alive: they come back with one)"))
            reason = ("This server is restarting: connect again (the same ssh command) and "
                      "you are back in your seat.")
        if self._beacon is not None:
            await self._beacon.stop()
            self._beacon = None
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
        await self.moderation.stop()
        if self._draining is not None and not self._draining.done():
            self._draining.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._draining
        await self.archive.close()
        if self.ops is not None:
            await self.ops.stop()
            self.ops = None
        if self.node is not None:
            await self.node.stop()
        if self._meeting is not None:
            await self._meeting.close()
            self._meeting = None
        if self._acceptor is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._acceptor.wait_closed(), 5)


@overload
async def first_answering(urls: tuple[str, ...], current: str | None) -> str: ...
@overload
async def first_answering(urls: tuple[str, ...], current: str | None,
                          strict: Literal[True]) -> str | None: ...
async def first_answering(urls: tuple[str, ...], current: str | None,
                          strict: bool = False) -> str | None:
    """Of a broker cluster's URLs, the one in use if it still answers, else the first that
    does (a TCP connection within a second); the first when none does (``None`` if
    ``strict``)."""
    from sshserver.beacon import answers

    for url in ([current] if current else []) + [u for u in urls if u != current]:
        if await answers(url):
            return url
    return None if strict else urls[0]


# -- what the server's own terminal shows ---------------------------------------------------------


def where_lines(server: GameServer) -> list[str]:
    """The server's banner: where it listens, how players reach it, who may connect, the
    broker of its tables, its host key (and its web page, when it has one; its community,
    when it is a node of one)."""
    from ratings.store import shown as without_password

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
    key = fingerprint(server.host_key) if server.host_key else "?"
    lines = [
        f"ssh server on {bind}:{port} · players: ssh {flag}NAME@{shown}",
        f"{who} · tables on {broker}",
        f"host key {key} · Ctrl-C to stop",
    ]
    if server.ops is not None:
        lines.insert(2, f"metrics on {server.ops.url}/metrics, health check on "
                     f"{server.ops.url}/healthz")
    if settings.node is not None:
        lines.insert(2, f"node {settings.node} of a community: tables held under leases in "
                     f"{without_password(settings.database or 'the default database')}"
                     + (f", brokers {', '.join(settings.brokers)}"
                        if len(settings.brokers) > 1 else ""))
    if server.web is not None:
        lines.insert(2, f"web page of the held tables on {server.web.url} (at most "
                     f"{settings.web_max_spectators} browser spectators)")
    return lines


# -- the command --------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    """Serve until SIGINT/SIGTERM: 0 after a clean stop, 2 if it can't start."""
    if logging.getLogger("asyncssh").level == logging.NOTSET:
        logging.getLogger("asyncssh").setLevel(logging.WARNING)
    settings = settings_from(args)
    if settings.log_format == "json":
        from sshserver.logformat import use_json_logs

        use_json_logs(sys.stdout)
    try:
        return asyncio.run(serve(settings, sys.stdout, sys.stderr))
    except KeyboardInterrupt:
        return 0


async def serve(settings: ServeSettings, out: TextIO, err: TextIO) -> int:
    """Serve until SIGINT or SIGTERM; SIGHUP reloads the authorized keys (or stops a
    server whose terminal has gone)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    json_logs = settings.log_format == "json"
    on_terminal = out.isatty() and not json_logs
    status = Status(None if json_logs else out, log_status=json_logs)
    server = GameServer(settings, status)
    had_terminal = not _terminal_gone()  # started from a terminal (not by systemd)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        handler = stop.set if sig != signal.SIGHUP else \
            (lambda: _hung_up(server, stop, had_terminal))
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, handler)
    try:
        await server.start()
    except ServeError as exc:
        if json_logs:
            log.error("stacks serve: %s", exc, extra={"event": "failed"})
        else:
            print(f"stacks serve: {exc}", file=err)
        return 2
    checked = asyncio.create_task(_check_broker(server))
    try:
        if on_terminal:
            await _live_status(server, stop, out)
        else:
            for line in where_lines(server):
                if json_logs:
                    status.event(line, "listening")
                else:
                    print(line, file=out, flush=True)
            status.changed(server)
            await stop.wait()
    finally:
        checked.cancel()
        await server.stop()
    if json_logs:
        status.event("ssh server stopped.", "stopped")
    else:
        print("ssh server stopped.", file=out, flush=True)
    return 0


def _hung_up(server: GameServer, stop: asyncio.Event, had_terminal: bool) -> None:
    """SIGHUP: the terminal the server was started from has gone (stop, as before), or
    someone asks it to reload its keys (``systemctl reload``, ``kill -HUP``)."""
    if had_terminal and _terminal_gone():
        stop.set()
        return
    server.reload_keys()


def _terminal_gone() -> bool:
    """Has this process's controlling terminal hung up?"""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return True
    os.close(fd)
    return False


async def _check_broker(server: GameServer) -> None:
    """Does the broker of the held tables hold small messages back (Nagle)? Measured once
    beside the serving and said in the server's log: its operator can fix the broker's
    config, its players can't (``netplay.nagle``)."""
    from netplay.nagle import slow_broker_words

    url = server.settings.broker
    words = await slow_broker_words(url) if url else None
    if words is not None:
        server.status.event(f"warning: {words}")


async def _live_status(server: GameServer, stop: asyncio.Event, out: TextIO) -> None:
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

    console = Console(file=out)
    for line in where_lines(server):
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

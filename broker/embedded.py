"""The embedded default broker: an in-process amqtt broker behind a small API.

`EmbeddedBroker` runs amqtt inside the caller's event loop. It owns the listening socket
itself (amqtt's *external* listener mode: the socket is ours, the MQTT protocol is
amqtt's), which gives three things amqtt's own TCP listener does not:

- the port it really got when asked for port 0 (``b.port``), via the public asyncio API;
- a clear `BrokerStartError` when the address is taken, raised before amqtt starts (no
  "Broker startup failed" traceback in amqtt's log);
- a clean stop: every connection task is tracked and ended, so no task created by the
  broker outlives `EmbeddedBroker.stop`.

Also here: `probe_mqtt` (does something at host:port speak MQTT?) and `free_port`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import hmac
import logging
import os
import secrets
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self

from amqtt.adapters import (  # type: ignore[import-untyped, unused-ignore]
    StreamReaderAdapter,
    StreamWriterAdapter,
)
from amqtt.broker import Broker  # type: ignore[import-untyped, unused-ignore]
from amqtt.plugins.base import BaseAuthPlugin  # type: ignore[import-untyped, unused-ignore]
from amqtt.session import Session  # type: ignore[import-untyped, unused-ignore]

__all__ = [
    "BrokerStartError",
    "EmbeddedBroker",
    "TablePasswordAuthPlugin",
    "format_url",
    "free_port",
    "probe_mqtt",
]

log = logging.getLogger(__name__)

_LISTENER = "default"
#: Key in amqtt's `Session.attributes` marking a session whose login was refused.
_REFUSED = "sequence_stacks.refused"
#: How long `EmbeddedBroker.stop` lets amqtt close its client sessions gracefully before
#: it aborts the remaining connections.
_GRACEFUL_STOP_S = 3.0
#: How long `EmbeddedBroker.stop` then waits for the remaining connection tasks.
_FORCED_STOP_S = 2.0
#: How long connections may take to close by themselves once amqtt has shut down.
_LINGER_S = 0.5


class BrokerStartError(OSError):
    """The embedded broker could not start listening.

    A subclass of `OSError`, so code that already handles socket errors keeps working;
    ``errno`` is the underlying socket error (``errno.EADDRINUSE`` when the address is
    taken) and ``host``/``port`` say which address was asked for. The message is meant for
    users, e.g. ``cannot start the MQTT broker: address 127.0.0.1:1883 is already in use``.
    """

    def __init__(self, err: int | None, message: str, host: str, port: int) -> None:
        super().__init__(err, message)
        self.host = host
        self.port = port

    def __str__(self) -> str:
        return str(self.strerror)

    @property
    def address_in_use(self) -> bool:
        """True when the address is already taken by another socket."""
        return self.errno == errno.EADDRINUSE


class _Subscriptions(dict[str, list[tuple[Session, int]]]):
    """amqtt's table of subscriptions (topic filter -> sessions), walked over a snapshot.

    amqtt 0.12.1 walks this table with awaits inside the loop (at every connect, and for
    every broadcast when a topic plugin suspends), while other clients' SUBSCRIBEs add to
    it: "dictionary changed size during iteration" then ended the connecting client's
    session. Peers of a table connect and subscribe at the same moment, each to a filter
    of its own, so a game lost a spectator that way now and then."""

    __slots__ = ()

    def __iter__(self) -> Iterator[str]:
        return iter(list(super().__iter__()))

    def items(self) -> Any:
        return list(super().items())


class _Broker(Broker):  # type: ignore[misc, unused-ignore]
    """amqtt's broker with its subscription table walked safely (:class:`_Subscriptions`),
    and retained messages sent only for the filters a session subscribed to: amqtt 0.12.1
    sends a connecting client the retained messages of every filter *anyone* subscribed
    to (each table's announcement and presence to every bot of every other table)."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__(config)
        self._subscriptions = _Subscriptions()

    async def _publish_retained_messages_for_subscription(
        self, subscription: tuple[str, int], session: Session
    ) -> None:
        topic_filter = subscription[0]
        if any(s.client_id == session.client_id
               for s, _ in self._subscriptions.get(topic_filter, ())):
            await super()._publish_retained_messages_for_subscription(subscription, session)


def _password_digest(password: str) -> str:
    return hashlib.sha256(password.encode("utf-8")).hexdigest()


class TablePasswordAuthPlugin(BaseAuthPlugin):  # type: ignore[misc, unused-ignore]
    """amqtt auth plugin: anonymous, or one shared table password (any username).

    Configured with ``{"password_sha256": <hex digest> | None}``, so the clear password is
    never stored in amqtt's configuration objects. Without a digest every client is
    accepted. With one, a client must send a username (any) and the password; the check
    is a SHA-256 plus `hmac.compare_digest`, a few microseconds, where amqtt's own
    Argon2 file plugin blocks the event loop for ~95 ms per login.

    Every session is marked anonymous, as amqtt's own `AnonymousAuthPlugin` does: amqtt
    then forgets a client's session as soon as it disconnects (no queued QoS 1 messages
    for offline clients). The application never relies on broker sessions anyway, and it
    keeps the broker's memory bounded.
    """

    @dataclass
    class Config:
        """Plugin configuration (filled in by amqtt's plugin manager)."""

        password_sha256: str | None = None

    async def authenticate(self, *, session: Session) -> bool:
        """Accept the session if no password is set or if its password matches."""
        session.is_anonymous = True
        expected: str | None = self.config.password_sha256
        given: str | None = session.password
        ok = expected is None or (
            given is not None and hmac.compare_digest(_password_digest(given), expected)
        )
        # amqtt keeps a refused session registered as "connected" for ever (0.12.1):
        # flag it, so that EmbeddedBroker can retire it once its connection is gone.
        if ok:
            session.attributes.pop(_REFUSED, None)
        else:
            session.attributes[_REFUSED] = True
        return ok


_AUTH_PLUGIN_PATH = f"{TablePasswordAuthPlugin.__module__}.{TablePasswordAuthPlugin.__qualname__}"


def format_url(host: str, port: int) -> str:
    """``mqtt://host:port``, with brackets around an IPv6 literal."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"mqtt://{host}:{port}"


def _bind_listening_socket(host: str, port: int, backlog: int = 100) -> socket.socket:
    """Bind and listen on the first address `host` resolves to (one socket, one port)."""
    infos = socket.getaddrinfo(
        host, port, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    family, kind, proto, _, sockaddr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        # What asyncio.start_server does: SO_REUSEADDR on POSIX only (it lets us rebind a
        # port in TIME_WAIT, never one another socket listens on). On Windows it would.
        if os.name == "posix" and sys.platform != "cygwin":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
        sock.listen(backlog)  # listen now: a competing listener is detected here too
        sock.setblocking(False)
    except BaseException:
        sock.close()
        raise
    return sock


def _start_error(exc: OSError, host: str, port: int) -> BrokerStartError:
    where = f"{host}:{port}" if ":" not in host else f"[{host}]:{port}"
    if isinstance(exc, socket.gaierror):
        reason = f"cannot resolve address {host!r} ({exc.strerror})"
        return BrokerStartError(exc.errno, f"cannot start the MQTT broker: {reason}", host, port)
    reasons = {
        errno.EADDRINUSE: f"address {where} is already in use",
        errno.EACCES: f"permission denied to listen on {where} (ports below 1024 need privileges)",
        errno.EADDRNOTAVAIL: f"address {host} is not an address of this machine",
    }
    reason = reasons.get(exc.errno or 0, f"cannot listen on {where}: {exc.strerror or exc}")
    return BrokerStartError(exc.errno, f"cannot start the MQTT broker: {reason}", host, port)


class EmbeddedBroker:
    """An in-process MQTT broker (amqtt) for a table, on loopback or the LAN.

    Usage::

        async with EmbeddedBroker("127.0.0.1", 0) as b:
            print(b.url)  # mqtt://127.0.0.1:PORT, the port really bound

    or ``await b.start()`` ... ``await b.stop()``. It must be started and stopped inside a
    running event loop (it runs in that loop, no thread); it can be started again after a
    stop.

    What to know about amqtt 0.12.1 (measured):

    - MQTT 3.1.1 only; an MQTT 5 CONNECT is refused.
    - Anonymous by default. With ``password``, clients must log in with any username and
      that password (checked by `TablePasswordAuthPlugin`); others get CONNACK code 5,
      "not authorized".
    - amqtt never enforces keepalive: a frozen or half-open client is never disconnected
      and its last will never fires. Presence must rest on the application's own
      heartbeats; wills only cover clients whose connection really closes (crash, kill).
    - Broker sessions are not persistent (every session is treated like amqtt's
      anonymous ones): messages for an offline client are dropped. Recovery is the
      application's job (sequence numbers and resync).
    - Plugins: only the auth plugin; no ``$SYS`` topics, no event/packet logging plugins
      (each of those schedules an asyncio task per event or per packet).
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, *, password: str | None = None
    ) -> None:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be in 0..65535, got {port}")
        self._host = host
        self._requested_port = port
        self._port = port
        self._password_sha256 = None if password is None else _password_digest(password)
        self._broker: Any = None
        self._server: asyncio.Server | None = None
        self._conn_tasks: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    # -- properties ---------------------------------------------------------------------

    @property
    def host(self) -> str:
        """The address the broker listens on, as given."""
        return self._host

    @property
    def port(self) -> int:
        """The port really bound once started (also when 0 was asked); before, the one asked."""
        return self._port

    @property
    def url(self) -> str:
        """``mqtt://HOST:PORT`` for clients (``HOST`` as given: a wildcard stays a wildcard)."""
        return format_url(self._host, self._port)

    @property
    def password_required(self) -> bool:
        """True when clients must log in with the table password."""
        return self._password_sha256 is not None

    @property
    def running(self) -> bool:
        """True between a successful `start` and `stop`."""
        return self._server is not None

    @property
    def client_count(self) -> int:
        """Clients currently connected and logged in (best effort, from amqtt's sessions)."""
        broker = self._broker
        if broker is None:
            return 0
        return sum(
            1
            for session, _handler in list(broker.sessions.values())
            if session.transitions.state == "connected" and not session.attributes.get(_REFUSED)
        )

    # -- lifecycle -----------------------------------------------------------------------

    async def start(self) -> None:
        """Bind the address and start serving.

        Raises:
            BrokerStartError: the address cannot be bound (in use, not local, no
                permission, unresolvable); nothing is left running.
            RuntimeError: already running.
        """
        if self._server is not None:
            raise RuntimeError("the embedded broker is already running")
        try:
            sock = _bind_listening_socket(self._host, self._requested_port)
        except OSError as exc:
            raise _start_error(exc, self._host, self._requested_port) from exc
        try:
            server = await asyncio.start_server(self._on_connection, sock=sock, start_serving=False)
        except BaseException:
            sock.close()
            raise
        port = int(server.sockets[0].getsockname()[1])
        config = {
            "listeners": {
                _LISTENER: {"type": "external", "bind": f"{self._host}:{port}"},
            },
            # A `plugins` dict replaces all of amqtt's default plugins: keep only auth.
            "plugins": {_AUTH_PLUGIN_PATH: {"password_sha256": self._password_sha256}},
        }
        broker: Any = None
        try:
            broker = _Broker(config)
            await broker.start()
            self._broker = broker  # before serving: connections look it up
            await server.start_serving()
        except BaseException as exc:
            self._broker = None
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
            if broker is not None and broker.transitions.state == "started":
                with contextlib.suppress(Exception):
                    await broker.shutdown()
            if isinstance(exc, Exception):
                msg = f"cannot start the MQTT broker on {format_url(self._host, port)}: {exc}"
                raise BrokerStartError(None, msg, self._host, port) from exc
            raise
        self._server = server
        self._port = port
        log.info("embedded MQTT broker listening on %s", self.url)

    async def stop(self) -> None:
        """Stop serving and end every connection and task the broker created.

        Idempotent. Connected clients see their connection close; their wills are not
        delivered (every session is dropped first). Takes a few milliseconds normally;
        a client that stopped reading is cut off after a few seconds.
        """
        server, broker = self._server, self._broker
        if server is None:
            return
        self._server = None
        server.close()  # stop accepting
        shutdown = asyncio.ensure_future(broker.shutdown())
        try:
            done, _ = await asyncio.wait({shutdown}, timeout=_GRACEFUL_STOP_S)
            if not done:
                # amqtt drains each client before closing it: one that stopped reading
                # blocks the shutdown. Cut the connections off.
                log.warning("MQTT broker: forcing the remaining connections closed")
                self._abort_connections()
                done, _ = await asyncio.wait({shutdown}, timeout=_FORCED_STOP_S)
            if not done:
                shutdown.cancel()
                await asyncio.wait({shutdown})
            elif not shutdown.cancelled() and shutdown.exception() is not None:
                log.warning("MQTT broker: error while shutting down: %r", shutdown.exception())
        except asyncio.CancelledError:
            shutdown.cancel()
            raise
        finally:
            await self._end_connections()
            with contextlib.suppress(Exception):
                await server.wait_closed()
            self._broker = None
            log.info("embedded MQTT broker on %s stopped", self.url)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- connections -----------------------------------------------------------------------

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._conn_tasks.add(task)
        self._writers.add(writer)
        try:
            broker = self._broker
            if broker is None:  # raced with stop()
                return
            await broker.external_connected(
                StreamReaderAdapter(reader), StreamWriterAdapter(writer), _LISTENER
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("MQTT broker: error while serving a connection")
        finally:
            self._writers.discard(writer)
            writer.close()
            if task is not None:
                self._conn_tasks.discard(task)
            self._retire_refused_sessions()

    def _retire_refused_sessions(self) -> None:
        """Mark refused sessions disconnected; amqtt's session monitor then drops them.

        amqtt 0.12.1 registers a session before checking its login and leaves a refused
        one "connected" for ever: without this, each refused login would leak a session
        and count as a connected client.
        """
        broker = self._broker
        if broker is None:
            return
        for session, _handler in list(broker.sessions.values()):
            if session.attributes.get(_REFUSED) and session.transitions.state == "connected":
                session.transitions.disconnect()

    def _abort_connections(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()

    async def _end_connections(self) -> None:
        """Let the connection tasks finish, aborting and then cancelling stragglers."""
        if not self._conn_tasks:
            return
        _, pending = await asyncio.wait(set(self._conn_tasks), timeout=_LINGER_S)
        if pending:  # e.g. connections that never sent CONNECT, unknown to amqtt
            self._abort_connections()
            _, pending = await asyncio.wait(pending, timeout=_FORCED_STOP_S)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        self._conn_tasks.clear()
        self._writers.clear()


# -- helpers ---------------------------------------------------------------------------------


def _connect_packet(client_id: str) -> bytes:
    """An MQTT 3.1.1 CONNECT: clean session, keepalive 10 s, no will, no credentials."""
    cid = client_id.encode("ascii")
    variable_header = b"\x00\x04MQTT" + b"\x04" + b"\x02" + (10).to_bytes(2, "big")
    payload = len(cid).to_bytes(2, "big") + cid
    remaining = len(variable_header) + len(payload)
    if remaining > 127:  # one-byte remaining length only; client ids here are short
        raise ValueError("client id too long for a probe")
    return bytes([0x10, remaining]) + variable_header + payload


_DISCONNECT = b"\xe0\x00"


async def probe_mqtt(host: str, port: int, timeout: float = 1.0) -> bool:
    """True when something at host:port answers an MQTT 3.1.1 CONNECT with a CONNACK.

    Any CONNACK counts, also a refusal (bad credentials, not authorized): the answer says
    an MQTT broker is there. False on connection refused, timeout, EOF or anything that is
    not a CONNACK. Sends DISCONNECT after an accepted CONNACK, so no will is triggered and
    the broker logs a clean disconnect.
    """
    client_id = "stacksprobe" + secrets.token_hex(6)  # 23 chars, [0-9a-z]: valid for any broker
    writer: asyncio.StreamWriter | None = None
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(_connect_packet(client_id))
            await writer.drain()
            reply = await reader.readexactly(4)
            # CONNACK: type 2, length 2, session-present 0/1, return code 0-5
            is_connack = reply[:2] == b"\x20\x02" and reply[2] in (0, 1) and reply[3] <= 5
            if is_connack and reply[3] == 0:
                writer.write(_DISCONNECT)
                await writer.drain()
            return is_connack
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError):
        return False
    finally:
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(timeout):
                    await writer.wait_closed()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that is free on `host` right now (the OS picks it; it may be taken later).

    For servers that cannot bind port 0 themselves (Mosquitto); `EmbeddedBroker` can.
    """
    family = socket.getaddrinfo(host, 0, type=socket.SOCK_STREAM)[0][0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])

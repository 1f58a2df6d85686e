"""aiomqtt's client as the transport uses it: paho's housekeeping for every client of a
loop on one timer (:class:`Housekeeping`), and a new socket watched by the loop whatever
it still remembers of a closed one (:class:`Client`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any, Self

import aiomqtt
import paho.mqtt.client as mqtt

from netplay.upstream import AIOMQTT, require

require(AIOMQTT, aiomqtt.__version__)

log = logging.getLogger("netplay.transport")

DISCONNECT = b"\xe0\x00"
"""An MQTT 3.1.1 DISCONNECT packet."""

HOUSEKEEPING_EVERY = 1.0
"""Seconds between two rounds of paho's housekeeping (``loop_misc``: the keepalive's
PINGREQ, and giving up on a broker that stopped answering them), as aiomqtt does it."""


class Housekeeping:
    """paho's housekeeping for every client of one event loop, on one timer.

    aiomqtt gives each client a task that wakes every second to call ``loop_misc``: a
    process running the peers of a hundred tables (a host and its seats each) woke a few
    hundred times a second for it, each wake a task step, a sleep and a timer in the
    loop's heap: ~3% of the peers' CPU in a cProfile of ``stacks bench load``, and 8%
    less CPU per action without them, measured (issue #28, docs/deploy.md). Here one
    timer a second calls ``loop_misc`` for all of them, in the same order of events: a
    client's first round when it connects, then every :data:`HOUSEKEEPING_EVERY`, until
    ``loop_misc`` fails (the link is gone) or its client disconnects."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.clients: dict[mqtt.Client, asyncio.Future[None]] = {}
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    async def keep(cls, paho: mqtt.Client) -> None:
        """Until ``paho``'s ``loop_misc`` fails (or this is cancelled: its client
        disconnects), as aiomqtt's own ``_misc_loop`` would run."""
        if paho.loop_misc() != mqtt.MQTT_ERR_SUCCESS:
            return
        loop = asyncio.get_running_loop()
        keeper = KEEPERS.get(loop)
        if keeper is None:
            keeper = KEEPERS[loop] = cls(loop)
        done = keeper.clients[paho] = loop.create_future()
        if keeper._timer is None:
            keeper._timer = loop.call_later(HOUSEKEEPING_EVERY, keeper._round)
        try:
            await done
        finally:
            keeper._forget(paho)

    def _forget(self, paho: mqtt.Client) -> None:
        self.clients.pop(paho, None)
        if not self.clients:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if KEEPERS.get(self.loop) is self:
                del KEEPERS[self.loop]

    def _round(self) -> None:
        self._timer = None
        for paho, done in list(self.clients.items()):
            if done.done():
                continue
            try:
                ok = paho.loop_misc() == mqtt.MQTT_ERR_SUCCESS
            except Exception as exc:  # that client's task ends on it, as before
                done.set_exception(exc)
                continue
            if not ok:
                done.set_result(None)
        if any(not done.done() for done in self.clients.values()):
            self._timer = self.loop.call_later(HOUSEKEEPING_EVERY, self._round)


KEEPERS: dict[asyncio.AbstractEventLoop, Housekeeping] = {}
"""The housekeeping of each event loop that has connected clients."""


def forget_closed(loop: asyncio.AbstractEventLoop, fd: int) -> bool:
    """Drop whatever ``loop`` still watches on descriptor ``fd``; whether it watched any.

    Called for a socket just made, so anything watched on its number was watched on a
    closed socket that had the same number: the loop's selector remembers it, while the
    kernel forgot it with the socket, and watching the new socket would fail
    (``FileNotFoundError`` from ``add_reader``: the selector asks the kernel to change a
    registration it no longer has; the selector drops its record then, as here)."""
    stale = False
    for remove in (loop.remove_writer, loop.remove_reader):
        try:
            stale = remove(fd) or stale
        except OSError:
            stale = True
    return stale


class Client(aiomqtt.Client):
    """aiomqtt's client, its per-client housekeeping task replaced by :class:`Housekeeping`
    (should aiomqtt rename its ``_misc_loop``, its own runs instead: the same work, dearer),
    and the new socket watched safely.

    aiomqtt asks the loop to watch a new socket from the thread it connects in, by a
    callback (``add_reader``) that no one can catch an error of: one the loop still had a
    closed socket's registration for (a link that dropped under load) put a traceback on
    stderr, and the connection, its CONNACK never read, hung until its timeout. Here
    the loop first forgets the closed socket, says so in a line, and watches the new
    one; should watching it fail all the same, the attempt fails at once (the transport
    connects again)."""

    _abandoned = False

    async def __aenter__(self) -> Self:
        try:
            return await super().__aenter__()
        except BaseException:
            self._abandoned = True  # a socket opened later (cancelled mid-connect) too
            self._abandon()
            raise

    def _abandon(self) -> None:
        """Close the socket of an attempt that failed or was cancelled. aiomqtt leaves it
        open and watched: a CONNACK that came after the attempt gave up (a broker slow
        under load) was read all the same, and the connection lived on, pinging, beside
        the next attempt's, its will armed, until the process ended."""
        paho = self._client
        sock = paho.socket()
        if sock is None:
            return
        if not paho.want_write():  # the CONNECT is out whole: a DISCONNECT may follow it
            with contextlib.suppress(OSError):
                sock.send(DISCONNECT)  # the broker forgets the attempt's will
        paho._sock_close()

    async def _misc_loop(self) -> None:
        await Housekeeping.keep(self._client)

    def _on_socket_open(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        self._loop.call_soon_threadsafe(self._watch, client, sock)

    def _watch(self, client: mqtt.Client, sock: socket.socket) -> None:
        """On the loop's thread: read ``sock`` when it is readable, and run the
        housekeeping, as aiomqtt's ``_on_socket_open`` does."""
        if client.socket() is not sock:  # closed already, in the connecting thread
            self._fail("the link to the broker closed before the loop watched it")
            return
        if self._abandoned:
            self._abandon()
            return
        fd = sock.fileno()
        if forget_closed(self._loop, fd):
            log.info("%s: the event loop still watched a closed socket with the new one's "
                     "number (%d), from a link that dropped; forgotten", self.identifier, fd)
        try:
            self._loop.add_reader(fd, self._readable, client)
        except OSError as exc:
            log.info("%s: the event loop can't watch the new socket (%s); connecting again",
                     self.identifier, exc)
            self._fail(f"the event loop can't watch the socket: {exc}")
            return
        self._misc_task = self._loop.create_task(self._misc_loop())

    def _readable(self, client: mqtt.Client) -> None:
        """aiomqtt's reader (until the transport puts its own in place): paho reads, and
        on a TLS link goes on while decoded bytes are left; an error ends the link."""
        try:
            while True:
                client.loop_read()
                pending = getattr(client.socket(), "pending", None)
                if pending is None or pending() <= 0:
                    return
        except Exception as exc:  # a broken link
            if not self._disconnected.done():
                self._disconnected.set_exception(exc)

    def _fail(self, why: str) -> None:
        """Fail the connection attempt now rather than at its timeout."""
        connected = self._connected
        if not connected.done():
            connected.set_exception(aiomqtt.MqttError(why))
            connected.exception()  # retrieved: the attempt may have timed out already

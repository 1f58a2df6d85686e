"""The local channel between ``stacks serve`` and the ``stacks`` of one ssh connection.

A table opened from the ssh menu is held by the server, not by the connection that asked
for it (`sshserver.tables`). The connection's program asks over this channel: the server
makes a Unix socket pair for each connection it starts, keeps one end and hands the other
to the program as an inherited file descriptor (``STACKS_SERVE_LINK=<fd>``). Who is
asking is known by construction: the server knows which connection each of its ends
belongs to, so a request never names its sender and a program can't act for another key.

The wire form is one JSON object per line, a request and then its reply:

    {"op": "open", "table": "friday", "players": 3, ...}   ->  {"ok": true, "broker": ...}
    {"op": "fill", "table": "friday"}                      ->  {"ok": true, "bots": 1}
    {"op": "close", "table": "friday"}                     ->  {"ok": false, "error": "..."}
    {"op": "info", "table": "friday"}          ->  {"ok": true, "held": true, "creator": true,
                                                    "settings": {"players": 2, ...}}

(``settings``: for the table's creator only, the fields of the ``open`` that opened it.)

A request may carry an ``"id"`` (a whole number), which its reply repeats: the program
numbers its requests, so a reply that comes after its request timed out is known for
what it is and never read as the answer to the next one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

LINK_ENV = "STACKS_SERVE_LINK"
"""The environment variable naming the program's end of the channel (a descriptor)."""
SSH_ENV = "STACKS_SERVE_SSH"
"""The ssh command line that reaches the server (``ssh -t -p 2222 HOST``)."""
ENGINES_ENV = "STACKS_SERVE_ENGINES"
"""The engines the server's operator registered, by name, comma separated: the host form
offers them as opponents."""
SERVED_EXTRAS = ("turn_clock", "spectator_delay")
"""Table settings in seconds (0-3600) an ``open`` may carry, where the host has them."""
MAX_LINE = 64 * 1024
REPLY_WAIT = 15.0

Reply = dict[str, Any]
Handler = Callable[[dict[str, Any]], Awaitable[Reply]]


class LinkError(Exception):
    """The server refused a request or could not be asked; the message says which."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One message; ``ValueError`` unless it is a JSON object."""
    message = json.loads(line)
    if not isinstance(message, dict):
        raise ValueError("not a JSON object")
    return message


# -- the server's end -------------------------------------------------------------------------


async def serve_link(sock: socket.socket, handle: Handler) -> None:
    """Answer the requests arriving on ``sock`` with ``handle`` until the program closes
    its end. A malformed request gets an error reply; nothing on the channel can raise
    out of here into the server."""
    try:
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=MAX_LINE)
    except BaseException:
        sock.close()
        raise
    try:
        while True:
            try:
                line = await reader.readline()
            except (ValueError, asyncio.LimitOverrunError):
                writer.write(encode({"ok": False, "error": "request too long"}))
                break
            if not line:
                break
            request_id: int | None = None
            try:
                request = decode(line)
                request_id = _request_id(request)
                reply = await handle(request)
            except ValueError as exc:
                reply = {"ok": False, "error": f"malformed request: {exc}"}
            except Exception:  # a bug costs one request, never the server
                log.exception("the server failed on a request from a session")
                reply = {"ok": False, "error": "the server failed on this request (logged)"}
            if request_id is not None:
                reply = {**reply, "id": request_id}
            writer.write(encode(reply))
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


def _request_id(message: dict[str, Any]) -> int | None:
    """The request's number, if it has a usable one (a whole number, not a bool)."""
    value = message.get("id")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53:
        return value
    return None


# -- the program's end ------------------------------------------------------------------------


class ServeLink:
    """The program's end: one request at a time, each answered or a `LinkError`."""

    def __init__(self, fd: int, ssh: str = "", engines: tuple[str, ...] = ()) -> None:
        self.fd = fd
        self.ssh = ssh
        """How players reach the server: ``ssh -t -p 2222 HOST`` (append ``join TABLE``)."""
        self.engines = engines
        """The engines the server offers as opponents (``stacks serve --engine``)."""
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self._lock: asyncio.Lock | None = None
        self._next_id = 0

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> ServeLink | None:
        """The link the server gave this program, or ``None`` (not started by a server)."""
        env = os.environ if environ is None else environ
        text = env.get(LINK_ENV, "")
        if not text.isdigit():
            return None
        fd = int(text)
        try:
            os.fstat(fd)
        except OSError:
            return None
        engines = tuple(name for name in env.get(ENGINES_ENV, "").split(",") if name)
        return cls(fd, env.get(SSH_ENV, ""), engines)

    def join_command(self, table: str) -> str:
        return f"{self.ssh} join {table}" if self.ssh else f"stacks join {table}"

    async def request(self, op: str, **fields: Any) -> Reply:
        """Send one request; its reply when ``ok``, else `LinkError` with the reason."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            self._next_id += 1
            request_id = self._next_id
            try:
                reader, writer = await self._open()
                writer.write(encode({**fields, "op": op, "id": request_id}))
                await writer.drain()
                reply = await asyncio.wait_for(self._reply(reader, request_id), REPLY_WAIT)
            except TimeoutError:
                raise LinkError("the server did not answer in time") from None
            except (OSError, ValueError) as exc:
                self._streams = None
                raise LinkError(f"can't reach the server: {exc}") from exc
        if reply.get("ok") is not True:
            raise LinkError(str(reply.get("error") or "the server refused"))
        return reply

    async def _reply(self, reader: asyncio.StreamReader, request_id: int) -> Reply:
        """The reply to request ``request_id``; replies to earlier requests, which came
        after those timed out, are passed over."""
        while True:
            line = await reader.readline()
            if not line:
                self._streams = None
                raise LinkError("the server has closed the channel (is it stopping?)")
            try:
                reply = decode(line)
            except ValueError as exc:
                raise LinkError(f"the server's reply is unreadable: {exc}") from exc
            answered = _request_id(reply)
            if answered is None or answered >= request_id:
                return reply
            log.info("a late reply to request %d came after it timed out", answered)

    def close(self) -> None:
        streams, self._streams = self._streams, None
        if streams is not None:
            streams[1].close()

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._streams is None:
            sock = socket.socket(fileno=os.dup(self.fd))
            self._streams = await asyncio.open_unix_connection(sock=sock, limit=MAX_LINE)
        return self._streams

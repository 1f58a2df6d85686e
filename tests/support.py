"""Waiting for a state, and free ports, for the whole suite.

A test waits for the state it asserts on, never for a length of time: `wait_until` (or
`wait_until_async` in a coroutine) asks ``condition()`` again and again until it gives
something true, and fails after ``timeout`` seconds (scaled by
``STACKS_TEST_TIMEOUT_SCALE``, as every timeout of the suite is) saying what was awaited,
with more words from ``diagnostics()`` if given. A condition may raise (an
AssertionError when what it watches ended, say): that ends the wait at once.

`free_port` and `free_ports` name TCP ports of 127.0.0.1 that are free right now, for
servers that can't bind port 0 themselves (Mosquitto, NATS, RabbitMQ, PostgreSQL, the
programs the tests start).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import socket
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar, overload

SCALE = float(os.environ.get("STACKS_TEST_TIMEOUT_SCALE", "1"))
"""One factor for every timeout of the suite (raise it on a slow machine)."""
DEFAULT_TIMEOUT = 30.0
"""Seconds (before `SCALE`) a wait lasts unless told otherwise: generous, for a loaded
2-core machine; a wait that succeeds returns as soon as its state is there."""
LOOPBACK = "127.0.0.1"

T = TypeVar("T")


def _failure(what: str, timeout: float, diagnostics: Callable[[], str] | None) -> AssertionError:
    words = f"timed out after {timeout:g} s waiting for {what}"
    if diagnostics is not None:
        try:
            more = diagnostics()
        except Exception as e:  # the failure's own words matter more than the extra ones
            more = f"(the diagnostics failed too: {e!r})"
        if more:
            words += "\n" + more
    return AssertionError(words)


def wait_until(condition: Callable[[], T | None], what: str, timeout: float = DEFAULT_TIMEOUT, *,
               interval: float = 0.05,
               diagnostics: Callable[[], str] | None = None) -> T:
    """``condition()``'s first true value, asked every ``interval`` seconds; an
    AssertionError naming ``what`` (and ``diagnostics()``) if none comes within
    ``timeout`` × `SCALE` seconds. The condition is asked once more at the deadline."""
    limit = timeout * SCALE
    deadline = time.monotonic() + limit
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _failure(what, limit, diagnostics)
        time.sleep(interval)


@overload
async def wait_until_async(condition: Callable[[], Awaitable[T | None]], what: str,
                           timeout: float = ..., *, interval: float = ...,
                           diagnostics: Callable[[], str] | None = ...,
                           pause: Callable[[float], Awaitable[object]] = ...) -> T: ...
@overload
async def wait_until_async(condition: Callable[[], T | None], what: str,
                           timeout: float = ..., *, interval: float = ...,
                           diagnostics: Callable[[], str] | None = ...,
                           pause: Callable[[float], Awaitable[object]] = ...) -> T: ...
async def wait_until_async(condition: Callable[[], T | Awaitable[T | None] | None], what: str,
                           timeout: float = DEFAULT_TIMEOUT, *, interval: float = 0.02,
                           diagnostics: Callable[[], str] | None = None,
                           pause: Callable[[float], Awaitable[object]] = asyncio.sleep) -> T:
    """`wait_until` in a coroutine: the event loop runs between the asks (``pause``, by
    default `asyncio.sleep`: a Textual test gives its pilot's). ``condition`` may be a
    plain function or return an awaitable (a coroutine function)."""
    loop = asyncio.get_running_loop()
    limit = timeout * SCALE
    deadline = loop.time() + limit
    while True:
        value = condition()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if loop.time() >= deadline:
            raise _failure(what, limit, diagnostics)
        await pause(interval)


def free_ports(count: int, host: str = LOOPBACK) -> list[int]:
    """``count`` different TCP ports free on ``host`` right now (all held open together
    while the OS picks them, so no two are the same; any may be taken later)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind((host, 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def free_port(host: str = LOOPBACK) -> int:
    """A TCP port free on ``host`` right now (the OS picks it; it may be taken later)."""
    return free_ports(1, host)[0]


def listening(port: int, host: str = LOOPBACK, connect_timeout: float = 0.2) -> bool:
    """Whether something accepts TCP connections on ``host``:``port`` now."""
    try:
        with socket.create_connection((host, port), connect_timeout):
            return True
    except OSError:
        return False

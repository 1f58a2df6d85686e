"""Small asyncio helpers the peers share.

``cancel_and_wait`` exists because of a trap in Python 3.11's ``asyncio.wait_for``
(python/cpython#86296, fixed in 3.12): when the awaited future completes in the same
loop iteration as the surrounding task is cancelled, ``wait_for`` returns the result and
the cancellation is lost. aiomqtt waits for every QoS 1 acknowledgement with
``wait_for``, so a task cancelled while its publish is being acknowledged carries on, and
whoever awaits it after ``cancel()`` waits for ever (seen: a probe's echo task, stuck in
its next ``async for message in client.messages``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

RETRY = 0.05
"""Seconds between repeated cancellations of a task that swallowed one."""


async def cancel_and_wait(task: asyncio.Task[Any], *, give_up: float = 5.0) -> Exception | None:
    """Cancel ``task`` and wait until it has finished, cancelling it again each
    ``RETRY`` seconds while it runs on (a swallowed cancellation), for at most
    ``give_up`` seconds. Returns the exception it had died of, if any (it is never
    raised: the caller wanted the task gone). Cancelling the caller still cancels it."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + give_up
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=min(RETRY, max(0.0, deadline - loop.time())))
        if loop.time() >= deadline:
            break
    if not task.done():  # still running: let its end be collected whenever it comes
        task.add_done_callback(_collect)
        return None
    if task.cancelled():
        return None
    error = task.exception()
    return error if isinstance(error, Exception) else None


def _collect(task: asyncio.Task[Any]) -> None:
    with contextlib.suppress(asyncio.CancelledError, Exception):
        task.result()

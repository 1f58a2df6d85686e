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
import heapq
import itertools
import time
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

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


INF = float("inf")
RESOLUTION = time.get_clock_info("monotonic").resolution
"""A callback due sooner than this after the loop's time is due now (as asyncio's own
timers: ``BaseEventLoop._clock_resolution``)."""


class Alarm:
    """A callback due at a time, rung by its loop's :class:`Alarms`: a peer's next
    deadline. :meth:`set` moves it (``INF``: off); once rung it is off until set again."""

    __slots__ = ("_alarms", "_callback", "_seq", "when")

    def __init__(self, alarms: Alarms, callback: Callable[[], object]) -> None:
        self._alarms = alarms
        self._callback = callback
        self._seq = -1
        """The number of its entry in the heap (-1: none); older entries of it are stale."""
        self.when = INF

    def set(self, when: float) -> None:
        if when == self.when:
            return
        alarms = self._alarms
        if self.when != INF:
            alarms.stale += 1  # its entry stays in the heap, skipped when it comes up
        self.when = when
        if when == INF:
            self._seq = -1
        else:
            seq = self._seq = next(alarms.numbers)
            heapq.heappush(alarms.heap, (when, seq, self))
            if when < alarms.armed:
                alarms.arm(when)
        if alarms.stale > COMPACT_AT and alarms.stale * 2 > len(alarms.heap):
            alarms.compact()  # (a stale entry also keeps its peer alive until it is due)


COMPACT_AT = 64
"""Stale entries an :class:`Alarms`' heap may hold before it is rebuilt without them
(once they are half of it)."""


class Alarms:
    """The alarms of one event loop, on one asyncio timer: the loop's heap of timers
    holds one entry for all of them, instead of one per peer (a process of the load
    bench runs 1,500 peers, each moving its next deadline a few times an action: asyncio
    compared its timer handles in Python, hundreds of thousands of times in 30 s). A moved
    alarm leaves a stale entry behind, skipped when it comes up (or cleared out when
    stale entries are half the heap), as asyncio does with cancelled handles. Every alarm
    is rung at the loop's turn when it is due, as its own asyncio timer would have been.
    """

    _of: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Alarms]] = (
        weakref.WeakKeyDictionary())

    def __init__(self) -> None:
        self.heap: list[tuple[float, int, Alarm]] = []
        self.numbers = itertools.count()
        self.stale = 0
        self.armed = INF
        """When the asyncio timer is set for (``INF``: none)."""
        self._timer: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> Alarms:
        """The alarms of ``loop`` (made at the first call)."""
        alarms = cls._of.get(loop)
        if alarms is None:
            alarms = cls._of[loop] = cls()
        return alarms

    def alarm(self, callback: Callable[[], object]) -> Alarm:
        """A new alarm, off, that calls ``callback`` on the loop when it rings."""
        return Alarm(self, callback)

    def arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.armed = when
        self._timer = asyncio.get_running_loop().call_at(when, self._ring)

    def compact(self) -> None:
        self.heap = [entry for entry in self.heap if entry[2]._seq == entry[1]]
        heapq.heapify(self.heap)
        self.stale = 0

    def _ring(self) -> None:
        """The timer fired: ring every alarm that is due, in the order of their times."""
        self._timer, self.armed = None, INF
        loop = asyncio.get_running_loop()
        end = loop.time() + RESOLUTION
        heap = self.heap
        due: list[Alarm] = []
        while heap:
            when, seq, alarm = heap[0]
            if alarm._seq != seq:
                heapq.heappop(heap)
                self.stale -= 1
            elif when < end:
                heapq.heappop(heap)
                alarm._seq, alarm.when = -1, INF
                due.append(alarm)
            else:
                self.arm(when)
                break
        for alarm in due:
            try:
                alarm._callback()
            except Exception as exc:  # as asyncio does with a timer's callback
                loop.call_exception_handler({"message": "an alarm's callback failed",
                                             "exception": exc})

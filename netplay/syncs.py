"""The process's journal-syncing threads: every host of the process hands them its
journal's syncs, and they make them beside the event loops.

``fdatasync`` releases the GIL, so a loop goes on (the host seals and signs its frames,
the other tables of the process play) while the disk works. A few threads of our own
instead of ``run_in_executor``, whose hand-over (a ``concurrent.futures`` future wrapped
in an asyncio one, their callbacks, and a wake-up of the loop through its self-pipe for
every sync) cost the process more CPU than the sync itself. Here a sync is a queue put;
the results go back to each loop in one call, with whatever else finished before the
loop took them (measured with 300 journals syncing 150 times a second: ~100 µs less of
the process's CPU a sync). Several threads, as the pool had: a slow disk's syncs overlap
(and share the file system's commits) instead of waiting in one line.

Nothing here decides when a frame may go out: the host publishes a frame only once its
``done`` callback has been told that the bytes it rests on are durable
(``netplay.host_peer.Host``)."""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from collections.abc import Callable

Sync = Callable[[], int]
"""Makes a journal durable; what it covers (``JournalFile.sync_written``)."""
Done = Callable[[int | Exception], None]
"""Told, on the loop's thread, what the sync returned or raised."""
_Job = tuple[asyncio.AbstractEventLoop, Sync, Done]


class SyncThreads:
    """``threads`` threads that run the syncs handed to them (see the module)."""

    def __init__(self, name: str, threads: int) -> None:
        self.name = name
        self.threads = threads
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._started = False
        self._lock = threading.Lock()
        self._finished: dict[asyncio.AbstractEventLoop, list[tuple[Done, int | Exception]]] = {}
        """Results not yet handed to their loop, by loop: a loop with an entry has a
        delivery scheduled (one at a time, what comes meanwhile joins it)."""

    def submit(self, loop: asyncio.AbstractEventLoop, sync: Sync, done: Done) -> None:
        """Run ``sync`` in a thread; ``done`` is called on ``loop`` with its result (or
        its exception). The caller keeps whatever ``sync`` uses open until then."""
        if not self._started:
            self._started = True
            for number in range(self.threads):
                threading.Thread(target=self._run, name=f"{self.name}-{number}",
                                 daemon=True).start()
        self._jobs.put((loop, sync, done))

    def forget_threads(self) -> None:
        """After a fork: the child has none of the parent's threads (nor its jobs)."""
        self._started = False
        self._jobs = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._finished = {}

    def _run(self) -> None:
        jobs = self._jobs
        while True:
            loop, sync, done = jobs.get()
            outcome: int | Exception
            try:
                outcome = sync()
            except Exception as exc:  # the host's to judge (a failed disk: no resume)
                outcome = exc
            self._hand_back(loop, done, outcome)

    def _hand_back(self, loop: asyncio.AbstractEventLoop, done: Done,
                   outcome: int | Exception) -> None:
        with self._lock:
            waiting = self._finished.get(loop)
            if waiting is not None:  # a delivery is on its way: this goes with it
                waiting.append((done, outcome))
                return
            self._finished[loop] = [(done, outcome)]
        try:
            loop.call_soon_threadsafe(self._deliver, loop)
        except RuntimeError:  # the loop is closed: nobody waits for these any more
            with self._lock:
                self._finished.pop(loop, None)

    def _deliver(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            results = self._finished.pop(loop, [])
        for done, outcome in results:
            try:
                done(outcome)
            except Exception as exc:  # a bug in one host must not hold up the others
                loop.call_exception_handler({
                    "message": "a journal's sync callback failed", "exception": exc})


SYNCS = SyncThreads("journal-sync", 4)
"""The process's syncing threads (started at the first sync)."""

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=SYNCS.forget_threads)

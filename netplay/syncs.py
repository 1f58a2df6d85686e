"""The process's journal-syncing thread: every host of the process hands it its journal's
sync, and it makes them, a round at a time, beside the event loops.

``fdatasync`` releases the GIL, so a loop goes on (the host seals and signs its frames,
the other tables of the process play) while the disk works. One thread for the process
instead of a pool: a pool's hand-over (a ``concurrent.futures`` future wrapped in an
asyncio one, a queue put and a wake-up of the loop through its self-pipe, for every
sync) cost more CPU than the sync itself; measured with 300 journals syncing 150 times a
second, the round's thread takes 60% less of the process's CPU beside the syncs. What
comes in while a round runs waits for the next one, and the round's results go back to
each loop in one call, however many syncs it made.

Nothing here decides when a frame may go out: the host publishes a frame only once its
``done`` callback has been told that the bytes it rests on are durable
(``netplay.peers.Host``)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import Callable

Sync = Callable[[], int]
"""Makes a journal durable; what it covers (``JournalFile.sync_written``)."""
Done = Callable[[int | Exception], None]
"""Told, on the loop's thread, what the sync returned or raised."""
_Job = tuple[asyncio.AbstractEventLoop, Sync, Done]


class SyncThread:
    """One thread that runs the syncs handed to it, in order, in rounds (see the module)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._finished: dict[asyncio.AbstractEventLoop, list[tuple[Done, int | Exception]]] = {}
        """Results not yet handed to their loop, by loop: a loop with an entry has a
        delivery scheduled (one at a time, what comes meanwhile joins it)."""

    def submit(self, loop: asyncio.AbstractEventLoop, sync: Sync, done: Done) -> None:
        """Run ``sync`` in the thread; ``done`` is called on ``loop`` with its result (or
        its exception). The caller keeps whatever ``sync`` uses open until then."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread.start()
        self._jobs.put((loop, sync, done))

    def forget_thread(self) -> None:
        """After a fork: the child has none of the parent's threads (nor its jobs)."""
        self._thread = None
        self._jobs = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._finished = {}

    def _run(self) -> None:
        jobs = self._jobs
        while True:
            round_ = [jobs.get()]
            with contextlib.suppress(queue.Empty):
                while True:
                    round_.append(jobs.get_nowait())
            finished: dict[asyncio.AbstractEventLoop, list[tuple[Done, int | Exception]]] = {}
            for loop, sync, done in round_:
                outcome: int | Exception
                try:
                    outcome = sync()
                except Exception as exc:  # the host's to judge (a failed disk: no resume)
                    outcome = exc
                finished.setdefault(loop, []).append((done, outcome))
            for loop, results in finished.items():
                self._hand_back(loop, results)

    def _hand_back(self, loop: asyncio.AbstractEventLoop,
                   results: list[tuple[Done, int | Exception]]) -> None:
        with self._lock:
            waiting = self._finished.get(loop)
            if waiting is not None:  # a delivery is on its way: these go with it
                waiting.extend(results)
                return
            self._finished[loop] = results
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


SYNCS = SyncThread("journal-sync")
"""The process's syncing thread (started at the first sync)."""

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=SYNCS.forget_thread)

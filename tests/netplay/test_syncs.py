"""The syncing threads: a host's sync runs beside the loop, and its result (or its error)
comes back on the loop's own thread."""

from __future__ import annotations

import asyncio
import threading

import pytest

from netplay.syncs import SyncThreads


@pytest.mark.asyncio
async def test_syncs_run_in_the_threads_and_their_results_come_back_on_the_loop() -> None:
    syncs = SyncThreads("test-sync", 2)
    loop = asyncio.get_running_loop()
    ran_on: list[str] = []
    told: dict[int, tuple[int | Exception, str]] = {}
    all_told = asyncio.Event()

    def sync(n: int) -> int:
        ran_on.append(threading.current_thread().name)
        if n == 3:
            raise OSError(5, "Input/output error")
        return n * 10

    def done(n: int, outcome: int | Exception) -> None:
        told[n] = (outcome, threading.current_thread().name)
        if len(told) == 6:
            all_told.set()

    for n in range(6):
        syncs.submit(loop, lambda n=n: sync(n), lambda outcome, n=n: done(n, outcome))
    await asyncio.wait_for(all_told.wait(), 10)
    assert all(name.startswith("test-sync-") for name in ran_on)
    assert {name for _, name in told.values()} == {threading.current_thread().name}
    assert {n: outcome for n, (outcome, _) in told.items() if n != 3} == {
        0: 0, 1: 10, 2: 20, 4: 40, 5: 50}
    assert isinstance(told[3][0], OSError)


@pytest.mark.asyncio
async def test_a_failing_callback_does_not_keep_the_others_from_theirs() -> None:
    syncs = SyncThreads("test-sync", 1)
    loop = asyncio.get_running_loop()
    errors: list[object] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context["exception"]))
    gate = threading.Event()
    told: list[int] = []
    both = asyncio.Event()

    def bad(_: int | Exception) -> None:
        raise RuntimeError("a bug")

    def good(outcome: int | Exception) -> None:
        assert isinstance(outcome, int)
        told.append(outcome)
        both.set()

    # Alone or in one delivery with the failing one, the second is still told.
    syncs.submit(loop, lambda: gate.wait() and 1, bad)
    syncs.submit(loop, lambda: 2, good)
    gate.set()
    await asyncio.wait_for(both.wait(), 10)
    assert told == [2]
    assert [str(e) for e in errors] == ["a bug"]

"""cancel_and_wait: a task that loses a cancellation (Python 3.11's wait_for, under
aiomqtt's publish) is still stopped, and whoever stops it never waits for ever."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from netplay.aio import cancel_and_wait


async def _swallows_one_cancel(started: asyncio.Event, stuck: asyncio.Event) -> None:
    started.set()
    with contextlib.suppress(asyncio.CancelledError):  # as wait_for does when it loses one
        await asyncio.Event().wait()
    stuck.set()
    await asyncio.Event().wait()  # carries on as if never cancelled


@pytest.mark.asyncio
async def test_a_task_that_swallowed_its_cancellation_is_cancelled_again() -> None:
    started, stuck = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(_swallows_one_cancel(started, stuck))
    await started.wait()
    assert await cancel_and_wait(task) is None
    assert stuck.is_set() and task.cancelled()


@pytest.mark.asyncio
async def test_the_error_a_task_died_of_is_returned_not_raised() -> None:
    async def dies() -> None:
        raise ValueError("boom")

    task = asyncio.create_task(dies())
    await asyncio.wait({task})
    error = await cancel_and_wait(task)
    assert isinstance(error, ValueError) and str(error) == "boom"


@pytest.mark.asyncio
async def test_a_task_that_will_not_stop_is_given_up_on_after_the_limit() -> None:
    release = asyncio.Event()

    async def stubborn() -> None:
        while not release.is_set():
            try:
                await release.wait()
            except asyncio.CancelledError:
                continue

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    assert await cancel_and_wait(task, give_up=0.2) is None
    assert not task.done()
    release.set()
    await task

"""What a test that hangs is doing: every thread's stack and every asyncio task's chain of
awaits, in words for a failure message (the suite's per-test timeout, `tests.conftest`,
puts them in the report of a test that ran out of time)."""

from __future__ import annotations

import asyncio
import sys
import threading
import traceback
from types import FrameType
from typing import Any


def _frame_line(frame: FrameType) -> str:
    code = frame.f_code
    return f'  File "{code.co_filename}", line {frame.f_lineno}, in {code.co_name}'


def task_stack(task: asyncio.Task[Any]) -> str:
    """Where ``task`` waits: its coroutines from the outermost to the one awaiting, and
    what that one awaits (a future, a sleep, another task)."""
    lines = [f"{task.get_name()}: {task.get_coro()!r}"]
    if task.done():
        return lines[0] + " (done)"
    awaited: Any = task.get_coro()
    while awaited is not None:
        frame = (getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
                 or getattr(awaited, "ag_frame", None))
        if frame is None:  # a future's iterator names nothing: the task's own waiter does
            waiter = getattr(task, "_fut_waiter", None)
            lines.append(f"  awaiting {waiter if waiter is not None else awaited!r}")
            break
        lines.append(_frame_line(frame))
        awaited = (getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
                   or getattr(awaited, "ag_await", None))
    return "\n".join(lines)


def hang_report() -> str:
    """Every other thread's stack (this one's is the failure's traceback), then every
    task of the event loop running in this thread (if one runs: a signal handler of the
    main thread sees the test's loop)."""
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    parts = []
    for ident, frame in sys._current_frames().items():
        if ident == threading.get_ident():
            continue
        stack = "".join(traceback.format_stack(frame))
        parts.append(f"--- thread {names.get(ident, '?')} ({ident}):\n{stack}")
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    if loop is not None:
        tasks = sorted(asyncio.all_tasks(loop), key=lambda task: task.get_name())
        parts.append(f"--- {len(tasks)} asyncio tasks:")
        parts.extend(task_stack(task) for task in tasks)
    return "\n".join(parts)

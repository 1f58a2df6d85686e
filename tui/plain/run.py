"""Plain mode's run: one table's session wired to stdin and stdout.

The session (:class:`tui.session.TableSession`: the embedded broker, the host and its
bots for ``play``) posts its messages here instead of to an app; they go to the
:class:`~tui.plain.table.PlainTable`, whose lines go to stdout. Typed lines come from a
thread reading stdin (a pipe, a file and a terminal alike).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from engine.games import AnyAction, game_def
from netplay.playing.notices import GameEnded
from tui import words
from tui.plain.table import PlainTable
from tui.plain.words import escaped

log = logging.getLogger("tui.plain")

INTERRUPTED = 130
"""The exit status after Ctrl-C (the shell's, for SIGINT)."""


MAX_LINE = 4096
"""The longest typed line read, in characters (a command, or a chat line of at most 500)."""


@dataclass(frozen=True, slots=True)
class LongLine:
    """A typed line longer than :data:`MAX_LINE`, skipped unread: only its length is kept."""

    length: int


def typed_lines(stream: TextIO, limit: int = MAX_LINE) -> Iterator[str | LongLine]:
    """Every line of ``stream``; a line longer than ``limit`` characters as a
    :class:`LongLine`, read past a piece at a time (never held whole)."""
    while line := stream.readline(limit + 1):
        if len(line) <= limit or line.endswith("\n"):
            yield line
            continue
        length = len(line)
        while (rest := stream.readline(limit + 1)) and not rest.endswith("\n"):
            length += len(rest)
        length += len(rest.rstrip("\n"))
        yield LongLine(length)


def _read_lines(loop: asyncio.AbstractEventLoop,
                queue: asyncio.Queue[str | LongLine | None], stream: TextIO) -> None:
    """A thread: every line of ``stream`` onto ``queue``, then ``None`` at its end. A
    thread reads a pipe, a file and a terminal alike without blocking the loop."""
    try:
        for line in typed_lines(stream):
            loop.call_soon_threadsafe(queue.put_nowait, line)
    except (OSError, ValueError):
        pass
    with contextlib.suppress(RuntimeError):  # the loop closed first
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def play_plain(launch: Any, *, stdin: TextIO | None = None,
                     stdout: TextIO | None = None, profiles: Any = None,
                     memory: Any = None) -> int:
    """Run one table in plain mode until the game is over (and checked) or the user
    quits; the exit status (0 done, 1 the table could not be opened or refused us, 130
    Ctrl-C)."""
    from tui.messages import (
        BrokerNote,
        Health,
        NetNotice,
        RecordWritten,
        SessionFailed,
        SessionReady,
        Waiting,
    )
    from tui.session import TableSession

    out = stdout or sys.stdout
    loop = asyncio.get_running_loop()
    done: asyncio.Future[int] = loop.create_future()

    def write(line: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            out.write(line + "\n")
            out.flush()

    def finish(code: int) -> None:
        if not done.done():
            done.set_result(code)

    session: TableSession | None = None

    def send(action: AnyAction) -> None:
        if session is not None:
            session.act(action)

    def chat(text: str) -> None:
        if session is not None:
            session.chat(text)

    table = PlainTable(
        launch.table, send=send, later=loop.call_later, write=write, say_chat=chat,
        block_window=launch.block_window if launch.hosting else None,
    )
    record: list[str] = []

    def after_game() -> None:
        """The game is over: leave once the deal is checked (and, at our own table, the
        record written), or after a while without it."""
        if table.verdict is None or (launch.hosting and not record):
            return
        finish(0)

    def post(message: object) -> None:
        try:
            if isinstance(message, NetNotice):
                player = session.player if session is not None else None
                table.notice(message.notice, player.view if player is not None else None)
                if isinstance(message.notice, GameEnded):
                    loop.call_later(launch.verify_wait + 10.0, finish, 0)
                if table.failed:
                    finish(1)
                if table.over:
                    after_game()
            elif isinstance(message, Health):
                problem = message.problem
                table.health(None if problem is None else problem.title,
                             "" if problem is None else problem.words)
            elif isinstance(message, SessionFailed):
                table.say(escaped(f"{message.problem.title} {message.problem.words}"))
                finish(1)
            elif isinstance(message, SessionReady):
                if launch.role != "play":
                    table.say(escaped(f"Connected: {message.where}."))
            elif isinstance(message, Waiting):
                table.waiting = message.line
            elif isinstance(message, BrokerNote):
                table.say(words.broker_line(message.text))
            elif isinstance(message, RecordWritten):
                record.append(message.path)
                table.say(escaped(f"The game's record is in {message.path} (stacks replay "
                                  "or stacks verify read it)."))
                if table.over:
                    after_game()
        except Exception:  # a peer never dies of its interface: say it, log it
            log.exception("plain mode could not tell %r", message)
            table.say("Something went wrong showing that; the details are in the log.")

    opening = {"play": f"Starting a game of {game_def(launch.variant).title} against "
                       f"{launch.bots} {'bot' if launch.bots == 1 else 'bots'}…",
               "host": f"Opening table {launch.table}…",
               "join": f"Joining table {launch.table}…",
               "watch": f"Watching table {launch.table}…"}[launch.role]
    table.say("Plain mode: the game in numbered lines. Type help for the commands, quit to "
              "leave.")
    table.say(escaped(opening))
    session = TableSession(launch, post, profiles=profiles, memory=memory)
    session.plain = True  # our join says so: the host may give us a longer Block window
    running = asyncio.create_task(session.run())
    running.add_done_callback(lambda _task: finish(0 if table.over else 1))
    lines: asyncio.Queue[str | LongLine | None] = asyncio.Queue()
    reader = threading.Thread(target=_read_lines, args=(loop, lines, stdin or sys.stdin),
                              name="plain-stdin", daemon=True)
    reader.start()

    async def typed() -> None:
        while True:
            line = await lines.get()
            if line is None:  # the end of the input leaves, as quit does
                finish(0)
                return
            if isinstance(line, LongLine):
                table.say(f"That line is too long ({line.length:,} characters; a command "
                          f"or a chat line has at most {MAX_LINE:,}): nothing was done.")
                continue
            try:
                going_on = table.line(line)
            except Exception:
                log.exception("plain mode could not do %r", line)
                table.say("Something went wrong doing that; the details are in the log.")
                going_on = True
            if not going_on:
                table.say("Leaving the table. Goodbye.")
                finish(0)
                return

    def interrupted() -> None:
        """Ctrl-C leaves the table as quit does (a second one, while it closes, stops
        at once)."""
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
        finish(INTERRUPTED)

    caught = False
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupted)  # the main thread, on Unix
        caught = True
    typing = asyncio.create_task(typed())
    try:
        code = await done
    finally:
        typing.cancel()
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await running
        if caught:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(signal.SIGINT)
    if code == INTERRUPTED:
        table.say("Left the table.")
    elif code == 1 and not table.failed and not table.over:
        table.say("The table closed.")
    return code


def run_plain(launch: Any) -> int:
    """``stacks play --plain`` and the others: the exit status."""
    try:
        return asyncio.run(play_plain(launch))
    except KeyboardInterrupt:  # a second Ctrl-C while the table closed
        return INTERRUPTED

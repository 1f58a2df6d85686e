"""A table's screen drawn once for all its visitors (webserver.terminal): the changes it
says, applied in order on a visitor's terminal, give the program's screen cell for cell;
so does the whole screen a late visitor gets, with the changes after it; and a slow
visitor neither stalls the others nor misses anything (webserver.stage)."""

from __future__ import annotations

import asyncio
import sys

import pyte
import pytest

from stacks.commands import web as command
from tests.support import wait_until_async
from webserver import server
from webserver import stage as stage_module
from webserver.stage import Stage
from webserver.terminal import Screen

FRAMES = [
    b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J",
    b"\x1b[1;1H\x1b[1;38;2;224;224;224;48;2;36;47;56m Watching table friday \x1b[0m",
    "\x1b[3;1H─Players──────\x1b[3;40H▏─Log──".encode(),
    "\x1b[5;41H── 1. Ann's turn ──\x1b[6;41H\x1b[31mAnn played R4\x1b[0m".encode(),
    "\x1b[5;41H── 2. Bo's turn ── \x1b[6;41H\x1b[44;97mBo  discarded B1\x1b[0m".encode(),
    "\x1b[10;5H中文 wide\x1b[10;5Hab".encode(),  # a wide character, then narrow over it
    b"\x1b[2;1H\x1b[7mreverse\x1b[27m \x1b[4munder\x1b[24m \x1b[3mitalic\x1b[0m",
    b"\x1b[20;1H" + b"x" * 60 + b"\x1b[20;10Hy",
]


def _cells(screen: pyte.Screen) -> list[list[pyte.screens.Char]]:
    return [[screen.buffer[y][x] for x in range(screen.columns)] for y in range(screen.lines)]


def test_the_changes_and_the_whole_screen_give_the_programs_screen() -> None:
    program = pyte.Screen(60, 24)
    program_stream = pyte.ByteStream(program)
    screen = Screen(60, 24)
    visitor = pyte.Screen(60, 24)
    visitor_stream = pyte.ByteStream(visitor)
    late: pyte.Screen | None = None
    late_stream: pyte.ByteStream | None = None
    assert not screen.drawn and screen.changes() == b""
    for n, frame in enumerate(FRAMES):
        program_stream.feed(frame)
        screen.feed(frame)
        changes = screen.changes()
        visitor_stream.feed(changes)
        if late_stream is not None:
            late_stream.feed(changes)
        assert _cells(visitor) == _cells(program), n
        if n == 3:  # a visitor arrives: the whole screen, then the changes
            late = pyte.Screen(60, 24)
            late_stream = pyte.ByteStream(late)
            late_stream.feed(b"\x1b[5;5Hjunk on the page before")
            late_stream.feed(screen.repaint())
        if late is not None:
            assert _cells(late) == _cells(program), n
    assert screen.drawn
    # Nothing changed: nothing to say; a frame that redraws the same cells says nothing.
    assert screen.changes() == b""
    screen.feed(FRAMES[-1])
    assert screen.changes() == b""
    # The changes are the cells that changed, not the frame: one cell of a long row.
    screen.feed(b"\x1b[20;1H" + b"x" * 30 + b"z" + b"x" * 29)
    assert screen.changes().count(b"x") < 8


async def _stage_with(frames: list[bytes]) -> Stage:
    stage = Stage("friday", f"exec {sys.executable} -c pass", size=(60, 24), env={},
                  slot=1)
    for frame in frames:
        await stage.written(frame)
        stage._said()  # as the flush does, at most every 20 ms
    return stage


@pytest.mark.asyncio
async def test_a_slow_visitor_stalls_nobody_and_one_far_behind_gets_the_whole_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    keep = 4096  # the changes kept for visitors catching up (512 KiB in service)
    monkeypatch.setattr(stage_module, "KEEP_BYTES", keep)
    stage = await _stage_with(FRAMES[:3])
    fast: list[bytes] = []
    stuck = asyncio.Event()
    slow: list[bytes] = []

    async def to_fast(data: bytes) -> None:
        fast.append(data)

    async def to_slow(data: bytes) -> None:
        slow.append(data)
        await stuck.wait()  # its socket does not drain

    senders = [asyncio.create_task(stage.send_to(to_fast)),
               asyncio.create_task(stage.send_to(to_slow))]
    await asyncio.sleep(0)
    assert fast and slow and fast[0] == slow[0] == stage.screen.repaint()
    # More than the kept run of changes while the slow one is stuck.
    n = 0
    while sum(map(len, fast[1:])) <= keep + 1000:
        n += 1
        await stage.written(f"\x1b[{n % 20 + 1};1H{'ab'[n // 20 % 2] * 60}".encode())
        stage._said()
        await asyncio.sleep(0)
    assert len(fast) > 20 and len(slow) == 1
    stuck.set()
    await asyncio.sleep(0.05)
    # Far behind: the whole screen as it is now, not the changes it missed.
    assert slow[1] == stage.screen.repaint()
    view = pyte.Screen(60, 24)
    pyte.ByteStream(view).feed(b"".join(fast))
    late = pyte.Screen(60, 24)
    pyte.ByteStream(late).feed(slow[-1])
    assert view.display == late.display
    stage.program_ended()
    await asyncio.wait_for(asyncio.gather(*senders), 5)


def test_the_commands_defaults_are_the_servers() -> None:
    assert command.DEFAULT_MAX_VISITORS == server.DEFAULT_MAX_VISITORS
    assert command.DEFAULT_SCREEN == server.DEFAULT_SCREEN
    assert command.DEFAULT_LINGER_S == server.DEFAULT_LINGER_S


@pytest.mark.asyncio
async def test_frames_drawn_together_are_one_change_and_endless_drawing_is_still_sent() -> None:
    stage = Stage("friday", f"exec {sys.executable} -c pass", size=(60, 24), env={},
                  slot=1)
    for frame in FRAMES[:4]:  # a change the program draws in several frames at once
        await stage.written(frame)
    await wait_until_async(lambda: stage.next or None, "the frames said as a change")
    assert stage.next == 1
    # A program drawing without a pause (a frame every few ms, for longer than the
    # changes wait for a quiet moment) is still sent meanwhile.
    loop = asyncio.get_running_loop()
    began = loop.time()
    count = 0
    while stage.next == 1:
        assert loop.time() - began < 10, "nothing sent while the program kept drawing"
        await stage.written(f"\x1b[12;1H{count}".encode())
        count += 1
        await asyncio.sleep(0.002)
    visitor = pyte.Screen(60, 24)
    stream = pyte.ByteStream(visitor)
    for chunk in stage._chunks:
        stream.feed(chunk)
    assert "Ann's turn" in visitor.display[4]

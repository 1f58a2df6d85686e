"""A table's screen, drawn once for all its browser visitors.

The table's one spectator program writes terminal output (what xterm.js in each browser
draws). :class:`Screen` reads it through a terminal emulator (pyte) and says, in escape
sequences any terminal of the same size understands:

- :meth:`Screen.changes`: the cells that changed since it last said (a Textual program
  often redraws far more than changed: a new log line redraws the whole screen; the
  changed cells are a fraction of it, and several frames close together are one change);
- :meth:`Screen.repaint`: the whole screen as it stood then, for a visitor who arrives
  late or has fallen behind. The changes said after it apply on top of it.
"""

from __future__ import annotations

import pyte
from pyte import graphics, modes
from pyte.screens import Char

_FG = {name: code for code, name in {**graphics.FG_ANSI, **graphics.FG_AIXTERM}.items()}
_BG = {name: code for code, name in {**graphics.BG_ANSI, **graphics.BG_AIXTERM}.items()}
_FLAGS = (("bold", "1"), ("italics", "3"), ("underscore", "4"), ("blink", "5"),
          ("reverse", "7"), ("strikethrough", "9"))
_JOIN_GAP = 6
"""Unchanged cells between two changed runs of a row written through rather than jumped
over (a cursor move costs about as many bytes)."""


class Screen:
    """A terminal of ``width`` x ``height`` cells fed a program's output."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._screen = pyte.Screen(width, height)
        self._stream = pyte.ByteStream(self._screen)
        blank = self._screen.default_char
        self._shown: list[list[Char]] = [[blank] * width for _ in range(height)]
        """The screen as the changes said so far leave it (what every visitor has)."""
        self._said = 0
        """How many times :meth:`changes` had something to say."""
        self._repaint: tuple[int, bytes] | None = None

    @property
    def drawn(self) -> bool:
        """Whether any change was said yet (a fresh screen has nothing to show)."""
        return self._said > 0

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)

    def changes(self) -> bytes:
        """The cells changed since the last call, as escape sequences (``b""``: none)."""
        screen = self._screen
        dirty = sorted(y for y in screen.dirty if 0 <= y < self.height)
        screen.dirty.clear()
        out: list[str] = []
        style = ""
        width = self.width
        for y in dirty:
            row = screen.buffer[y]
            now = [row[x] for x in range(width)]
            before = self._shown[y]
            if now == before:
                continue
            self._shown[y] = now
            x = 0
            while x < width:
                if now[x] == before[x]:
                    x += 1
                    continue
                end = x + 1  # the run of changes, gaps of a few equal cells included
                gap = 0
                while end < width and gap <= _JOIN_GAP:
                    gap = gap + 1 if now[end] == before[end] else 0
                    end += 1
                end -= gap
                if now[x].data == "" and x > 0:
                    x -= 1  # the second half of a wide character: from its first half
                out.append(f"\x1b[{y + 1};{x + 1}H")
                style = _cells(now, x, end, style, out)
                x = end
        if not out:
            return b""
        self._said += 1
        out.append("\x1b[0m")
        return "".join(out).encode("utf-8", "replace")

    def repaint(self) -> bytes:
        """The whole screen as the changes said so far leave it, on a terminal in any
        state: the alternate screen cleared, every row drawn with its colours, the cursor
        hidden if the program hid it."""
        if self._repaint is not None and self._repaint[0] == self._said:
            return self._repaint[1]
        out = ["\x1b[?1049h\x1b[0m\x1b[H\x1b[2J"]
        if modes.DECTCEM not in self._screen.mode:
            out.append("\x1b[?25l")
        for y, row in enumerate(self._shown):
            out.append(f"\x1b[{y + 1};1H")
            _cells(row, 0, self.width, "", out)
            out.append("\x1b[0m")
        data = "".join(out).encode("utf-8", "replace")
        self._repaint = (self._said, data)
        return data


def _cells(row: list[Char], start: int, end: int, style: str, out: list[str]) -> str:
    """Write cells ``start`` to ``end`` of ``row`` to ``out`` (the terminal's style being
    ``style``); returns the style they leave."""
    for x in range(start, end):
        char = row[x]
        if not char.data:
            continue  # the second cell of a wide character (pyte leaves it empty)
        wanted = _sgr(char)
        if wanted != style:
            out.append(wanted)
            style = wanted
        out.append(char.data)
    return style


def _sgr(char: Char) -> str:
    """The one SGR sequence that sets a cell's whole style from a reset."""
    codes = ["0"]
    codes += [code for name, code in _FLAGS if getattr(char, name)]
    codes.append(_colour(char.fg, _FG, "38", "39"))
    codes.append(_colour(char.bg, _BG, "48", "49"))
    return f"\x1b[{';'.join(codes)}m"


def _colour(value: str, named: dict[str, int], extended: str, default: str) -> str:
    if value in named:
        return str(named[value])
    if len(value) == 6:
        try:
            red, green, blue = (int(value[i:i + 2], 16) for i in (0, 2, 4))
        except ValueError:
            return default
        return f"{extended};2;{red};{green};{blue}"
    return default

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

import codecs
import re

import pyte
from pyte import charsets, graphics, modes
from pyte.screens import Char
from wcwidth import wcwidth

_FG = {name: code for code, name in {**graphics.FG_ANSI, **graphics.FG_AIXTERM}.items()}
_BG = {name: code for code, name in {**graphics.BG_ANSI, **graphics.BG_AIXTERM}.items()}
_FLAGS = (("bold", "1"), ("italics", "3"), ("underscore", "4"), ("blink", "5"),
          ("reverse", "7"), ("strikethrough", "9"))
_QUICK = re.compile(r"\x1b\[(\d*(?:;\d*)?)H|\x1b\[([0-9;]*)m")
"""The two escape sequences most of a Textual program's output is (a cursor move, a
style), read here and handed to pyte's screen at once; pyte's parser reads the rest."""
_WHOLE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[^\[\]])")
_CUT_AT_MOST = 256
"""An escape sequence cut at the end of a piece of output is held back for the next piece,
at most this long (longer: not a sequence cut short, and pyte reads it as it is)."""
_JOIN_GAP = 6
"""Unchanged cells between two changed runs of a row written through rather than jumped
over (a cursor move costs about as many bytes)."""


class _Emulator(pyte.Screen):
    """pyte's screen, with a quicker way to draw the common text: a run of one-cell
    characters that fits on its row, in the default character set, not inserting (what
    a Textual program writes almost always). Each cell is looked up, not made anew; the
    result is pyte's own, which draws everything else."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self._cells: dict[Char, dict[str, Char]] = {}
        self._narrow: dict[str, bool] = {}

    def draw(self, data: str) -> None:
        cursor = self.cursor
        x = cursor.x
        if (self.charset or self.g0_charset is not charsets.LAT1_MAP
                or x + len(data) > self.columns or modes.IRM in self.mode
                or not ((data.isascii() and data.isprintable()) or self._all_narrow(data))):
            super().draw(data)
            return
        attrs = cursor.attrs
        cells = self._cells.get(attrs)
        if cells is None:
            if len(self._cells) > 4096:
                self._cells.clear()
            cells = self._cells[attrs] = {}
        line = self.buffer[cursor.y]
        for char in data:
            cell = cells.get(char)
            if cell is None:
                cell = cells[char] = attrs._replace(data=char)
            line[x] = cell
            x += 1
        cursor.x = x
        self.dirty.add(cursor.y)

    def _all_narrow(self, data: str) -> bool:
        narrow = self._narrow
        for char in data:
            known = narrow.get(char)
            if known is None:
                if len(narrow) > 4096:
                    narrow.clear()
                known = narrow[char] = wcwidth(char) == 1
            if not known:
                return False
        return True


class Screen:
    """A terminal of ``width`` x ``height`` cells fed a program's output."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._screen = _Emulator(width, height)
        self._stream = pyte.Stream(self._screen)
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._held = ""
        self._styles: dict[tuple[Char, str], Char] = {}
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
        text = self._held + self._decoder.decode(data)
        self._held = ""
        cut = text.rfind("\x1b")
        if cut >= 0 and len(text) - cut < _CUT_AT_MOST and not _WHOLE.match(text, cut):
            text, self._held = text[:cut], text[cut:]
        screen = self._screen
        feed = self._stream.feed
        done = 0
        for found in _QUICK.finditer(text):
            start = found.start()
            if start > done:
                feed(text[done:start])
            move, style = found.groups()
            if move is not None:
                screen.cursor_position(*(min(int(n or 0), 9999) for n in move.split(";")))
            else:  # a style: the same change of the same style is looked up, not redone
                cursor = screen.cursor
                key = (cursor.attrs, style)
                attrs = self._styles.get(key)
                if attrs is None:
                    screen.select_graphic_rendition(*(min(int(n or 0), 9999)
                                                      for n in style.split(";")))
                    if len(self._styles) > 4096:
                        self._styles.clear()
                    attrs = self._styles[key] = cursor.attrs
                cursor.attrs = attrs
            done = found.end()
        if done < len(text):
            feed(text[done:])

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

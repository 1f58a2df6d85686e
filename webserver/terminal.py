"""The last full screen of a table's spectator view, for a visitor who arrives late.

The table's one spectator program writes terminal output (what xterm.js in each browser
draws): changes to the screen, each assuming the screen before it. A visitor who arrives
in the middle needs the whole current screen first. :class:`Screen` reads the same output
through a terminal emulator (pyte) and draws, on demand, the whole screen as it stands, in
escape sequences a fresh terminal understands; the changes that follow apply on top of it.
"""

from __future__ import annotations

import pyte
from pyte import graphics, modes

_FG = {name: code for code, name in {**graphics.FG_ANSI, **graphics.FG_AIXTERM}.items()}
_BG = {name: code for code, name in {**graphics.BG_ANSI, **graphics.BG_AIXTERM}.items()}
_FLAGS = (("bold", "1"), ("italics", "3"), ("underscore", "4"), ("blink", "5"),
          ("reverse", "7"), ("strikethrough", "9"))


class Screen:
    """A terminal of ``width`` x ``height`` cells fed a program's output."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self._screen = pyte.Screen(width, height)
        self._stream = pyte.ByteStream(self._screen)
        self.drawn = False
        """Whether anything was written yet (a fresh screen has nothing to show)."""

    def feed(self, data: bytes) -> None:
        self._stream.feed(data)
        self.drawn = True

    def repaint(self) -> bytes:
        """The whole screen as it stands, for a terminal of the same size: the alternate
        screen cleared, every row drawn with its colours, the cursor as the program left it
        (hidden, for a Textual program)."""
        screen = self._screen
        out = ["\x1b[?1049h\x1b[0m\x1b[H\x1b[2J"]
        if modes.DECTCEM not in screen.mode:
            out.append("\x1b[?25l")
        for y in range(self.height):
            row = screen.buffer[y]
            out.append(f"\x1b[{y + 1};1H")
            style = ""
            for x in range(self.width):
                char = row[x]
                if not char.data:
                    continue  # the second cell of a wide character (pyte leaves it empty)
                wanted = _sgr(char)
                if wanted != style:
                    out.append(wanted)
                    style = wanted
                out.append(char.data)
            out.append("\x1b[0m")
        cursor = screen.cursor
        out.append(f"\x1b[{min(cursor.y, self.height - 1) + 1};"
                   f"{min(cursor.x, self.width - 1) + 1}H")
        return "".join(out).encode("utf-8", "replace")


def _sgr(char: pyte.screens.Char) -> str:
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

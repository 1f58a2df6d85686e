"""The 10x10 board as data (RULES.md §3.7) and the lines of five that make sequences.

A cell is ``row * 10 + column``, row 0 at the top and column 0 at the left, and is
named by its column letter and row number: ``A1`` is the top-left corner, ``J10`` the
bottom-right. The layout is a table of card codes, so another valid layout (each of the
48 non-jack cards twice, a free space in each corner) can be swapped in by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from engine.classic.cards import CODES, JACK, RANKS

Cell = int
"""A board space, ``0..99``."""

SIZE: Final = 10
CELLS: Final = SIZE * SIZE
RUN: Final = 5
"""Chips in a row that make a sequence."""
FREE: Final = "FREE"
"""A corner: it counts as a chip of every colour and never holds one (§3.4)."""

STANDARD_ROWS: Final[tuple[tuple[str, ...], ...]] = (
    ("FREE", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "FREE"),
    ("6C", "5C", "4C", "3C", "2C", "AH", "KH", "QH", "10H", "10S"),
    ("7C", "AS", "2D", "3D", "4D", "5D", "6D", "7D", "9H", "QS"),
    ("8C", "KS", "6C", "5C", "4C", "3C", "2C", "8D", "8H", "KS"),
    ("9C", "QS", "7C", "6H", "5H", "4H", "AH", "9D", "7H", "AS"),
    ("10C", "10S", "8C", "7H", "2H", "3H", "KH", "10D", "6H", "2D"),
    ("QC", "9S", "9C", "8H", "9H", "10H", "QH", "QD", "5H", "3D"),
    ("KC", "8S", "10C", "QC", "KC", "AC", "AD", "KD", "4H", "4D"),
    ("AC", "7S", "6S", "5S", "4S", "3S", "2S", "2H", "3H", "5D"),
    ("FREE", "AD", "KD", "QD", "10D", "9D", "8D", "7D", "6D", "FREE"),
)
"""The Jax layout (B1; B2 and B3 hold it rotated by 180 degrees)."""

CORNERS: Final[frozenset[Cell]] = frozenset({0, SIZE - 1, CELLS - SIZE, CELLS - 1})

_DIRECTIONS: Final = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Across, down, down-right, down-left."""


def cell_name(cell: Cell) -> str:
    """``A1`` (top left) .. ``J10`` (bottom right)."""
    row, col = divmod(cell, SIZE)
    return f"{'ABCDEFGHIJ'[col]}{row + 1}"


def parse_cell(text: str) -> Cell:
    """The inverse of :func:`cell_name` (case-insensitive); ``ValueError`` if it is none."""
    text = text.strip().upper()
    if len(text) < 2 or text[0] not in "ABCDEFGHIJ" or not text[1:].isdigit():
        raise ValueError(f"{text!r} is not a board space (A1..J10)")
    row = int(text[1:]) - 1
    if not 0 <= row < SIZE:
        raise ValueError(f"{text!r} is not a board space (A1..J10)")
    return row * SIZE + "ABCDEFGHIJ".index(text[0])


def _lines() -> list[tuple[Cell, ...]]:
    """Every straight line of the board at least five long, in a fixed order."""
    lines: list[tuple[Cell, ...]] = []
    for dr, dc in _DIRECTIONS:
        for row in range(SIZE):
            for col in range(SIZE):
                prev_r, prev_c = row - dr, col - dc
                if 0 <= prev_r < SIZE and 0 <= prev_c < SIZE:
                    continue  # not the start of a line
                cells = []
                r, c = row, col
                while 0 <= r < SIZE and 0 <= c < SIZE:
                    cells.append(r * SIZE + c)
                    r, c = r + dr, c + dc
                if len(cells) >= RUN:
                    lines.append(tuple(cells))
    return lines


LINES: Final[tuple[tuple[Cell, ...], ...]] = tuple(_lines())
"""20 rows and columns and 2 x 11 diagonals."""


def _windows() -> tuple[tuple[tuple[Cell, ...], ...], tuple[int, ...], tuple[int, ...]]:
    windows: list[tuple[Cell, ...]] = []
    line_of: list[int] = []
    start_of: list[int] = []
    for index, line in enumerate(LINES):
        for start in range(len(line) - RUN + 1):
            windows.append(line[start : start + RUN])
            line_of.append(index)
            start_of.append(start)
    return tuple(windows), tuple(line_of), tuple(start_of)


WINDOWS, WINDOW_LINE, WINDOW_START = _windows()
"""``WINDOWS[w]``: the five cells of window ``w`` (192 of them); its line and its start
index along that line. A sequence is a window."""

THROUGH: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(w for w, cells in enumerate(WINDOWS) if cell in cells) for cell in range(CELLS)
)
"""``THROUGH[cell]``: the windows that contain ``cell``, in window order."""

WINDOW_OF: Final[dict[tuple[Cell, ...], int]] = {cells: w for w, cells in enumerate(WINDOWS)}


class BoardError(ValueError):
    """A layout that is not a valid Sequence board."""


@dataclass(frozen=True, slots=True)
class Board:
    """A layout: the card code printed on each cell (``FREE`` in the corners)."""

    name: str
    codes: tuple[str, ...]
    """``codes[cell]``."""
    spaces: dict[str, tuple[Cell, Cell]]
    """The two cells of each non-jack card code."""

    @classmethod
    def from_rows(cls, name: str, rows: Sequence[Sequence[str]]) -> Board:
        """Check a layout and build it: 10 rows of 10, corners free, each card twice."""
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise BoardError(f"board {name!r} must be {SIZE} rows of {SIZE} cells")
        codes = tuple(code for row in rows for code in row)
        for cell in range(CELLS):
            if (codes[cell] == FREE) != (cell in CORNERS):
                raise BoardError(
                    f"board {name!r}: {cell_name(cell)} is {codes[cell]}; "
                    "exactly the four corners are FREE"
                )
        cards = sorted({c for c in CODES if not c.startswith(RANKS[JACK])})
        places: dict[str, list[Cell]] = {code: [] for code in cards}
        for cell, code in enumerate(codes):
            if code == FREE:
                continue
            if code not in places:
                raise BoardError(f"board {name!r}: {cell_name(cell)} holds {code!r}, no card")
            places[code].append(cell)
        wrong = [code for code, cells in places.items() if len(cells) != 2]
        if wrong:
            raise BoardError(f"board {name!r}: each card must be on two cells; not {wrong[:4]}")
        return cls(name, codes, {code: (cells[0], cells[1]) for code, cells in places.items()})

    def code(self, cell: Cell) -> str:
        return self.codes[cell]

    def rows(self) -> list[list[str]]:
        return [list(self.codes[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]


BOARDS: Final[dict[str, Board]] = {"standard": Board.from_rows("standard", STANDARD_ROWS)}
"""The layouts a table may name (``SequenceConfig.board``)."""

"""The 10x10 board of classic Sequence: card codes, chips, corners, sequences, targets.

Each cell is five columns wide: an edge, the card's code in two characters (``QH``, ``TS``
for the ten of spades, ``**`` for a free corner), a chip slot, an edge. Every cue reads
without colour too:

- a chip is its team's letter in the slot (``QHB``), white on the team's colour;
- a cell the selected card may take has ``+`` in the slot, on gold;
- a chip the selected one-eyed jack may remove has ``×`` edges;
- a chip of a completed sequence has ``[`` ``]`` edges (a run of them outlines it);
- the cursor has ``▸`` ``◂`` edges, in reverse video;
- while a player chooses which five of a run make a sequence, the five shown have ``{``
  ``}`` edges, on gold.

Columns are lettered A-J and rows numbered 1-10, as the engine names cells (``E4``). A
click on a cell moves the cursor there (:class:`BoardView.Clicked`).
"""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.reactive import reactive

from engine.classic.board import CORNERS, FREE, SIZE, Cell
from engine.classic.state import EMPTY, SequenceState
from tui.classic_words import RED_SUIT, TEAM_BG, short_code, team_letter
from tui.widgets.steady import Steady

COLUMNS = "ABCDEFGHIJ"
CELL_WIDTH = 5
LABEL_WIDTH = 3
WIDTH = LABEL_WIDTH + SIZE * CELL_WIDTH
"""Columns the board takes (53)."""
BIG_CELL = 6
BIG_WIDTH = LABEL_WIDTH + SIZE * BIG_CELL
"""Columns the big board takes (63; 21 lines)."""
TARGET_BG = "#c8a020"
CORNER_STYLE = "bold #c8a020"
TARGET = "+"
REMOVE = ("×", "×")
LOCKED = ("[", "]")
CHOICE = ("{", "}")
CURSOR = ("▸", "◂")

LEGEND = (
    f"[b]QH[/][bold #ffffff on {TEAM_BG[0]}]B[/] Blue chip   [b]\\[..][/] sequence   "
    "[b]**[/] free corner\n"
    "[b]+[/] your card fits   [b]×[/] your jack removes it"
)
"""Two lines under the board (46 columns at most, whole words at 80 columns): a chip is a
card's code and its team's letter (QH + B: the Blue team's chip on the queen of hearts),
shown on the team's colour."""


def sequence_cells(view: SequenceState) -> frozenset[Cell]:
    """Every cell of a completed sequence (corners included)."""
    return frozenset(cell for seq in view.sequences for cell in seq.cells)


class BoardView(Steady):
    """The board as one block of markup (11 lines: the column letters, then 10 rows),
    repainted only when it changes (`Steady`)."""

    DEFAULT_CSS = """
    BoardView {
        height: auto;
        width: auto;
    }
    """

    view: reactive[SequenceState | None] = reactive(None, always_update=True, repaint=False)
    targets: reactive[frozenset[Cell]] = reactive(frozenset(), repaint=False)
    """Empty cells the selected card may take."""
    removable: reactive[frozenset[Cell]] = reactive(frozenset(), repaint=False)
    """Chips the selected one-eyed jack may remove."""
    cursor: reactive[Cell | None] = reactive(None, repaint=False)
    choice: reactive[frozenset[Cell]] = reactive(frozenset(), repaint=False)
    """The cells of the sequence the player is choosing (``{`` ``}`` edges)."""
    last: reactive[Cell | None] = reactive(None, repaint=False)
    """The cell of the last move (shown in italics)."""
    big: reactive[bool] = reactive(False, layout=True)
    """Cells two lines tall and six columns wide (the chip on a line of its own), for
    roomy terminals (:data:`BIG_WIDTH` columns)."""

    WRAPS = False  # as wide as its widest line

    def watch_view(self) -> None:
        self.redraw()

    def watch_targets(self) -> None:
        self.redraw()

    def watch_removable(self) -> None:
        self.redraw()

    def watch_cursor(self) -> None:
        self.redraw()

    def watch_choice(self) -> None:
        self.redraw()

    def watch_last(self) -> None:
        self.redraw()

    def watch_big(self) -> None:
        self.redraw()

    class Clicked(Message):
        """A click on a cell (the screen moves its cursor there)."""

        def __init__(self, cell: Cell) -> None:
            super().__init__()
            self.cell = cell

    def on_click(self, event: events.Click) -> None:
        width, height = (BIG_CELL, 2) if self.big else (CELL_WIDTH, 1)
        col = (event.x - LABEL_WIDTH) // width
        row = (event.y - 1) // height
        if event.x >= LABEL_WIDTH and 0 <= col < SIZE and 0 <= row < SIZE:
            self.post_message(self.Clicked(row * SIZE + col))

    def markup(self) -> str:
        view = self.view
        if view is None:
            return "[dim]Waiting for the deal…[/]"
        in_sequence = sequence_cells(view)
        width = BIG_CELL if self.big else CELL_WIDTH
        header = " " * LABEL_WIDTH + "".join(f"{c:^{width}}" for c in COLUMNS)
        lines = [f"[dim]{header}[/]"]
        for row in range(SIZE):
            cells = [self._cell(view, row * SIZE + col, in_sequence) for col in range(SIZE)]
            if self.big:
                lines.append(f"[dim]{row + 1:>2}[/] " + "".join(top for top, _ in cells))
                lines.append("   " + "".join(bottom for _, bottom in cells))
            else:
                lines.append(f"[dim]{row + 1:>2}[/] " + "".join(one for one, _ in cells))
        return "\n".join(lines)

    def _cell(self, view: SequenceState, cell: Cell,
              in_sequence: frozenset[Cell]) -> tuple[str, str]:
        """The cell's markup: one line (and "" ), or its two lines when big."""
        code = view.board.codes[cell]
        team = view.chips[cell]
        corner = code == FREE or cell in CORNERS
        body = "**" if corner else short_code(code)
        slot = " "
        if team != EMPTY:
            slot = team_letter(team)
        elif cell in self.targets:
            slot = TARGET
        left, right = " ", " "
        if cell in in_sequence:
            left, right = LOCKED
        if cell in self.removable:
            left, right = REMOVE
        if cell in self.choice:
            left, right = CHOICE
        if cell == self.cursor:
            left, right = CURSOR
        if cell in self.choice:
            style = f"bold #1b1b1b on {TARGET_BG}"
        elif team != EMPTY:
            style = f"bold #ffffff on {TEAM_BG[team] if team < len(TEAM_BG) else '#606060'}"
        elif cell in self.targets:
            style = f"bold #1b1b1b on {TARGET_BG}"
        elif corner:
            style = CORNER_STYLE
        elif code[-1] in "HD":
            style = RED_SUIT
        else:
            style = ""
        if cell in in_sequence:
            style += " underline"
        if cell == self.last:
            style += " italic"
        if cell == self.cursor:
            style += " reverse"
        style = style.strip()
        if self.big:
            mark = "" if slot == " " else slot * 2
            return (_styled(f"{left} {body} {right}", style),
                    _styled(f"{left} {mark:^2} {right}", style))
        return _styled(f"{left}{body}{slot}{right}", style), ""


def _styled(text: str, style: str) -> str:
    text = text.replace("[", "\\[")  # markup's escape misses "[QH"
    return f"[{style}]{text}[/]" if style else text

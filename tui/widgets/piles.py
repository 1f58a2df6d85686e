"""The pile slots in the middle of the table, and the draw and out-of-play counts.

A pile is called by its name (a letter the engine gives it when it opens, the same on
every peer) and that letter is its key. It keeps its slot from the card that opens it
until it goes out of play; a free slot waits for a new pile (key ``n``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from engine.cards import MAX_RANK, Colour
from engine.state import PILE_NAMES, Pile, PileId, State
from tui import words
from tui.widgets.steady import show

LETTERS = PILE_NAMES
"""The piles' names, which are their keys: no other key of the table uses them."""
NEW_KEY = "n"


@dataclass(frozen=True, slots=True)
class Slot:
    """One place for a pile: its key letter, its colour and the pile in it (if any)."""

    letter: str
    """The pile's name (its key); ``""`` for a free slot."""
    colour: Colour
    pile: Pile | None
    complete: bool = False
    """The pile is complete and waits for the Block window to close."""
    place: int = 0
    """Where the slot is in its colour's row."""
    first_free: bool = False
    """The first free slot of its colour: it shows the new-pile key."""

    @property
    def ident(self) -> str:
        """Unique on the table: the pile's name, or ``+R0`` for the first free red slot."""
        return self.letter or f"+{self.colour.letter}{self.place}"

    @property
    def key(self) -> str:
        return self.letter or NEW_KEY

    @property
    def needs(self) -> int:
        return 1 if self.pile is None else self.pile.height + 1

    @property
    def full(self) -> bool:
        """Five cards high: complete (its window open, or a replay's step before it opens)."""
        return self.complete or (self.pile is not None and self.pile.height >= MAX_RANK)


class SlotMap:
    """Which slot each open pile sits in; slots per colour follow the pile limit."""

    def __init__(self) -> None:
        self._where: dict[PileId, int] = {}

    def slots(self, view: State) -> tuple[Slot, ...]:
        limit = view.config.max_open_piles_per_colour
        piles = list(view.piles)
        window_pile = view.window.pile if view.window is not None else None
        if window_pile is not None:
            piles.append(window_pile)
        by_colour: dict[Colour, list[Pile]] = {c: [] for c in Colour}
        for pile in sorted(piles, key=lambda p: p.id):
            by_colour[pile.colour].append(pile)
        open_ids = {p.id for p in piles}
        self._where = {k: v for k, v in self._where.items() if k in open_ids}
        result: list[Slot] = []
        for colour in Colour:
            mine = by_colour[colour]
            count = max(limit, len(mine)) if limit else len(mine) + 1
            places: list[Pile | None] = [None] * count
            for pile in mine:
                at = self._where.get(pile.id)
                if at is None or at >= count or places[at] is not None:
                    at = places.index(None)
                    self._where[pile.id] = at
                places[at] = pile
            first_free = True
            for place, pile_or_none in enumerate(places):
                if pile_or_none is None:
                    result.append(Slot("", colour, None, place=place, first_free=first_free))
                    first_free = False
                    continue
                result.append(Slot(
                    pile_or_none.name, colour, pile_or_none,
                    complete=pile_or_none is window_pile, place=place,
                ))
        return tuple(result)


class SlotView(Widget):
    """One pile slot; a click on it means the same as its key."""

    DEFAULT_CSS = """
    SlotView {
        height: 1;
        width: 1fr;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    SlotView.-after {
        border-left: vkey $foreground 30%;
    }
    SlotView:hover {
        background: $boost;
    }
    SlotView.-target {
        background: $accent 30%;
    }
    """

    class Clicked(Message):
        def __init__(self, slot: Slot) -> None:
            super().__init__()
            self.slot = slot

    slot: reactive[Slot | None] = reactive(None)
    target: reactive[bool] = reactive(False)
    big: reactive[bool] = reactive(False, layout=True)
    keys: reactive[bool] = reactive(True)
    """Show the slot's key (a player's table); a spectator and a replay press none."""

    def watch_target(self, target: bool) -> None:
        self.set_class(target, "-target")

    def on_click(self) -> None:
        if self.slot is not None:
            self.post_message(self.Clicked(self.slot))

    def watch_big(self, big: bool) -> None:
        self.styles.height = 3 if big else 1

    def render(self) -> str:
        slot = self.slot
        if slot is None:
            return ""
        if self.big:
            return self._render_big(slot)
        key = self._key(slot)
        title = words.colour_word(slot.colour)
        pad = " " * (4 - len(slot.colour.title))
        if slot.pile is None:
            letter = slot.colour.letter
            body = f"[dim]empty · starts with {letter}1 or {letter}W[/]"
        else:
            cards = "".join(words.card(c) for c in slot.pile.cards)
            tail = "[b]complete![/]" if slot.full else f"[dim]next[/] [b]{slot.needs}[/]"
            body = f"{cards} {tail}"
        return f"{key} {title}{pad} {body}" + (" [b]◀[/]" if self.target else "")

    def _key(self, slot: Slot) -> str:
        """Two cells: the slot's key (a free slot past the first shows none); where no key
        plays (a spectator, a replay, the rail) a pile still shows its name, unmarked as a key,
        so a watcher can tell which pile the log's "Red pile d" is."""
        if not self.keys:
            return f"[b]{slot.letter}[/] " if slot.pile is not None else "  "
        shown = slot.key if slot.pile is not None or slot.first_free else " "
        if self.target:
            return f"[b]▶{shown}[/]"
        return f"[reverse b]{shown}[/] " if shown != " " else "  "

    def _render_big(self, slot: Slot) -> str:
        key = self._key(slot)
        title = words.colour_word(slot.colour)
        pad = " " * (4 - len(slot.colour.title))
        head = ("  ", key, "  ")
        if slot.pile is None:
            letter = slot.colour.letter
            body = ("", f"{title}{pad} [dim]empty · starts with {letter}1 or {letter}W[/]", "")
            text = [head[row] + body[row] for row in range(3)]
        else:
            # Two cells of key, five of name, four per card, ten of tail: a complete pile
            # fits the 37 cells a slot has at 120 columns.
            boxes = [words.card_box(c, narrow=True) for c in slot.pile.cards]
            cards = words.join_boxes(boxes, gap="").split("\n")
            tail = "[b]complete![/]" if slot.full else f"[dim]next[/] [b]{slot.needs}[/]"
            text = [f"{head[0]}{' ' * 5}{cards[0]}", f"{head[1]}{title}{pad} {cards[1]} {tail}",
                    f"{head[2]}{' ' * 5}{cards[2]}"]
        if self.target:
            text[1] += " [b]◀[/]"
        return "\n".join(text)


def place_id(slot: Slot) -> str:
    """A slot widget's id: its place, which outlives the piles that come and go in it."""
    return f"slot-{slot.colour.name.lower()}-{slot.place}"


class Piles(Widget):
    """The slots, one row per colour, then the counts. Set ``view``, ``slots``, ``targets``."""

    DEFAULT_CSS = """
    Piles {
        height: auto;
        width: 1fr;
        layout: vertical;
    }
    Piles > .pile-row {
        height: auto;
        width: 1fr;
    }
    Piles > .pile-counts {
        height: 1;
        width: 1fr;
    }
    """

    # The piles draw nothing of their own (their rows and counts do): a new view repaints
    # only the slots and counts that changed.
    view: reactive[State | None] = reactive(None, always_update=True, repaint=False)
    slots: reactive[tuple[Slot, ...]] = reactive((), always_update=True, repaint=False)
    targets: reactive[frozenset[str]] = reactive(frozenset(), repaint=False)
    big: reactive[bool] = reactive(False, repaint=False)
    keys: reactive[bool] = reactive(True, repaint=False)
    """The slots' keys shown (``False`` from the rail and in a replay: no key plays)."""

    def watch_big(self, big: bool) -> None:
        for view in self.query(SlotView):
            view.big = big

    def watch_keys(self, keys: bool) -> None:
        for view in self.query(SlotView):
            view.keys = keys

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._shape: tuple[str, ...] = ()
        self._remount = asyncio.Lock()

    def compose(self) -> ComposeResult:
        for colour in Colour:
            yield Horizontal(classes="pile-row", id=f"row-{colour.name.lower()}")
        yield Static("", classes="pile-counts")

    def watch_slots(self, slots: tuple[Slot, ...]) -> Awaitable[None] | None:
        if self._remount.locked() or tuple(place_id(s) for s in slots) != self._shape:
            return self._remount_slots()
        # The same places (most batches): the slots are shown at once, in the repaint
        # that shows the rest of the batch, not in one of their own after it.
        self._show_slots(slots)
        self._counts()
        return None

    async def _remount_slots(self) -> None:
        async with self._remount:
            # Another update may have come while we waited: show the latest slots.
            slots = self.slots
            shape = tuple(place_id(s) for s in slots)
            if shape != self._shape:
                self._shape = shape
                for colour in Colour:
                    row = self.query_one(f"#row-{colour.name.lower()}", Horizontal)
                    await row.remove_children()
                    # A line between slots side by side: "complete!" ran into the next
                    # slot's key ("complete! n  Red").
                    await row.mount_all(
                        SlotView(id=place_id(s), classes="-after" if s.place else None)
                        for s in slots if s.colour is colour
                    )
            self._show_slots(slots)
        self._counts()

    def _show_slots(self, slots: tuple[Slot, ...]) -> None:
        views = {view.id: view for view in self.query(SlotView)}
        for slot in slots:
            view = views.get(place_id(slot))
            if view is None:
                continue  # the app is closing: nothing got mounted
            view.slot = slot
            view.target = slot.ident in self.targets
            view.big = self.big
            view.keys = self.keys

    @property
    def busy(self) -> bool:
        """Slots are being (re)mounted."""
        return self._remount.locked()

    def watch_targets(self, targets: frozenset[str]) -> None:
        for view in self.query(SlotView):
            view.target = view.slot is not None and view.slot.ident in targets

    def watch_view(self) -> None:
        self._counts()

    def _counts(self) -> None:
        view = self.view
        counts = self.query(".pile-counts").results(Static)
        if view is None:
            return
        for static in counts:  # one line high, whatever it says
            show(static,
                 f"[dim]Draw pile[/] [b]{len(view.draw_pile)}[/]   "
                 f"[dim]Out of play[/] [b]{len(view.out_of_play)}[/]   "
                 f"[dim]Action cards played[/] [b]{len(view.special_discard)}[/]",
                 layout=False)

"""Your side of the table: your hand, your discard top, your chips.

Cards you can play now carry a mark (``•``, and their key in bold; the others are dim),
so the cue reads without colour and changes with the turn; the selected card is framed
by arrows; a click on a card picks it, like its number key. Clickable text has no link
underline here: it would mark every card alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.reactive import reactive

from engine.cards import CardId, Colour
from engine.state import Seat, State
from tui import words
from tui.widgets.steady import Steady

DISCARD_KEY = "0"
PLAYABLE = "•"
"""The mark of a card that can be played now."""


@dataclass(frozen=True, slots=True)
class Pick:
    """A card the player points at: a hand position, or the discard top (``index`` -1)."""

    index: int
    card: CardId

    @property
    def from_discard(self) -> bool:
        return self.index < 0

    @property
    def key(self) -> str:
        if self.from_discard:
            return DISCARD_KEY
        return str(self.index + 1) if self.index < 9 else ""


def picks(view: State, seat: Seat) -> list[Pick]:
    """Every card ``seat`` may point at, in key order: the hand, then the discard top."""
    out = [Pick(i, c) for i, c in enumerate(view.hands[seat])]
    top = view.discard_top(seat)
    if top is not None:
        out.append(Pick(-1, top))
    return out


class Hand(Steady):
    """Two lines: the hand with number keys; the discard top, chips and skips. Repainted
    only when they change (`Steady`)."""

    DEFAULT_CSS = """
    Hand {
        height: auto;
        width: 1fr;
        link-style: none;
        link-background: transparent;
        link-color: $text;
        link-style-hover: none;
        link-background-hover: $boost;
        link-color-hover: $text;
    }
    """

    view: reactive[State | None] = reactive(None, always_update=True, repaint=False)
    me: reactive[Seat | None] = reactive(None, repaint=False)
    playable: reactive[frozenset[CardId]] = reactive(frozenset(), repaint=False)
    selected: reactive[Pick | None] = reactive(None, repaint=False)
    big: reactive[bool] = reactive(False, repaint=False)
    """Cards three lines tall, for roomy terminals."""

    def watch_view(self) -> None:
        self.redraw()

    def watch_me(self) -> None:
        self.redraw()

    def watch_playable(self) -> None:
        self.redraw()

    def watch_selected(self) -> None:
        self.redraw()

    def watch_big(self) -> None:
        self.redraw()

    def markup(self) -> str:
        view, me = self.view, self.me
        if view is None or me is None:
            return "[dim]You are watching: no hand.[/]"
        if self.big:
            return self._render_big(view, me)
        cards = [self._card(p) for p in picks(view, me) if not p.from_discard]
        hand = "  ".join(cards) if cards else "[dim]empty[/]"
        top = view.discard_top(me)
        if top is None:
            discard = "[dim]empty[/]"
        else:
            below = len(view.discards[me]) - 1
            discard = self._card(Pick(-1, top)) + (f" [dim]({below} below)[/]" if below else "")
        red, blue = view.chips[me][Colour.RED], view.chips[me][Colour.BLUE]
        second = f"[dim]Your discard[/] {discard}   [dim]Your chips[/] {words.chips(red, blue)}"
        if view.skip_tokens[me]:
            second += f"   [b]you miss {view.skip_tokens[me]} turn(s)[/]"
        second += self._legend(view, me)
        return f"[dim]Hand[/] {hand}\n{second}"

    def _legend(self, view: State, me: Seat) -> str:
        count = sum(1 for p in picks(view, me) if p.card in self.playable)
        if not count:
            return ""
        return f"   [b]{PLAYABLE}[/][dim] {count} playable now[/]"

    def _render_big(self, view: State, me: Seat) -> str:
        boxes = [self._box(p) for p in picks(view, me)]
        top = view.discard_top(me)
        if top is not None:
            hand_boxes, discard = boxes[:-1], boxes[-1]
            blank = " " * 3
            boxes = [*hand_boxes, (blank, " │ ", blank), discard]
        cards = words.join_boxes(boxes) if boxes else "[dim]Your hand is empty.[/]"
        red, blue = view.chips[me][Colour.RED], view.chips[me][Colour.BLUE]
        below = len(view.discards[me]) - 1 if top is not None else 0
        line = f"[dim]Your chips[/] {words.chips(red, blue)}"
        if top is not None:
            line += f"   [dim]your discard: the last card, {below} below it[/]"
        if view.skip_tokens[me]:
            line += f"   [b]you miss {view.skip_tokens[me]} turn(s)[/]"
        line += self._legend(view, me)
        return f"{cards}\n{line}"

    def _box(self, pick: Pick) -> tuple[str, str, str]:
        action = "screen.pick_top" if pick.from_discard else f"screen.pick({pick.index})"
        return words.card_box(pick.card, key=pick.key, selected=self.selected == pick,
                              playable=pick.card in self.playable, click=action)

    def _card(self, pick: Pick) -> str:
        playable = pick.card in self.playable
        body = words.card(pick.card, extra="" if playable or not self.playable else "dim")
        key = pick.key
        chosen = self.selected is not None and self.selected == pick
        mark = f"[b]{PLAYABLE}[/]" if playable else " "
        if chosen:
            label = f"[reverse b]{key}[/]"
        elif playable:
            label = f"[b]{key}[/]"
        else:
            label = f"[dim]{key}[/]" if key else ""
        text = f"▸{label}{mark}{body}◂" if chosen else f"{label}{mark}{body}"
        action = "screen.pick_top" if pick.from_discard else f"screen.pick({pick.index})"
        return f"[@click={action}]{text}[/]"

"""What a turn at the Sequence Stacks table asks the player, beyond a key: Steal from whom
and what (a choice of seats, then of hand or discard, or of colour), a discard that
could have gone on a pile (asked once), and the Block window's prompt (or the automatic
pass of a player who holds no Block). :class:`TableScreen` (``tui.screens.table``) is
built on :class:`TablePrompts`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.markup import escape
from textual.timer import Timer

from engine.actions import Action, Block, Discard, PassBlock, StealCard, StealChip
from engine.cards import Colour
from engine.state import Phase, PileId, Seat, State, Zone
from tui import words
from tui.messages import Act
from tui.plural import counted
from tui.screens.block import BlockPrompt, Decision
from tui.screens.choice import Answer, ChoiceScreen
from tui.screens.seated import SeatedScreen
from tui.turn import Turn, could_go_on
from tui.widgets.hand import Pick
from tui.widgets.opponents import seat_order

AUTO_PASS = (0.4, 1.2)
"""Without a Block in hand you pass at once, after a short random pause (so the speed of
a pass says little about your hand)."""

class TablePrompts(SeatedScreen):
    """The questions of a turn (``TableScreen`` owns the attributes below)."""

    names: tuple[str, ...]
    me: Seat | None
    view: State | None
    legal: list[Action]
    turn: Turn | None
    selected: Pick | None
    hint: Action | None
    block_window: float
    frozen: bool
    _prompted: PileId | None
    _prompt: BlockPrompt | None
    _auto_pass: Timer | None
    _discard_asked: int | None

    if TYPE_CHECKING:
        def tell(self, markup: str) -> None: ...

    def _seat_name(self, seat: Seat) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    def _misclick(self, discard: Discard) -> bool:
        """Discarding ends the turn: a card that could have gone on a pile is asked about
        once (the same key again discards it)."""
        if self._discard_asked == discard.card:
            return False
        where = could_go_on(self.turn, discard.card) if self.turn is not None else None
        if where is None:
            return False
        self._discard_asked = discard.card
        self.tell(f"{words.card(discard.card)} could go {where}. Discard it anyway and end "
                  "your turn? [b]x[/] again discards, any other key keeps it.")
        return True

    def _send(self, action: Action) -> None:
        self.hint = None
        self._discard_asked = None
        self.post_message(Act(action))

    def _ask_steal(self, kind: type[StealCard] | type[StealChip]) -> None:
        assert self.selected is not None and self.view is not None
        view = self.view
        card = self.selected.card
        options = [a for a in self.legal if isinstance(a, kind) and a.card == card]
        targets = sorted({a.target for a in options}, key=seat_order(view, self.me).index)
        answers = []
        for seat in targets:
            top = view.discard_top(seat)
            red, blue = view.chips[seat]
            detail = (f"hand {len(view.hands[seat])}, discard "
                      f"{words.card(top) if top is not None else '—'}"
                      if kind is StealCard else f"chips {words.chips(red, blue)}")
            answers.append(Answer(f"{escape(self._seat_name(seat))}  [dim]{detail}[/]", seat))
        title = "Steal a Card from whom?" if kind is StealCard else "Steal a Chip from whom?"

        def chosen(seat: Seat | None) -> None:
            if seat is None:
                return
            mine = [a for a in options if a.target == seat]
            if len(mine) == 1:
                self._send(mine[0])
                return
            self._ask_what(seat, mine)

        if len(targets) == 1:  # one opponent to take from: no "from whom?"
            chosen(targets[0])
            return
        self.app.push_screen(ChoiceScreen(title, answers), chosen)

    def _ask_what(self, seat: Seat, options: Sequence[StealCard | StealChip]) -> None:
        view = self.view
        assert view is not None
        who = self._seat_name(seat)
        answers: list[Answer[Action]] = []
        for action in options:
            if isinstance(action, StealCard):
                if action.zone == Zone.HAND:
                    label = f"a random card from {escape(who)}'s hand " \
                            f"({counted(len(view.hands[seat]), 'card')})"
                else:
                    top = view.discard_top(seat)
                    shown = words.card(top) if top is not None else ""
                    label = f"{escape(who)}'s discard top {shown}"
                answers.append(Answer(label, action))
            elif isinstance(action, StealChip):
                colour = Colour(action.colour)
                have = view.chips[seat][colour]
                answers.append(Answer(
                    f"a {words.colour_word(colour)} chip ({escape(who)} has {have})", action,
                ))
        question = (f"Take from {who}'s hand or discard?" if isinstance(options[0], StealCard)
                    else f"Take which colour of chip from {who}?")

        def chosen(action: Action | None) -> None:
            if action is not None:
                self._send(action)

        self.app.push_screen(ChoiceScreen(question, answers), chosen)

    # -- the Block window ----------------------------------------------------------------------

    def _block_window(self, view: State | None) -> None:
        window = view.window if view is not None else None
        if window is None or view is None or view.phase != Phase.BLOCK_WINDOW:
            self._end_prompt()
            return
        me = self.me
        if me is None or me == window.seat or me in window.passed:
            return
        if self._prompted == window.pile.id:
            return
        blocks = [a for a in self.legal if isinstance(a, Block)]
        passes = [a for a in self.legal if isinstance(a, PassBlock)]
        if not blocks and not passes:
            return
        self._prompted = window.pile.id
        if not blocks:
            if not self.frozen:
                low, high = AUTO_PASS
                high = max(low, min(high, self.block_window * 0.6))
                self._auto_pass = self.set_timer(
                    random.uniform(low, high), lambda: self._send(passes[0])
                )
            return
        held = "a Block card" if len(blocks) == 1 else f"{len(blocks)} Block cards"
        what = (f"[b]{escape(self._seat_name(window.seat))}[/] completed "
                f"{words.colour_word(window.pile.colour)} pile {window.pile.name}: "
                + "".join(words.card(c) for c in window.pile.cards)
                + f"\nBlock it? You hold {held}.")
        prompt = BlockPrompt(what, self.block_window, frozen=self.frozen)
        self._prompt = prompt

        def decided(decision: Decision | None) -> None:
            self._prompt = None
            if decision == "block":
                self._send(blocks[0])
            elif decision == "pass" and passes:
                self._send(passes[0])

        self.app.push_screen(prompt, decided)

    def _end_prompt(self) -> None:
        if self._auto_pass is not None:
            self._auto_pass.stop()
            self._auto_pass = None
        prompt, self._prompt = self._prompt, None
        if prompt is not None:
            prompt.expire()

"""The table: opponents, piles, your hand, the log and chat.

The screen renders the player's view (set as ``view`` by the app) and turns key presses
into actions taken from ``legal_actions`` of that view: it never decides a rule. The
selection (which card you point at) is the screen's own state.
"""

from __future__ import annotations

import contextlib
import time
from typing import ClassVar

from textual import events
from textual._path import CSSPathType
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.markup import escape
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Footer, Input, Static

from engine.actions import (
    Action,
    Discard,
    EndTurn,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.bots import GreedyBot
from engine.cards import FACES, Kind
from engine.errors import IllegalActionError
from engine.rules import legal_actions, validate
from engine.state import NEW_PILE, Phase, PileId, Seat, State
from tui import words
from tui.fit import fit_line
from tui.messages import Problem
from tui.model import SeatPresence
from tui.screens.block import BlockPrompt
from tui.screens.seated import sentence
from tui.screens.table_prompts import TablePrompts
from tui.turn import Choice, Turn, why_not
from tui.widgets.banner import Banner
from tui.widgets.hand import Hand, Pick, picks
from tui.widgets.log import TableLog
from tui.widgets.opponents import Opponents
from tui.widgets.piles import LETTERS, NEW_KEY, Piles, Slot, SlotMap, SlotView
from tui.widgets.steady import show
from tui.widgets.toosmall import TooSmall, fit

WIDE = 110
"""From this many columns the log and chat get a column of their own."""
TALL = 34
"""From this many lines (and WIDE columns) cards are drawn three lines tall."""


class TableScreen(TablePrompts):
    """A game in progress, from one seat (or from the rail, for a spectator)."""

    CSS_PATH: ClassVar[CSSPathType | None] = "table.tcss"
    AUTO_FOCUS = ""
    CARD = Binding.Group("card")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pick(0)", "Card", key_display="1-9"),
        *[Binding(str(n), f"pick({n - 1})", "Card", show=False) for n in range(2, 10)],
        Binding("0", "pick_top", "Your discard top", show=False),
        Binding("right,tab", "move(1)", "Next card", show=False),
        Binding("left,shift+tab", "move(-1)", "Previous card", show=False),
        Binding("down", "cursor(1)", "Next choice", show=False),
        Binding("up", "cursor(-1)", "Previous choice", show=False),
        Binding("a", "slot('a')", "Pile", key_display="a-z"),
        *[Binding(letter, f"slot('{letter}')", "Pile", show=False) for letter in LETTERS[1:]],
        Binding(NEW_KEY, "new_pile", "New"),
        Binding("p", "play_action", "Play"),
        Binding("x", "discard", "Discard"),
        Binding("e", "end_turn", "End turn"),
        Binding("enter", "do", "Do", show=False),
        Binding("i", "hint", "Hint"),
        Binding("t", "chat", "Talk"),
        Binding("exclamation_mark", "report", "Report", key_display="!", show=False),
        Binding("b", "late_block", "Block", show=False),
        Binding("l", "history", "History"),
        Binding("pageup,shift+up", "scroll_log(-1)", "Scroll the log", show=False),
        Binding("pagedown,shift+down", "scroll_log(1)", "Scroll the log", show=False),
        Binding("escape", "deselect", "Back", show=False),
        Binding("g", "results", "Results"),
        Binding("q", "leave", "Leave"),
    ]

    view: reactive[State | None] = reactive(None, always_update=True, repaint=False)
    seats: reactive[tuple[SeatPresence | None, ...]] = reactive((), repaint=False)
    problem: reactive[Problem | None] = reactive(None, repaint=False)
    waiting: reactive[str] = reactive("", repaint=False)
    """Whom the table waits for and how long ("waiting for bob — away 12 s, ..."), or ""."""

    def __init__(
        self, table: str, names: tuple[str, ...], me: Seat | None, *,
        block_window: float = 3.0, frozen: bool = False,
    ) -> None:
        super().__init__()
        self.table = table
        self.names = names
        self.me = me
        self.block_window = block_window
        self.frozen = frozen
        """No timers (deterministic screenshots): no countdown, no automatic pass."""
        self.slot_map = SlotMap()
        self.slots: tuple[Slot, ...] = ()
        self.legal: list[Action] = []
        self.turn: Turn | None = None
        self.selected: Pick | None = None
        self.cursor = 0
        self.hint: Action | None = None
        self._prompted: int | None = None
        """The pile whose Block window we answered (or are answering)."""
        self._prompt: BlockPrompt | None = None
        self._auto_pass: Timer | None = None
        self._bot = GreedyBot(b"hint")  # a fixed seed: the same position, the same hint
        self._ready = False
        """Composed and mounted: the watchers may reach the widgets."""
        self._keys: tuple[bool, bool, bool] | None = None
        self.answer = ""
        """Why the last key did nothing (shown in the play bar until the next key)."""
        self._window_closed: tuple[float, PileId] | None = None
        """When (monotonic) and for which pile the last Block window closed."""
        self._discard_asked: int | None = None
        """The card whose discard we asked about once (the misclick guard)."""

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="table-status")
        yield Banner(id="table-banner")
        with Horizontal(id="table-body"):
            with Vertical(id="table-main"):
                opponents = Opponents(id="table-opponents")
                opponents.border_title = "Opponents"
                yield opponents
                piles = Piles(id="table-piles")
                piles.border_title = "Piles"
                piles.keys = self.me is not None  # from the rail no key plays a pile
                yield piles
                with Vertical(id="table-you") as you:
                    you.border_title = "You"
                    yield Hand(id="table-hand")
                    yield Static(id="table-playbar")
            with Vertical(id="table-side"):
                log = TableLog(id="table-log")
                log.border_title = "Log"
                yield log
                yield Input(placeholder="Say something (Enter sends)",
                            id="table-chat", max_length=500)
        yield Footer(compact=True, show_command_palette=False)
        yield TooSmall()

    def on_mount(self) -> None:
        try:
            opponents = self.query_one(Opponents)
            hand = self.query_one(Hand)
            chat = self.query_one("#table-chat", Input)
            you = self.query_one("#table-you")
            self.query_one(Piles)
        except NoMatches:
            # A busy loop can mount the screen before the widgets nested in its
            # containers (each container mounts its own children later): set them up
            # once they are all there.
            self.call_after_refresh(self.on_mount)
            return
        opponents.names = self.names
        opponents.me = self.me
        hand.me = self.me
        chat.can_focus = False
        if getattr(self.app, "kiosk", False):
            chat.display = False  # a kiosk (a `stacks web` visitor) only watches
        if self.me is None:  # a spectator: every seat is a player to watch, no hand
            opponents.border_title = "Players"
            you.display = False
        self._ready = True
        self._layout(self.size.width, self.size.height)
        self._render_all()
        self._block_window(self.view)

    def on_resize(self, event: events.Resize) -> None:
        if self._ready:
            self._layout(event.size.width, event.size.height)

    def _layout(self, width: int, height: int) -> None:
        fit(self, self.size)
        wide = width >= WIDE
        big = wide and height >= TALL
        self.set_class(wide, "-wide")
        self.set_class(big, "-big")
        self.query_one(Opponents).wide = wide
        self.query_one(Hand).big = big
        self.query_one(Piles).big = big
        show(self.query_one("#table-status", Static), self._status(), layout=False)

    # -- attributes down -----------------------------------------------------------------------

    def watch_view(self, view: State | None) -> None:
        if view is not None and view.window is None and self._prompted is not None \
                and (self._window_closed is None or self._window_closed[1] != self._prompted):
            self._window_closed = (time.monotonic(), self._prompted)
        if view is not None and self.me is not None:
            self.legal = legal_actions(view, self.me)
        else:
            self.legal = []
        if view is not None:
            self.slots = self.slot_map.slots(view)
            self.turn = Turn(self.table, view, self.me, self.names, self.legal, self.slots)
        else:
            self.turn = None
        if self.selected is not None and view is not None and self.me is not None:
            still = [p for p in picks(view, self.me) if p.card == self.selected.card]
            self.selected = still[0] if still and self._choices_for(still[0]) else None
        self.hint = None
        self.cursor = 0
        if self._ready:
            self._render_all()
            self._block_window(view)

    def watch_seats(self, seats: tuple[SeatPresence | None, ...]) -> None:
        for opponents in self.query(Opponents):
            opponents.seats = seats

    def watch_waiting(self, waiting: str) -> None:
        for status in self.query("#table-status"):
            if isinstance(status, Static):
                show(status, self._status(), layout=False)

    def watch_problem(self, problem: Problem | None) -> None:
        for banner in self.query(Banner):
            banner.problem = problem

    def _render_all(self) -> None:
        with contextlib.suppress(NoMatches):  # the screen is being taken down (the app is closing)
            self._render_widgets()

    def _render_widgets(self) -> None:
        view = self.view
        opponents = self.query_one(Opponents)
        with opponents.changes():
            opponents.seats = self.seats
            opponents.view = view
        piles = self.query_one(Piles)
        piles.view = view
        piles.slots = self.slots
        piles.targets = self._targets()
        hand = self.query_one(Hand)
        with hand.changes():
            hand.view = view
            hand.playable = frozenset(
                a.card for a in self.legal
                if isinstance(a, PlayCard | PlaySkip | PlayReverse | StealCard | StealChip)
            )
            hand.selected = self.selected
        self.query_one(Banner).problem = self.problem
        show(self.query_one("#table-status", Static), self._status(), layout=False)
        show(self.query_one("#table-playbar", Static), self._playbar(), layout=False)
        keys = (self._my_turn(), any(isinstance(a, EndTurn) for a in self.legal),
                view is not None and view.outcome is not None)
        if keys != self._keys:  # the footer is rebuilt only when its keys change
            self._keys = keys
            self.refresh_bindings()

    # -- the turn, in keys and words (tui.turn) -------------------------------------------

    def _my_turn(self) -> bool:
        return self.turn is not None and self.turn.my_turn()

    def _choices_for(self, pick: Pick) -> list[Choice]:
        return self.turn.choices(pick) if self.turn is not None else []

    def _targets(self) -> frozenset[str]:
        return self.turn.targets(self.selected) if self.turn is not None else frozenset()

    def _playbar(self) -> str:
        if self.turn is None:
            return "[dim]Waiting for the host…[/]"
        if self.answer:
            return f"[b reverse] ! [/] {self.answer}"
        return self.turn.playbar(self.selected, self.cursor, self.hint)

    def tell(self, markup: str) -> None:
        """Answer a key that can't act now: the reason, in the play bar, until the next key."""
        self.answer = markup
        if self.me is None:
            # A spectator has no hand, and no play bar under it: the answer is a notice
            # (the last one only, however many keys were pressed).
            self.app.clear_notifications()
            self.notify(markup, timeout=4)
            return
        with contextlib.suppress(NoMatches):
            self.query_one("#table-playbar", Static).update(self._playbar(), layout=False)

    def on_key(self, event: events.Key) -> None:
        """A key runs before its binding: clear the last answer, and answer the keys whose
        binding can't act now (the footer hides them) instead of letting them do nothing."""
        if self.query_one("#table-chat", Input).has_focus:
            return
        if event.key not in ("x", "enter"):
            self._discard_asked = None
        if self.answer:
            self.answer = ""
            self._repaint_choice()
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            name, params = parse_action(binding.action)[1:]
            if not self.check_action(name, params):
                self.tell(why_not(self.turn, name, self.legal))
                event.stop()
                return

    def _status(self) -> str:
        if self.turn is None:
            return f"[b]{escape(self.table)}[/] · waiting for the deal"
        width = self.size.width - 2  # the line's padding
        turn = self.turn
        if self.waiting:
            # Whom the table waits for is said whole: the table's name and the turn's
            # number go first, then it is cut at a word's end.
            wait = f"[b]{escape(self.waiting)}[/]"
            return fit_line([f"{turn.status(with_order=False)} · {wait}",
                             f"[b]{escape(self.table)}[/] · {turn.now()} · {wait}",
                             f"{turn.now()} · {wait}"], width)
        # The one-line status would end in "…": the play order goes first (the opponents'
        # list shows it too), never what is happening now.
        return fit_line([turn.status(), turn.status(with_order=False)], width)

    # -- actions (keys) ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        mine = self._my_turn()
        if action in ("pick", "pick_top", "move", "slot", "hint"):
            return mine
        if action in ("cursor", "new_pile", "play_action", "discard", "do"):
            return mine  # what the picked card can do is in the play bar
        if action == "end_turn":
            return any(isinstance(a, EndTurn) for a in self.legal)
        if action == "results":
            return self.view is not None and self.view.outcome is not None
        return True

    def _repaint_choice(self) -> None:
        # The keys in the footer stay as they are for the whole turn, and the play bar
        # keeps its height: a pick repaints three widgets and lays nothing out again.
        self.query_one(Hand).selected = self.selected
        self.query_one(Piles).targets = self._targets()
        self.query_one("#table-playbar", Static).update(self._playbar(), layout=False)

    def action_pick(self, index: int) -> None:
        view, me = self.view, self.me
        if view is None or me is None or not self._my_turn():
            return
        options = picks(view, me)
        found = [p for p in options if p.index == index]
        if not found:
            held = len(view.hands[me])
            if index < 0:
                self.tell("Your discard pile is empty: [b]0[/] has nothing to pick.")
            else:
                self.tell(f"You hold {held} card{'s' if held != 1 else ''}: "
                          + (f"[b]1-{min(held, 9)}[/] pick one." if held else "nothing to pick."))
            return
        self.selected = found[0] if self.selected != found[0] else None
        self.cursor = 0
        self.hint = None
        self._repaint_choice()

    def action_pick_top(self) -> None:
        self.action_pick(-1)

    def action_move(self, step: int) -> None:
        view, me = self.view, self.me
        if view is None or me is None or not self._my_turn():
            return
        options = picks(view, me)
        if not options:
            return
        at = options.index(self.selected) if self.selected in options else -1 if step > 0 else 0
        self.selected = options[(at + step) % len(options)]
        self.cursor = 0
        self.hint = None
        self._repaint_choice()

    def action_cursor(self, step: int) -> None:
        if self.selected is None:
            self.tell("Pick a card first ([b]1-9[/]): ↑↓ then choose what to do with it.")
            return
        count = len(self._choices_for(self.selected))
        if count:
            self.cursor = (self.cursor + step) % count
            self._repaint_choice()

    def action_deselect(self) -> None:
        if self._chat_open():
            self._close_chat()
            return
        if self.selected is None and self.hint is None and self._esc_leaves():
            self.action_leave()
            return
        self.selected = None
        self.hint = None
        self._repaint_choice()

    def action_slot(self, letter: str) -> None:
        slot = next((s for s in self.slots if s.pile is not None and s.letter == letter), None)
        if slot is None:
            named = sorted(s.letter for s in self.slots if s.pile is not None)
            self.tell(f"No pile [b]{letter}[/] is open"
                      + (f" (open: {', '.join(named)})." if named else "."))
            return
        self._to_slot(slot)

    def _to_slot(self, slot: Slot) -> None:
        if not self._my_turn():
            self.tell(why_not(self.turn, "slot", self.legal))
            return
        if self.selected is None:
            self.tell(f"Pick a card first ([b]1-9[/]), then [b]{slot.key}[/] puts it there.")
            return
        choices = self._choices_for(self.selected)
        for choice in choices:
            if slot.pile is not None and choice.key == slot.letter:
                self._run(choice)
                return
        if slot.pile is None:
            new = [c for c in choices if c.key == NEW_KEY]
            face = FACES[self.selected.card]
            if new and face.colour == slot.colour:
                self._run(new[0])
                return
        self._explain(slot.pile.id if slot.pile is not None else NEW_PILE)

    def on_slot_view_clicked(self, message: SlotView.Clicked) -> None:
        self._to_slot(message.slot)

    def _explain(self, pile: PileId) -> None:
        """Say why the selected card can't go there, in the engine's words."""
        assert self.selected is not None and self.me is not None and self.view is not None
        try:
            validate(self.view, PlayCard(self.me, self.selected.card, pile))
        except IllegalActionError as exc:
            self.tell(escape(sentence(str(exc))))
        else:
            self.tell("That can't be done now.")

    def _by_key(self, key: str) -> bool:
        if self.selected is None:
            self.tell("Pick a card first ([b]1-9[/], [b]0[/] your discard top), "
                      f"then [b]{key}[/].")
            return True
        for choice in self._choices_for(self.selected):
            if choice.key == key:
                self._run(choice)
                return True
        return False

    def action_new_pile(self) -> None:
        if not self._by_key(NEW_KEY):
            self._explain(NEW_PILE)

    def action_play_action(self) -> None:
        if not self._by_key("p"):
            assert self.selected is not None
            face = FACES[self.selected.card]
            name = escape(words.card_code(self.selected.card))
            if not face.kind.is_action:
                self.tell(f"{name} is not an action card: its pile's letter plays it, "
                          "[b]n[/] starts a pile, [b]x[/] discards it.")
            elif face.kind is Kind.BLOCK:
                self.tell("A Block is played only when an opponent completes a pile.")
            else:
                self.tell(f"{name} can't be played now.")

    def action_discard(self) -> None:
        if not self._by_key("x"):
            assert self.selected is not None
            if self.selected.from_discard:
                self.tell("That card is already your discard top: discard a card from "
                          "your hand ([b]1-9[/], then [b]x[/]).")
            else:
                self.tell("You can't discard now.")

    def action_late_block(self) -> None:
        view = self.view
        if view is not None and view.phase == Phase.BLOCK_WINDOW:
            self.tell("You can't Block this pile: you hold no Block card, or you completed it.")
            return
        closed = self._window_closed
        if closed is not None:
            ago = time.monotonic() - closed[0]
            self.tell(f"Too late: the Block window closed {ago:.1f} s ago.")
            return
        self.tell("[b]b[/] Blocks only while a Block window is open (after a pile completes).")

    def action_end_turn(self) -> None:
        for action in self.legal:
            if isinstance(action, EndTurn):
                self._send(action)
                return

    def action_do(self) -> None:
        if self.hint is not None:
            self._send(self.hint)
            return
        if self.selected is None:
            self.tell("Pick a card first ([b]1-9[/]); Enter does the highlighted choice.")
            return
        choices = self._choices_for(self.selected)
        if choices:
            self._run(choices[min(self.cursor, len(choices) - 1)])

    def action_hint(self) -> None:
        view, me = self.view, self.me
        if view is None or me is None or not self.legal or not self._my_turn():
            return
        hint = self._bot.choose(view, me, list(self.legal))
        self.hint = hint
        card = getattr(hint, "card", None)
        self.selected = next((p for p in picks(view, me) if p.card == card), None)
        self.cursor = 0
        self._repaint_choice()

    # -- doing things --------------------------------------------------------------------------

    def _run(self, choice: Choice) -> None:
        if isinstance(choice.action, Discard) and self._misclick(choice.action):
            return
        if choice.action is not None:
            self._send(choice.action)
        elif choice.kind is Kind.STEAL_CARD:
            self._ask_steal(StealCard)
        elif choice.kind is Kind.STEAL_CHIP:
            self._ask_steal(StealChip)

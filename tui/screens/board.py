"""The table of a classic Sequence game: the board, the teams, your hand, the log and chat.

The same structure as the Sequence Stacks table (:mod:`tui.screens.table`): a status line,
the game, your hand with a play bar, the log and chat, and every key answers (a key that
can't act now says why in the play bar). The screen renders the player's view, set as
``view`` by the app, and sends only actions from the engine's ``legal_actions`` of that
view; when a key can't act, the engine's own words say why.

Keys: a card's number picks it and highlights the cells it may take; the arrows move the
board's cursor, Tab jumps to the next cell the card may take; Enter (or space) plays the
card on the cursor's cell; ``d`` turns in a dead card, ``x`` discards when nothing can be
played; ``i`` suggests a move. At a table whose players choose their sequences
(``choose_sequences``), a chip that could complete different fives asks which: the
choices are numbered, a number or Tab shows one on the board, Enter takes the one shown
(first the rules' own choice), Esc goes back.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual import events
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.markup import escape
from textual.reactive import reactive
from textual.widgets import Footer, Input, Static

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import SIZE, WINDOWS, Cell, cell_name
from engine.classic.cards import FACES, JackKind
from engine.classic.rules import default_claim, legal_actions, validate
from engine.classic.state import Phase, SequenceState
from engine.errors import IllegalActionError
from engine.games import SEQUENCE, TableBot
from engine.state import Seat
from tui import classic_words as cw
from tui.messages import Act, Problem
from tui.model import SeatPresence
from tui.plural import counted
from tui.screens.board_lines import BoardLines
from tui.screens.seated import SeatedScreen, sentence
from tui.widgets.banner import Banner
from tui.widgets.board import LEGEND, BoardView
from tui.widgets.log import TableLog
from tui.widgets.steady import show
from tui.widgets.toosmall import TooSmall, fit

WIDE = 110
"""From this many columns the chat line is always open under the log."""
TALL = 36
"""From this many lines (and WIDE columns) the board's cells are two lines tall."""
START = 4 * SIZE + 4
"""Where the cursor starts: E5, near the middle."""


class BoardScreen(BoardLines, SeatedScreen):
    """A classic Sequence game in progress, from one seat (or the rail, for a spectator)."""

    CSS_PATH = "board.tcss"
    AUTO_FOCUS = ""
    CHAT = "#board-chat"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "pick(0)", "Card", key_display="1-9"),
        *[Binding(str(n), f"pick({n - 1})", "Card", show=False) for n in range(2, 10)],
        Binding("up", "move(0,-1)", "Move", key_display="↑↓←→"),
        Binding("down", "move(0,1)", "Move", show=False),
        Binding("left", "move(-1,0)", "Move", show=False),
        Binding("right", "move(1,0)", "Move", show=False),
        Binding("tab", "jump(1)", "Next space", key_display="Tab", show=False),
        Binding("shift+tab", "jump(-1)", "Previous space", show=False),
        Binding("enter,space", "play", "Play", key_display="⏎"),
        Binding("d", "dead", "Dead card"),
        Binding("x", "discard", "Discard"),
        Binding("i", "hint", "Hint"),
        Binding("t", "chat", "Talk"),
        Binding("exclamation_mark", "report", "Report", key_display="!", show=False),
        Binding("l", "history", "History"),
        Binding("pageup,shift+up", "scroll_log(-1)", "Scroll the log", show=False),
        Binding("pagedown,shift+down", "scroll_log(1)", "Scroll the log", show=False),
        Binding("escape", "deselect", "Back", show=False),
        Binding("g", "results", "Results"),
        Binding("q", "leave", "Leave"),
    ]

    view: reactive[SequenceState | None] = reactive(None, always_update=True, repaint=False)
    seats: reactive[tuple[SeatPresence | None, ...]] = reactive((), repaint=False)
    problem: reactive[Problem | None] = reactive(None, repaint=False)
    waiting: reactive[str] = reactive("", repaint=False)
    """Whom the table waits for and how long, or ""."""

    def __init__(self, table: str, names: tuple[str, ...], me: Seat | None, *,
                 frozen: bool = False) -> None:
        super().__init__()
        self.table = table
        self.names = names
        self.me = me
        self.frozen = frozen
        self.legal: list[SequenceAction] = []
        self.selected: int | None = None
        """The card picked (its id), if any."""
        self.cursor: Cell = START
        self.last: Cell | None = None
        self.answer = ""
        """Why the last key did nothing (in the play bar until the next key)."""
        self.choices: list[PlaceChip] = []
        """While the player chooses which five make the sequence: the placements, one for
        each choice the engine allows (``claim``); empty otherwise."""
        self.choice = 0
        """The choice shown on the board."""
        self._bot: TableBot = SEQUENCE.make_bot("medium", b"hint")
        self._ready = False
        self._keys: tuple[bool, bool] | None = None

    # -- layout --------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="board-status")
        yield Banner(id="board-banner")
        with Horizontal(id="board-body"):
            with Vertical(id="board-main"):
                board = BoardView(id="board-board")
                yield board
                yield Static(LEGEND, id="board-legend")
                with Vertical(id="board-you") as you:
                    you.border_title = "You"
                    yield Static(id="board-hand")
                    yield Static(id="board-playbar")
                    yield Static(id="board-last")
            with Vertical(id="board-side"):
                teams = Static(id="board-teams")
                teams.border_title = "Teams"
                yield teams
                log = TableLog(id="board-log")
                log.border_title = "Log"
                yield log
                yield Input(placeholder="Say something (Enter sends)", id="board-chat",
                            max_length=500)
        yield Footer(compact=True, show_command_palette=False)
        yield TooSmall()

    def on_mount(self) -> None:
        try:
            chat = self.query_one("#board-chat", Input)
            you = self.query_one("#board-you")
            self.query_one(BoardView)
        except NoMatches:
            # A busy loop can mount the screen before the widgets nested in its
            # containers: set them up once they are all there (as the table screen does).
            self.call_after_refresh(self.on_mount)
            return
        chat.can_focus = False
        if getattr(self.app, "kiosk", False):
            chat.display = False  # a kiosk (a `stacks web` visitor) only watches
        if self.me is None:
            you.border_title = "Watching"
        self._ready = True
        self._layout()
        self._render_all()

    def on_resize(self, event: events.Resize) -> None:
        if self._ready:
            self._layout()

    def _layout(self) -> None:
        fit(self, self.size)
        wide = self.size.width >= WIDE
        big = wide and self.size.height >= TALL
        self.set_class(wide, "-wide")
        self.set_class(big, "-big")
        self.query_one(BoardView).big = big
        show(self.query_one("#board-status", Static), self._status(self.size.width - 2),
             layout=False)

    # -- attributes down -----------------------------------------------------------------------

    def watch_view(self, old: SequenceState | None, view: SequenceState | None) -> None:
        if view is not None and old is not None and old is not view:
            changed = [c for c in range(len(view.chips)) if view.chips[c] != old.chips[c]]
            if changed:
                self.last = changed[0]
        me = self.me
        if view is not None and me is not None and view.current == me:
            self.legal = legal_actions(view, me)
        else:
            self.legal = []
        if self.selected is not None and (view is None or me is None
                                          or self.selected not in view.hands[me]):
            self.selected = None
        if self.choices and any(c not in self.legal for c in self.choices):
            self.choices = []
        if self._ready:
            self._render_all()

    def watch_seats(self) -> None:
        if self._ready:
            self._render_all()

    def watch_waiting(self) -> None:
        for status in self.query("#board-status").results(Static):
            show(status, self._status(self.size.width - 2), layout=False)

    def watch_problem(self, problem: Problem | None) -> None:
        for banner in self.query(Banner):
            banner.problem = problem

    def say(self, markup: str) -> None:
        super().say(markup)
        if "──" not in markup and not markup.startswith("You drew"):
            # The latest move, under the play bar too (the log column is narrow).
            for last in self.query("#board-last").results(Static):
                show(last, f"[dim]Last:[/] {markup}")

    # -- drawing -------------------------------------------------------------------------------

    def _render_all(self) -> None:
        with contextlib.suppress(NoMatches):  # the screen is being taken down
            self._render_widgets()

    def _render_widgets(self) -> None:
        board = self.query_one(BoardView)
        with board.changes():  # drawn once, with all of them
            board.view = self.view
            board.last = self.last
            self._repaint()
        self.query_one(Banner).problem = self.problem
        show(self.query_one("#board-status", Static), self._status(self.size.width - 2),
             layout=False)
        show(self.query_one("#board-teams", Static), self._teams())
        keys = (self._my_turn(), self.view is not None and self.view.outcome is not None)
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    def _repaint(self) -> None:
        """What the selection and the cursor change: the board's marks, hand, play bar."""
        board = self.query_one(BoardView)
        targets, removable = self._targets()
        with board.changes():
            board.targets = targets
            board.removable = removable
            board.cursor = self.cursor
            board.choice = frozenset(
                cell for w in self.choices[self.choice].claim for cell in WINDOWS[w]
            ) if self.choices else frozenset()
        show(self.query_one("#board-hand", Static), self._hand(), layout=False)
        show(self.query_one("#board-playbar", Static), self._playbar(), layout=False)

    def _targets(self) -> tuple[frozenset[Cell], frozenset[Cell]]:
        options = self._options()
        return (frozenset(a.cell for a in options if isinstance(a, PlaceChip)),
                frozenset(a.cell for a in options if isinstance(a, RemoveChip)))

    def tell(self, markup: str) -> None:
        """Answer a key that can't act now, in the play bar until the next key."""
        self.answer = markup
        with contextlib.suppress(NoMatches):
            self.query_one("#board-playbar", Static).update(self._playbar())

    # -- keys ------------------------------------------------------------------------------------

    def on_key(self, event: events.Key) -> None:
        """Clear the last answer; answer the keys whose binding can't act now."""
        if self.query_one("#board-chat", Input).has_focus:
            return
        if self.answer:
            self.answer = ""
            with contextlib.suppress(NoMatches):
                self.query_one("#board-playbar", Static).update(self._playbar())
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            name, params = parse_action(binding.action)[1:]
            if not self.check_action(name, params):
                self.tell(self._why_not(name))
                event.stop()
                return

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("play", "dead", "discard", "hint"):
            return self._my_turn()
        if action in ("pick", "jump"):
            return self.me is not None and self.view is not None \
                and self.view.phase == Phase.PLAY
        if action == "results":
            return self.view is not None and self.view.outcome is not None
        return True

    def _why_not(self, action: str) -> str:
        view = self.view
        if view is None or view.phase == Phase.SETUP:
            return "The cards are not dealt yet."
        if view.outcome is not None and action != "results":
            return "The game is over: [b]g[/] shows the results, [b]q[/] leaves."
        if action == "results":
            return "The game is still on: [b]g[/] shows the results at its end."
        if self.me is None:
            return "You are watching: no hand to play. Arrows move the cursor."
        who = escape(self._seat_name(view.current))
        return f"It's {who}'s turn, not yours: wait for it (the log shows each move)."

    def action_pick(self, index: int) -> None:
        view, me = self.view, self.me
        assert view is not None and me is not None
        if self.choices:
            if index >= len(self.choices):
                self.tell(f"There are {len(self.choices)} choices: [b]1-{len(self.choices)}[/]"
                          " shows one, [b]Esc[/] goes back.")
                return
            self.choice = index
            self._repaint()
            return
        hand = view.hands[me]
        if index >= len(hand):
            self.tell(f"You hold {counted(len(hand), 'card')}: {self._keys_words()} "
                      + ("picks it." if len(hand) == 1 else "pick one."))
            return
        card = hand[index]
        self.selected = None if self.selected == card else card
        targets, removable = self._targets()
        spots = sorted(targets | removable)
        if spots and self.cursor not in spots:
            self.cursor = spots[0]
        self._repaint()

    def action_move(self, dx: int, dy: int) -> None:
        self.choices = []
        row, col = divmod(self.cursor, SIZE)
        row = max(0, min(SIZE - 1, row + dy))
        col = max(0, min(SIZE - 1, col + dx))
        moved = row * SIZE + col
        if moved == self.cursor:
            edge = {(0, -1): "top", (0, 1): "bottom", (-1, 0): "left", (1, 0): "right"}
            self.tell(f"That is the {edge[(dx, dy)]} edge of the board.")
            return
        self.cursor = moved
        self._repaint()

    def on_click(self, event: events.Click) -> None:
        """A click on a card of the hand picks it, like its number key."""
        hand = self.query_one("#board-hand", Static)
        if event.widget is not hand:
            return
        offset = event.get_content_offset(hand)
        if offset is None or offset.y != 0:
            return
        index = self.card_at(offset.x)
        if index is not None and self.check_action("pick", (index,)):
            self.action_pick(index)

    def on_board_view_clicked(self, message: BoardView.Clicked) -> None:
        """A click on a cell: the cursor goes there."""
        self.choices = []
        self.cursor = message.cell
        self._repaint()

    def action_jump(self, step: int) -> None:
        if self.choices:
            self.choice = (self.choice + step) % len(self.choices)
            self._repaint()
            return
        if self.selected is None:
            self.tell(f"Pick a card first ({self._keys_words()}); [b]Tab[/] then goes "
                      "through the cells it may take.")
            return
        targets, removable = self._targets()
        spots = sorted(targets | removable)
        if not spots:
            self.tell(f"{cw.card(self.selected)} has no cell to go to now.")
            return
        if self.cursor in spots:
            at = spots.index(self.cursor)
            self.cursor = spots[(at + step) % len(spots)]
        else:
            later = [c for c in spots if (c > self.cursor) == (step > 0) and c != self.cursor]
            if step > 0:
                self.cursor = later[0] if later else spots[0]
            else:
                self.cursor = later[-1] if later else spots[-1]
        self._repaint()

    def action_play(self) -> None:
        view, me = self.view, self.me
        assert view is not None and me is not None
        if self.choices:
            self._send(self.choices[self.choice])
            return
        cell = self.cursor
        at_cell = [a for a in self.legal
                   if isinstance(a, PlaceChip | RemoveChip) and a.cell == cell]
        if self.selected is None:
            if not at_cell:
                if self._stuck():
                    self.tell("Nothing you hold can be played: pick a card "
                              f"({self._keys_words()}), [b]x[/] discards it.")
                    return
                self.tell(f"No card of yours fits {cell_name(cell)}: pick a card "
                          f"({self._keys_words()}) to see where it goes.")
                return
            # The card that fits: a plain card before a jack (jacks are worth keeping).
            at_cell.sort(key=lambda a: (FACES[a.card].jack is not JackKind.NONE,
                                        FACES[a.card].jack))
            self._place([a for a in at_cell if a.card == at_cell[0].card])
            return
        mine = [a for a in at_cell if a.card == self.selected]
        if mine:
            self._place(mine)
            return
        card = self.selected
        jack = FACES[card].jack
        action: SequenceAction = (RemoveChip(me, card, cell) if jack is JackKind.ONE_EYED
                                  else PlaceChip(me, card, cell))
        self._explain(action)

    def _place(self, actions: list[PlaceChip | RemoveChip]) -> None:
        """Play one card on one cell: at once, or, when the player may choose between
        different sequences the chip completes, after asking which."""
        claims = [a for a in actions if isinstance(a, PlaceChip) and a.claim]
        if len(claims) < 2:
            self._send(actions[0])
            return
        view = self.view
        assert view is not None
        first = claims[0]
        usual = default_claim(view, first.cell, view.team_of(first.seat))
        self.choices = claims
        self.choice = next((i for i, a in enumerate(claims) if a.claim == usual), 0)
        self._repaint()

    def _explain(self, action: SequenceAction) -> None:
        """Say why ``action`` can't be done, in the engine's words."""
        assert self.view is not None
        try:
            validate(self.view, action)
        except IllegalActionError as exc:
            self.tell(escape(sentence(str(exc))))
        else:
            self.tell("That can't be done now.")

    def action_dead(self) -> None:
        view, me = self.view, self.me
        assert view is not None and me is not None
        if self.selected is None:
            dead = [c for c in view.hands[me]
                    if FACES[c].jack is JackKind.NONE and view.is_dead(FACES[c].code)]
            if dead:
                self.tell(f"Pick the dead card first ({', '.join(cw.card(c) for c in dead)}), "
                          "then [b]d[/].")
            else:
                self.tell("You hold no dead card (one whose two spaces are both covered).")
            return
        for action in self.legal:
            if isinstance(action, ExchangeDeadCard) and action.card == self.selected:
                self._send(action)
                return
        self._explain(ExchangeDeadCard(me, self.selected))

    def action_discard(self) -> None:
        view, me = self.view, self.me
        assert view is not None and me is not None
        for action in self.legal:
            if isinstance(action, PassTurn):
                self._send(action)
                return
        if not self._stuck():
            self.tell("You can play a card (or turn in a dead one): only a player who can "
                      "play nothing discards.")
            return
        if self.selected is None:
            self.tell(f"Pick the card to discard ({self._keys_words()}), then [b]x[/].")
            return
        for action in self.legal:
            if isinstance(action, DiscardUnplayable) and action.card == self.selected:
                self._send(action)
                return
        self._explain(DiscardUnplayable(me, self.selected))

    def action_hint(self) -> None:
        view, me = self.view, self.me
        assert view is not None and me is not None
        if not self.legal:
            return
        hint = self._bot.choose(view, me, list(self.legal))
        card = getattr(hint, "card", None)
        self.selected = card
        cell = getattr(hint, "cell", None)
        if isinstance(cell, int):
            self.cursor = cell
        self._repaint()
        if isinstance(hint, ExchangeDeadCard):
            self.tell(f"Hint: {cw.card(hint.card)} is dead: [b]d[/] turns it in.")
        elif isinstance(hint, DiscardUnplayable | PassTurn):
            self.tell("Hint: nothing can be played: [b]x[/] discards the card picked.")
        elif isinstance(cell, int):
            self.tell(f"Hint: {cw.card(card) if card is not None else ''} on "
                      f"{cell_name(cell)}: [b]⏎[/] plays it.")

    def action_deselect(self) -> None:
        if self._chat_open():
            self._close_chat()
            return
        if self.choices:
            self.choices = []
            self._repaint()
            return
        if self.selected is None and self._esc_leaves():
            self.action_leave()
            return
        if self.selected is None:
            self.tell("Nothing picked. [b]q[/] leaves the table.")
            return
        self.selected = None
        self._repaint()

    def _send(self, action: SequenceAction) -> None:
        self.selected = None
        self.choices = []
        self.post_message(Act(action))

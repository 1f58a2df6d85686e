"""A game replayed: step through it event by event or turn by turn, from any seat.

The piles are drawn by the table's own widget; each seat gets a line with its hand (every
hand when the whole game is known, else the counts); the history runs below, up to the
moment shown, its last line the event just replayed.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.markup import escape
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from engine.cards import HIDDEN, Colour
from engine.classic.events import ChipPlaced, ChipRemoved
from engine.classic.state import Phase as ClassicPhase
from engine.classic.state import SequenceState
from engine.state import Phase, Seat, State
from tui import classic_words, words
from tui.replay import Replay
from tui.screens.choice import Answer, ChoiceScreen
from tui.widgets.board import BoardView
from tui.widgets.piles import Piles, SlotMap
from tui.widgets.toosmall import TooSmall, fit

LOG_LINES = 200
"""The history shows at most this many lines before the moment (the rest is a key away)."""


class ReplayLog(Widget):
    """The history up to the moment shown: as many of the latest lines as fit (wrapped),
    the newest at the bottom."""

    lines: reactive[tuple[str, ...]] = reactive((), layout=False)

    def render(self) -> str:
        width = max(1, self.content_region.width)
        room = self.content_region.height
        shown: list[str] = []
        for line in reversed(self.lines):
            rows = max(1, -(-Content.from_markup(line).cell_length // width))
            if room - rows < 0:
                break
            room -= rows
            shown.append(line)
        return "\n".join(reversed(shown))


class ReplayScreen(Screen[None]):
    """Keys: → / ← one event, ] / [ one turn (also PgDn / PgUp), Home / End, v the view."""

    CSS_PATH = "replay.tcss"
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,full_stop", "step(1)", "Event", key_display="→"),
        Binding("left,comma", "step(-1)", "Back", key_display="←"),
        Binding("right_square_bracket,pagedown", "turn(1)", "Turn", key_display="]"),
        Binding("left_square_bracket,pageup", "turn(-1)", "Turn back", key_display="["),
        Binding("home", "edge(0)", "First", key_display="Home"),
        Binding("end", "edge(1)", "Last", key_display="End"),
        Binding("v", "view", "View"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, replay: Replay, *, seat: Seat | None = None, at: int = 0) -> None:
        super().__init__()
        self.replay = replay
        self.seat = seat if seat is not None or replay.every_hand else replay.audience
        self.at = max(0, min(at, replay.last))
        self._slot_map = SlotMap()
        self._story = replay.story(self.seat)

    @property
    def classic(self) -> bool:
        """A classic Sequence game: the board instead of the piles."""
        return self.replay.game != "stacks"

    def compose(self) -> ComposeResult:
        if self.classic:
            yield from self._compose_board()
            return
        yield Static(id="replay-status")
        seats = Static(id="replay-seats")
        seats.border_title = "Seats"
        yield seats
        piles = Piles(id="replay-piles")
        piles.border_title = "Piles"
        piles.keys = False  # a replay's keys step through it; none plays a pile
        yield piles
        log = ReplayLog(id="replay-log")
        log.border_title = "History"
        yield log
        yield Footer(compact=True, show_command_palette=False)
        yield TooSmall()

    def _compose_board(self) -> ComposeResult:
        yield Static(id="replay-status")
        with Horizontal(id="replay-body"):
            board = BoardView(id="replay-board")
            board.border_title = "Board"
            yield board
            with Vertical(id="replay-side"):
                seats = Static(id="replay-seats")
                seats.border_title = "Teams"
                yield seats
                log = ReplayLog(id="replay-log")
                log.border_title = "History"
                yield log
        yield Footer(compact=True, show_command_palette=False)
        yield TooSmall()

    def on_mount(self) -> None:
        self.set_class(self.classic, "-classic")
        fit(self, self.size)
        self._show()

    def on_resize(self, event: events.Resize) -> None:
        fit(self, event.size)
        big = event.size.width >= 110 and event.size.height >= 40
        if self.classic:
            self.query_one(BoardView).big = event.size.width >= 110 and event.size.height >= 30
        else:
            self.query_one(Piles).big = big
        self._show()

    # -- keys --------------------------------------------------------------------------------

    def action_step(self, step: int) -> None:
        self._go(self.at + step)

    def action_turn(self, step: int) -> None:
        replay = self.replay
        self._go(replay.next_turn(self.at) if step > 0 else replay.previous_turn(self.at))

    def action_edge(self, end: int) -> None:
        self._go(self.replay.last if end else 0)

    def action_view(self) -> None:
        replay = self.replay
        if not replay.every_hand:
            self.notify("Only your own view of this game is known: every hand shows once "
                        "the host has revealed its secret (at the end).", timeout=4)
            return
        order: list[Seat | None] = [None, *range(replay.moments[0].state.players)]
        self.seat = order[(order.index(self.seat) + 1) % len(order)]
        self._story = replay.story(self.seat)
        self._show()

    def action_close(self) -> None:
        self.dismiss(None)

    def _go(self, at: int) -> None:
        at = max(0, min(at, self.replay.last))
        if at == self.at:
            edge = "the start" if at == 0 else "the end"
            self.notify(f"This is {edge} of the game.", timeout=2)
            return
        self.at = at
        self._show()

    # -- drawing -----------------------------------------------------------------------------

    def _show(self) -> None:
        replay = self.replay
        view = replay.view(self.at, self.seat)
        self.query_one("#replay-status", Static).update(self._status(view))
        if isinstance(view, SequenceState):
            self.query_one("#replay-seats", Static).update(self._teams(view))
            board = self.query_one(BoardView)
            board.view = view
            event = replay.moments[self.at].event
            board.last = event.cell if isinstance(event, ChipPlaced | ChipRemoved) else None
        else:
            self.query_one("#replay-seats", Static).update(self._seats(view))
            piles = self.query_one(Piles)
            piles.view = view
            piles.slots = self._slot_map.slots(view)
        lines, told = self._story
        shown = lines[max(0, told[self.at] - LOG_LINES):told[self.at]]
        text = [line.markup for line in shown]
        if text and replay.moments[self.at].event is not None:
            text[-1] = f"[reverse]{text[-1]}[/]"
        self.query_one(ReplayLog).lines = tuple(text) or ("[dim]Before the deal.[/]",)

    def _status(self, view: State | SequenceState) -> str:
        replay = self.replay
        moment = replay.moments[self.at]
        who = "every hand" if self.seat is None else f"{escape(self._seat_name(self.seat))}'s view"
        if isinstance(view, SequenceState) and view.outcome is not None:
            now = escape(classic_words.outcome_text(view.outcome, view, replay.names))
        elif isinstance(view, State) and view.phase == Phase.GAME_OVER \
                and view.outcome is not None:
            now = escape(words.outcome_text(view.outcome, replay.names))
        elif view.phase == Phase.SETUP:
            now = "before the deal"
        else:
            now = f"{escape(self._seat_name(view.current))}'s turn"
        return (f"[b]Replay[/] · {escape(replay.title)} · event {self.at}/{replay.last} · "
                f"turn {moment.turn} · {now} · [dim]{who}[/]")

    def _seat_name(self, seat: Seat) -> str:
        names = self.replay.names
        return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"

    def _teams(self, view: SequenceState) -> str:
        """Each team: its sequences; each seat: its hand (every card, when known)."""
        out = []
        for team in range(view.teams):
            made = view.sequence_count(team)
            out.append(f"{classic_words.team_word(team)} {made}/{view.to_win} sequences")
            for seat in view.members(team):
                marker = "[b]▶[/]" if view.current == seat and view.phase == ClassicPhase.PLAY \
                    else " "
                hand = view.hands[seat]
                if hand and HIDDEN not in hand:
                    cards = " ".join(classic_words.card(c) for c in hand)
                else:
                    cards = f"[dim]hand {len(hand)}[/]"
                name = escape(self._seat_name(seat)[:12])
                out.append(f"{marker} [b]{name}[/] {cards}")
        return "\n".join(out)

    def _seats(self, view: State) -> str:
        out = []
        for seat in range(view.players):
            marker = "[b]▶[/]" if view.current == seat and view.phase == Phase.PLAY else " "
            name = self._seat_name(seat)[:12]
            hand = view.hands[seat]
            if hand and HIDDEN not in hand:
                cards = "".join(words.card(c) for c in hand)
            else:
                cards = f"[dim]hand {len(hand)}[/]"
            top = view.discard_top(seat)
            discard = words.card(top) if top is not None else "[dim] — [/]"
            red, blue = view.chips[seat][Colour.RED], view.chips[seat][Colour.BLUE]
            skips = f" [b]skips {view.skip_tokens[seat]}[/]" if view.skip_tokens[seat] else ""
            out.append(f"{marker} [b]{escape(name):<12}[/] {words.chips(red, blue)} "
                       f"[dim]discard[/]{discard} {cards}{skips}")
        return "\n".join(out)


# -- the menu's "Replay a game" -----------------------------------------------------------


def _label(path: Path) -> str:
    """A record in the list: its game, players, winner, length and date (its header's)."""
    from tui.replay import record_info

    info = record_info(path)
    if info.problem:
        return f"[dim]{escape(info.words())}[/]"
    head, _, when = info.words().rpartition(" · ")
    return f"{escape(head)}  [dim]{escape(when)}[/]"


def pick_record(app: App[None], folder: Path | None = None) -> None:
    """Ask which recent record to replay (or say where records would be)."""
    from netplay.journal import records_dir
    from tui.replay import recent_records

    folder = folder or records_dir()
    records = recent_records(folder)
    if not records:
        app.notify(f"No game records yet in {folder}. Every game you play against bots or "
                   "host writes one at its end; `stacks replay FILE` opens any other.",
                   timeout=6)
        return

    def chosen(path: Path | None) -> None:
        if path is not None:
            open_replay(app, path)

    app.push_screen(ChoiceScreen("Replay which game? (newest first)",
                                 [Answer(_label(p), p) for p in records]), chosen)


def open_replay(app: App[None], path: Path) -> None:
    from tui.replay import ReplayError, replay_file

    try:
        replay = replay_file(path)
    except ReplayError as exc:
        app.notify(f"Can't replay {path.name}: {exc}", severity="error", timeout=6)
        return
    app.push_screen(ReplayScreen(replay))


class RecordsScreen(Screen[None]):
    """``stacks replay`` with no record: the recent records to choose from (as the menu's
    "Replay a game" lists them), the chosen one replayed; closing either ends the screen."""

    def __init__(self, records: list[Path]) -> None:
        super().__init__()
        self.records = records

    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        self._ask()

    def _ask(self) -> None:
        def chosen(path: Path | None) -> None:
            if path is None:
                self.dismiss()
                return
            from tui.replay import ReplayError, replay_file

            try:
                replay = replay_file(path)
            except ReplayError as exc:
                self.app.notify(f"Can't replay {path.name}: {exc}", severity="error",
                                timeout=6)
                self._ask()
                return
            self.app.push_screen(ReplayScreen(replay), lambda _: self._ask())

        self.app.push_screen(ChoiceScreen("Replay which game? (newest first)",
                                          [Answer(_label(p), p) for p in self.records]),
                             chosen)

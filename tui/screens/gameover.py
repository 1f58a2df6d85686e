"""Game over: who won, everyone's chips, a few counts, and the fair-deal check."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual._context import NoActiveAppError
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.markup import escape
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from engine.cards import Colour
from engine.classic.state import SequenceState
from engine.results import SeatResult
from tui import classic_words, words
from tui.fit import fold_path, home_path
from tui.messages import LeaveTable, Rematch
from tui.model import TableModel


class RecordLine:
    """"Game record: PATH (stacks verify FILE)", folded to the width it is given only after
    a ``/`` of the path (the home folder written ``~``): the file name is never cut."""

    def __init__(self, path: str) -> None:
        self.path = home_path(path)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for line in fold_path("Game record: ", self.path, "(stacks verify FILE)",
                              options.max_width):
            yield Text(line, style="dim", overflow="fold")


class GameOverScreen(Screen[None]):
    """Shown over the table at the end; ``verdict`` arrives a moment later."""

    CSS_PATH = "gameover.tcss"
    AUTO_FOCUS = ""
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "rematch", "Rematch"),
        Binding("m", "menu", "Menu"),
        Binding("t", "table", "See the table"),
        Binding("v", "replay", "Replay"),
        Binding("q", "quit", "Quit"),
    ]

    verdict: reactive[tuple[bool, str] | None] = reactive(None)
    results: reactive[tuple[SeatResult, ...] | None] = reactive(None)
    """The game's end in numbers (``engine.results``), the same for every peer."""
    record: reactive[str] = reactive("")
    rated: reactive[str] = reactive("")
    """What became of the game in the ratings (stored, or kept while the database is
    down), in words."""

    def __init__(self, model: TableModel, *, hosting: bool) -> None:
        super().__init__()
        self.model = model
        self.hosting = hosting
        self.set_reactive(GameOverScreen.verdict, model.verdict)
        self.set_reactive(GameOverScreen.results, model.results)

    def compose(self) -> ComposeResult:
        with Vertical(id="over-box"):
            yield Static(self._headline(), id="over-headline")
            yield Static(self._table(), id="over-table")
            yield Static(id="over-verdict")
            yield Static(id="over-record")
            yield Static(self._keys(), id="over-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._show_verdict()

    def watch_verdict(self) -> None:
        self._show_verdict()

    def watch_results(self) -> None:
        for static in self.query("#over-table").results(Static):
            static.update(self._table())

    def watch_record(self) -> None:
        self._show_verdict()

    def watch_rated(self) -> None:
        self._show_verdict()

    def _headline(self) -> str:
        view = self.model.view
        if view is None or view.outcome is None:
            return "[b]Game over[/]"
        if isinstance(view, SequenceState):
            text = classic_words.outcome_text(view.outcome, view, self.model.names,
                                              self.model.me)
        else:
            text = words.outcome_text(view.outcome, self.model.names, self.model.me)
        return f"[b]Game over — {escape(text)}[/]  [dim]after {view.turn} turns[/]"

    def _table(self) -> Table:
        model = self.model
        view = model.view
        if isinstance(view, SequenceState):
            return self._board_table(view)
        table = Table(expand=True, show_edge=False, pad_edge=False, box=None,
                      header_style="bold")
        for column, justify in (("Player", "left"), ("Chips", "left"),
                                ("Chips won", "right"), ("Piles done", "right"),
                                ("Blocks made", "right"),
                                ("Steals", "right"), ("Cards played", "right")):
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        if view is None:
            return table
        winner = view.outcome.winner if view.outcome else None
        results = self.results
        for seat in range(view.players):
            name = "You" if seat == model.me else model.name(seat)
            if seat == winner:
                name = f"★ {name}"
            red, blue = view.chips[seat][Colour.RED], view.chips[seat][Colour.BLUE]
            chips = Text.from_markup(words.chips(red, blue))
            if results is not None and seat < len(results):
                mine = results[seat]
                counts = [str(mine.chips_won), str(mine.completed), str(mine.blocked),
                          str(mine.steals), str(mine.cards_played)]
            else:  # batches still on their way: counted once the fair-deal check has them
                counts = ["…"] * 5
            table.add_row(Text(name, style="bold" if seat == winner else ""), chips, *counts)
        return table

    def _board_table(self, view: SequenceState) -> Table:
        """Classic Sequence: each team's players, sequences and chips on the board."""
        model = self.model
        table = Table(expand=True, show_edge=False, pad_edge=False, box=None,
                      header_style="bold")
        for column, justify in (("Team", "left"), ("Players", "left"),
                                ("Sequences", "right"), ("Chips on the board", "right")):
            table.add_column(column, justify=justify)  # type: ignore[arg-type]
        winner = view.outcome.winner if view.outcome else None
        for team in range(view.teams):
            title = classic_words.team_word(team)
            if team == winner:
                title = f"★ {title}"
            members = classic_words.team_members(view, team, model.names, model.me)
            chips = sum(1 for owner in view.chips if owner == team)
            table.add_row(Text.from_markup(title),
                          Text(members, style="bold" if team == winner else ""),
                          f"{view.sequence_count(team)} of {view.to_win}", str(chips))
        return table

    def _show_verdict(self) -> None:
        verdict = self.verdict
        if verdict is None:
            text = "[dim]Fair deal: checking — replaying the game from the host's revealed " \
                   "secret…[/]"
        elif verdict[0]:
            text = f"[b]Fair deal: ✓ verified.[/] [dim]{escape(verdict[1])}[/]"
        else:
            text = f"[b]Fair deal: ✗ NOT verified:[/] {escape(verdict[1])}"
        if self.rated:
            text += f"\n{escape(self.rated)}"
        for static in self.query("#over-verdict").results(Static):
            static.update(text)
        for static in self.query("#over-record").results(Static):
            static.display = bool(self.record)
            static.update(RecordLine(self.record) if self.record else "")

    def _kiosk(self) -> bool:
        """Whether a browser visitor watches (``stacks web``): no menu behind this screen
        (and no app at all before the screen is shown)."""
        try:
            return bool(getattr(self.app, "kiosk", False))
        except NoActiveAppError:
            return False

    def _from_table(self) -> bool:
        """Whether the command line opened this table (no menu behind it)."""
        try:
            return bool(getattr(self.app, "from_table", False))
        except NoActiveAppError:
            return False

    def _keys(self) -> str:
        if self._kiosk():  # every browser visitor of the table sees this: nobody's keys
            return "This page shows the final result, then the table's next game if one opens."
        if self.hosting:
            again = "play again"
        elif self.model.spectator or self.model.me is None:
            again = "watch the next game"
        else:
            again = "join the next game"
        # A table the command line opened has no menu to go back to: m and q both end it.
        menu = "" if self._from_table() else "[b]m[/] menu   "
        return f"[b]r[/] {again}   [b]v[/] replay it   {menu}" \
               "[b]t[/] the table   [b]q[/] quit"

    def action_rematch(self) -> None:
        self.post_message(Rematch())

    def action_menu(self) -> None:
        self.post_message(LeaveTable())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # No menu behind a table the command line opened.
        return not (action == "menu" and getattr(self.app, "from_table", False))

    def action_replay(self) -> None:
        from tui.messages import ShowReplay

        self.post_message(ShowReplay())

    def action_table(self) -> None:
        self.app.pop_screen()

    async def action_quit(self) -> None:
        await self.app.action_quit()  # the app's own: a host closes its table first

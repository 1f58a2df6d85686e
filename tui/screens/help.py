"""Help: every key of every screen, and how a turn goes."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

HOW = (
    "[b]How a turn goes[/]\n"
    "Pick a card with its number ([b]1-9[/]; [b]0[/] is the top of your discard pile) or "
    "the arrows. The line under your hand lists what that card can do, each with its key: "
    "a pile's letter (shown beside it; a pile keeps its letter until it goes out of play, "
    "and everyone at the table sees the same one), [b]n[/] for a new pile, [b]p[/] to play "
    "an action card, [b]x[/] to discard it. [b]Enter[/] does the highlighted choice "
    "([b]↑↓[/] move it). Play as many cards as you like, then discard one: that ends your "
    "turn (a card that could still go on a pile is asked about once). [b]i[/] shows what a "
    "bot would do. Cards you can play now carry a [b]•[/] (the others are dim); piles the "
    "picked card fits are marked ▶ ◀. A key that can't do anything now says why under "
    "your hand.\n\n"
    "[b]The log[/]\n"
    "[b]PgUp[/] / [b]PgDn[/] scroll it; [b]l[/] opens the whole game so far, turn by turn. "
    "A finished game can be replayed: [b]v[/] at the game-over screen, or "
    "[b]stacks replay RECORD[/].\n\n"
    "[b]Blocks[/]\n"
    "When an opponent completes a pile and you hold a Block, a prompt asks: [b]b[/] blocks, "
    "[b]p[/] passes. Without a Block in hand your client passes for you after a short "
    "pause. The log shows the race: who pressed what, how fast, and who won.\n\n"
    "[b]Mouse[/]\n"
    "Click a card to pick it and a pile to play it there; click the keys in the footer."
)

LONGER = {
    "pick": "pick a card of your hand",
    "pick_top": "pick the top of your discard pile",
    "move": "pick another card",
    "cursor": "highlight another choice",
    "slot": "play the picked card on the pile of that letter",
    "new_pile": "start a new pile with the picked card",
    "play_action": "play the picked action card",
    "discard": "discard the picked card (ends your turn)",
    "end_turn": "end your turn (only with an empty hand)",
    "do": "do the highlighted choice (or the hint)",
    "hint": "show what a bot would do",
    "chat": "say something to the table",
    "leave": "leave the table",
    "results": "the results again, once the game is over",
    "history": "the whole game so far, turn by turn",
    "scroll_log": "scroll the log",
    "late_block": "Block (in the prompt; here it says why not)",
    "step": "one event",
    "turn": "one turn",
    "page": "one page",
    "scroll": "one line",
    "view": "every hand, or one seat's view",
    "close": "back",
}


def binding_rows(bindings: list[BindingType]) -> list[tuple[str, str]]:
    """One row per thing to do, with every key that does it (``right / tab``)."""
    rows: dict[str, list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        action = binding.action.split("(")[0]
        if binding.key in ("2", "3", "4", "5", "6", "7", "8", "9"):
            continue
        if binding.action.startswith("slot(") and binding.key != "a":
            continue
        description = LONGER.get(action, binding.description or binding.action)
        if action in ("move", "cursor", "scroll_log", "step", "turn", "page", "scroll"):
            forward = binding.action.endswith("(1)")
            description = f"{description} ({'on' if forward else 'back'})"
        elif action == "edge":
            description = "to the end" if binding.action.endswith("(1)") else "to the start"
        key = binding.key_display or binding.key
        keys = rows.setdefault(description, [])
        if key not in keys:
            keys.append(key)
    return [(" / ".join(keys), description) for description, keys in rows.items()]


class HelpScreen(ModalScreen[None]):
    """Esc (or ?) closes; r shows the rules."""

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "Close"),
        Binding("r", "rules", "Rules"),
    ]

    def compose(self) -> ComposeResult:
        from tui.app import StacksApp
        from tui.screens.block import BlockPrompt
        from tui.screens.gameover import GameOverScreen
        from tui.screens.history import HistoryScreen
        from tui.screens.lobby import LobbyScreen
        from tui.screens.menu import MenuScreen
        from tui.screens.replay import ReplayScreen
        from tui.screens.table import TableScreen

        with VerticalScroll(id="help-box"):
            yield Static("[b]Keys[/]  [dim](Esc closes, r shows the rules)[/]", id="help-title")
            yield Static(HOW, id="help-how")
            for title, bindings in (
                ("At the table", TableScreen.BINDINGS),
                ("Block prompt", BlockPrompt.BINDINGS),
                ("Lobby", LobbyScreen.BINDINGS),
                ("Game over", GameOverScreen.BINDINGS),
                ("The whole game (l)", HistoryScreen.BINDINGS),
                ("Replay", ReplayScreen.BINDINGS),
                ("Main menu", MenuScreen.BINDINGS),
                ("Everywhere", StacksApp.BINDINGS),
            ):
                table = Table(title=title, title_justify="left", title_style="bold",
                              show_header=False, box=None, pad_edge=False)
                table.add_column("key", style="bold", min_width=14)
                table.add_column("what")
                for key, what in binding_rows(list(bindings)):
                    table.add_row(key, what)
                yield Static(table, classes="help-table")
        yield Footer(compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_rules(self) -> None:
        from tui.screens.rules import RulesScreen

        self.app.push_screen(RulesScreen())

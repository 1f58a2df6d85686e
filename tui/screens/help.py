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
    "a pile letter ([b]a-d[/]), [b]n[/] for a new pile, [b]p[/] to play an action card, "
    "[b]x[/] to discard it. [b]Enter[/] does the highlighted choice ([b]↑↓[/] move it). "
    "Play as many cards as you like, then discard one: that ends your turn. [b]i[/] shows "
    "what a bot would do. Cards you can play now are [u]underlined[/]; piles the picked "
    "card fits are marked ▶ ◀.\n\n"
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
    "move": "pick the next / previous card",
    "cursor": "highlight the next / previous choice",
    "slot": "play the picked card on that pile",
    "new_pile": "start a new pile with the picked card",
    "play_action": "play the picked action card",
    "discard": "discard the picked card (ends your turn)",
    "end_turn": "end your turn (only with an empty hand)",
    "do": "do the highlighted choice (or the hint)",
    "hint": "show what a bot would do",
    "chat": "say something to the table",
    "leave": "leave the table",
    "results": "the results again, once the game is over",
}


def binding_rows(bindings: list[BindingType]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for binding in Binding.make_bindings(bindings):
        action = binding.action.split("(")[0]
        description = LONGER.get(action, binding.description or binding.action)
        key = binding.key_display or binding.key
        if (description, key) in seen or binding.key in ("2", "3", "4", "5", "6", "7", "8", "9"):
            continue
        if binding.action.startswith("slot(") and binding.key != "a":
            continue
        seen.add((description, key))
        rows.append((key.replace(",", " / "), description))
    return rows


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
        from tui.screens.lobby import LobbyScreen
        from tui.screens.menu import MenuScreen
        from tui.screens.table import TableScreen

        with VerticalScroll(id="help-box"):
            yield Static("[b]Keys[/]  [dim](Esc closes, r shows the rules)[/]", id="help-title")
            yield Static(HOW, id="help-how")
            for title, bindings in (
                ("At the table", TableScreen.BINDINGS),
                ("Block prompt", BlockPrompt.BINDINGS),
                ("Lobby", LobbyScreen.BINDINGS),
                ("Game over", GameOverScreen.BINDINGS),
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

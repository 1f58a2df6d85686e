"""Help: every key of every screen, and how a turn goes."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from tui.appbase import GameApp

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

HOW_BOARD = (
    "[b]Classic Sequence: how a turn goes[/]\n"
    "Pick a card with its number: the cells it may take get a [b]+[/] (on gold), the chips "
    "a one-eyed jack may take get [b]×[/] edges. [b]Tab[/] jumps the cursor (▸ ◂) to the "
    "next of them, the arrows move it anywhere; [b]Enter[/] (or space) plays the card "
    "there. With no card picked, Enter plays the card that fits the cursor's cell (a "
    "plain card before a jack). [b]d[/] turns in a dead card (both its cells covered) for "
    "a new one, before you play; [b]x[/] discards a card when nothing at all can be "
    "played. [b]i[/] shows what a bot would do. You may pick cards while others play, to "
    "see where they go.\n\n"
    "[b]The board[/]\n"
    "Each cell is its card's code ([b]QH[/] queen of hearts, [b]TS[/] ten of spades; "
    "hearts and diamonds in red); [b]**[/] is a free corner, everyone's chip. A chip is "
    "its team's letter after the code ([b]QHB[/]: Blue, G Green, R Red) on its colour; "
    "chips of a completed sequence are in [b]\\[ ][/] and underlined. Columns A-J, rows "
    "1-10: the log names cells so (E4)."
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
    "report": "report a player or their chat to the server's moderators: !NAME why",
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


BOARD_LONGER = {
    "pick": "pick a card of your hand (again: put it back)",
    "move": "move the board's cursor",
    "jump": "the cursor to the next (previous) cell the picked card may take",
    "play": "play the picked card on the cursor's cell (or the card that fits it)",
    "dead": "turn in the picked dead card for a new one",
    "discard": "discard the picked card (only when nothing can be played)",
    "hint": "show what a bot would do",
    "chat": "say something to the table",
    "report": "report a player or their chat to the server's moderators: !NAME why",
    "history": "the whole game so far, turn by turn",
    "scroll_log": "scroll the log",
    "deselect": "put the picked card back",
    "results": "the results again, once the game is over",
    "leave": "leave the table",
}


def binding_rows(bindings: list[BindingType],
                 longer: dict[str, str] = LONGER) -> list[tuple[str, str]]:
    """One row per thing to do, with every key that does it (``right / tab``)."""
    rows: dict[str, list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        action = binding.action.split("(")[0]
        if binding.key in ("2", "3", "4", "5", "6", "7", "8", "9"):
            continue  # under the 1's "1-9"
        if longer is BOARD_LONGER:
            if action == "move" and not binding.show:
                continue  # the four arrows: one row, under the first one's ↑↓←→
            keys = rows.setdefault(longer.get(action, binding.description), [])
            key = binding.key_display or binding.key
            keys.append(key if key not in keys else binding.key)  # enter,space: "⏎ / space"
            continue
        if binding.action.startswith("slot(") and binding.key != "a":
            continue
        description = longer.get(action, binding.description or binding.action)
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
    """Esc (or ?) closes; r shows the rules. The keys of the screen it was opened over
    come first (``under``: the menu's keys over the menu, the table's at the table)."""

    CSS_PATH = "help.tcss"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark", "close", "Close"),
        Binding("r", "rules", "Rules"),
    ]

    def __init__(self, under: Screen[Any] | None = None) -> None:
        super().__init__()
        self.under = under
        """The screen the help was opened over (its keys are listed first)."""

    def sections(self) -> list[tuple[str, list[BindingType], dict[str, str]]]:
        """Every screen's keys as (title, bindings, longer words): the screen the help
        was opened over first, then the game's table, then the others in their order."""
        from tui.screens.block import BlockPrompt
        from tui.screens.board import BoardScreen
        from tui.screens.gameover import GameOverScreen
        from tui.screens.history import HistoryScreen
        from tui.screens.lobby import LobbyScreen
        from tui.screens.menu import MenuScreen
        from tui.screens.replay import ReplayScreen
        from tui.screens.table import TableScreen

        board = any(isinstance(s, BoardScreen) for s in self.app.screen_stack)
        stacks = ("At the table", TableScreen.BINDINGS, LONGER, TableScreen)
        classic = ("At the Sequence board", BoardScreen.BINDINGS, BOARD_LONGER, BoardScreen)
        every: list[tuple[str, list[BindingType], dict[str, str], type[Screen[Any]] | None]] = [
            *((classic, stacks) if board else (stacks, classic)),
            ("Block prompt", BlockPrompt.BINDINGS, LONGER, BlockPrompt),
            ("Lobby", LobbyScreen.BINDINGS, LONGER, LobbyScreen),
            ("Game over", GameOverScreen.BINDINGS, LONGER, GameOverScreen),
            ("The whole game (l)", HistoryScreen.BINDINGS, LONGER, HistoryScreen),
            ("Replay", ReplayScreen.BINDINGS, LONGER, ReplayScreen),
            ("Main menu", MenuScreen.BINDINGS, LONGER, MenuScreen),
            ("Everywhere", list(self.app.BINDINGS), LONGER, None),
        ]
        under = self.under
        here = [s for s in every if s[3] is not None and isinstance(under, s[3])]
        rest = [s for s in every if s not in here]
        return [(title, list(bindings), longer) for title, bindings, longer, _ in here + rest]

    def compose(self) -> ComposeResult:
        from tui.screens.board import BoardScreen

        board = any(isinstance(s, BoardScreen) for s in self.app.screen_stack)
        with VerticalScroll(id="help-box"):
            yield Static("[b]Keys[/]  [dim](Esc closes, r shows the rules)[/]", id="help-title")
            how = Static(HOW_BOARD if board else HOW, id="help-how")
            sections = self.sections()
            # Over the game's screen the turn's words come first; over any other screen,
            # that screen's keys (the menu's over the menu), then the turn's words.
            game = sections[0][0] in ("At the table", "At the Sequence board")
            if game:
                yield how
            for at, (title, bindings, longer) in enumerate(sections):
                if at == 1 and not game:
                    yield how
                table = Table(title=title, title_justify="left", title_style="bold",
                              show_header=False, box=None, pad_edge=False)
                table.add_column("key", style="bold", min_width=14)
                table.add_column("what")
                for key, what in binding_rows(bindings, longer):
                    table.add_row(key, what)
                yield Static(table, classes="help-table", name=title)
        yield Footer(compact=True)

    def action_close(self) -> None:
        self.dismiss(None)

    def action_rules(self) -> None:
        from tui.screens.rules import RulesScreen

        app = self.app
        game = app.game_shown() if isinstance(app, GameApp) else "stacks"
        self.app.push_screen(RulesScreen(game))

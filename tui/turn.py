"""Your turn in keys and words: what the picked card can do, the status line, the play bar.

Everything here is computed from the seat's view and its ``legal_actions``; nothing
decides a rule. The table screen asks; this module answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from textual.markup import escape

from engine.actions import (
    Action,
    Block,
    Discard,
    EndTurn,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import FACES, Kind
from engine.state import NEW_PILE, Phase, Seat, State, Zone
from tui import words
from tui.widgets.hand import Pick
from tui.widgets.piles import Slot


@dataclass(frozen=True, slots=True)
class Choice:
    """One thing to do with the selected card, on one key."""

    key: str
    label: str
    action: Action | None
    """The action; ``None`` when more must be chosen first (a steal's target)."""
    kind: Kind | None = None


def pile_slot(slots: tuple[Slot, ...], pile_id: int) -> Slot | None:
    return next((s for s in slots if s.pile is not None and s.pile.id == pile_id), None)


@dataclass(frozen=True)
class Turn:
    """One moment of the table from one seat: the view, its legal actions, the slots."""

    table: str
    view: State
    me: Seat | None
    names: tuple[str, ...]
    legal: Sequence[Action]
    slots: tuple[Slot, ...]

    def my_turn(self) -> bool:
        view = self.view
        return self.me is not None and view.phase == Phase.PLAY and view.current == self.me

    def status(self, *, with_order: bool = True) -> str:
        """The status line; without ``with_order`` (room for a waiting line) no play order."""
        view = self.view
        table = f"[b]{escape(self.table)}[/]"
        if view.phase == Phase.SETUP:
            return f"{table} · waiting for the deal"
        names = [("You" if s == self.me else self.name(s)) for s in range(view.players)]
        start = 0 if self.me is None else self.me
        order = [(start + view.direction * i) % view.players for i in range(view.players)]
        arrow = " ▸ "
        flow = arrow.join(escape(names[s]) for s in order) + " ▸"
        turn = f"turn {view.turn}"
        now = self.now()
        if not with_order:
            return f"{table} · {turn} · {now}"
        return f"{table} · {turn} · {now} · [dim]play goes[/] {flow}"

    def now(self) -> str:
        """What is happening now, the status line's heart: "Bo's turn", "YOUR TURN", a
        Block window, "game over" (markup)."""
        view = self.view
        if view.phase == Phase.SETUP:
            return "waiting for the deal"
        if view.phase == Phase.GAME_OVER:
            return "[b]game over[/]"
        if view.phase == Phase.BLOCK_WINDOW and view.window is not None:
            window = view.window
            whose = "your" if window.seat == self.me else f"{escape(self.name(window.seat))}'s"
            return f"[b]Block window[/] on {whose} {window.pile.colour.title} pile " \
                   f"{window.pile.name}"
        if view.current == self.me:
            return "[b reverse] YOUR TURN [/]"
        return f"[b]{escape(self.name(view.current))}[/]'s turn"

    def name(self, seat: Seat) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    def choices(self, pick: Pick) -> list[Choice]:
        view = self.view
        out: list[Choice] = []
        steal_seen: set[Kind] = set()
        for action in self.legal:
            if getattr(action, "card", None) != pick.card:
                continue
            if isinstance(action, PlayCard):
                face = FACES[pick.card]
                assert face.colour is not None
                if action.pile == NEW_PILE:
                    out.append(Choice("n", f"new {face.colour.title} pile", action))
                else:
                    slot = pile_slot(self.slots, action.pile)
                    if slot is not None and slot.pile is not None:
                        label = f"on {slot.colour.title} pile {slot.letter} (needs {slot.needs})"
                        out.append(Choice(slot.letter, label, action))
            elif isinstance(action, PlaySkip):
                out.append(Choice("p", "play it: the next player misses a turn", action))
            elif isinstance(action, PlayReverse):
                label = "play it: play changes direction"
                if view.players == 2:
                    label = "play it (a Skip with 2 players)"
                out.append(Choice("p", label, action))
            elif isinstance(action, StealCard | StealChip):
                kind = FACES[pick.card].kind
                if kind not in steal_seen:
                    steal_seen.add(kind)
                    label = ("play it… (whom, then hand or discard)"
                             if kind is Kind.STEAL_CARD else
                             "play it… (whom, then which colour)")
                    out.append(Choice("p", label, None, kind))
            elif isinstance(action, Discard):
                out.append(Choice("x", "discard (ends turn)", action))
        out.sort(key=lambda c: c.key == "x")
        return out

    def targets(self, selected: Pick | None) -> frozenset[str]:
        """Slots (:attr:`Slot.ident`) the picked card can go to (a new pile: the free ones)."""
        if selected is None:
            return frozenset()
        keys = {c.key for c in self.choices(selected)}
        idents = {s.ident for s in self.slots if s.pile is not None and s.letter in keys}
        if "n" in keys:
            face = FACES[selected.card]
            idents |= {s.ident for s in self.slots if s.pile is None and s.colour == face.colour}
        return frozenset(idents)

    def playbar(self, selected: Pick | None, cursor: int, hint: Action | None) -> str:
        """The line under your hand: whose move it is, or what your picked card can do."""
        view, me = self.view, self.me
        if me is None:
            return "[dim]You are watching. t to talk, q to leave.[/]"
        if view.phase == Phase.GAME_OVER:
            return "[b]The game is over:[/] [b]g[/] shows the results, [b]q[/] leaves."
        if view.phase == Phase.BLOCK_WINDOW and view.window is not None:
            window = view.window
            if window.seat == me:
                return "[b]You completed a pile![/] Waiting for the Block window to close…"
            who = escape(self.name(window.seat))
            if me in window.passed:
                return f"{who} completed a pile. You passed; waiting for the others…"
            if any(isinstance(a, Block) for a in self.legal):
                return f"{who} completed a pile: [b]b[/] Blocks it, [b]p[/] passes."
            if me in window.eligible:
                return f"{who} completed a pile. You hold no Block: passing for you…"
            return f"{who} completed a pile. Waiting for the others to Block or pass…"
        if not self.my_turn():
            if view.skip_tokens[me]:
                return f"{escape(self.name(view.current))} is playing. [b]You will miss " \
                       "your next turn[/] (skip)."
            return f"[dim]{escape(self.name(view.current))} is playing. t talks, " \
                   "i shows a hint when it is your turn.[/]"
        if hint is not None:
            return f"[b]Hint:[/] {self.describe(hint)} — [b]Enter[/] does it."
        if selected is None:
            if any(isinstance(a, EndTurn) for a in self.legal):
                return "[b]Your turn.[/] Your hand is empty: [b]e[/] ends your turn."
            if all(isinstance(a, Discard) for a in self.legal):
                return "[b]Nothing more to play:[/] pick a card ([b]1-9[/]) and discard it " \
                       "([b]x[/]) to end your turn."
            return "[b]Your turn:[/] pick a card ([b]1-9[/], [b]0[/] your discard top, " \
                   "[b]←→[/]); play as many as you like, then discard one ([b]x[/]). " \
                   "[b]i[/] hints."
        choices = self.choices(selected)
        head = words.card(selected.card)
        if not choices:
            return f"{head} [dim]can't be played or discarded now.[/]"
        parts = []
        for index, choice in enumerate(choices):
            text = f"[b]{choice.key}[/] {escape(choice.label)}"
            if index == cursor:
                text = f"[reverse]{text}[/]"
            parts.append(text)
        return f"{head} " + " · ".join(parts) + " [dim](Enter: highlighted)[/]"

    def describe(self, action: Action) -> str:
        face = words.card(getattr(action, "card", -1)) if hasattr(action, "card") else ""
        if isinstance(action, PlayCard):
            if action.pile == NEW_PILE:
                return f"start a new pile with {face}"
            slot = pile_slot(self.slots, action.pile)
            where = f"pile {slot.letter}" if slot else "its pile"
            return f"play {face} on {where}"
        if isinstance(action, Discard):
            return f"discard {face} (ends your turn)"
        if isinstance(action, EndTurn):
            return "end your turn"
        if isinstance(action, StealCard):
            where = "hand" if action.zone == Zone.HAND else "discard top"
            return f"play {face} on {escape(self.name(action.target))}'s {where}"
        if isinstance(action, StealChip):
            return f"play {face}: take a {action.colour.title} chip from " \
                   f"{escape(self.name(action.target))}"
        return f"play {face}"


def could_go_on(turn: Turn, card: int) -> str | None:
    """Where ``card`` could be played now (``"on Red pile a"``), or ``None``."""
    for action in turn.legal:
        if isinstance(action, PlayCard) and action.card == card:
            face = FACES[card]
            assert face.colour is not None
            if action.pile == NEW_PILE:
                return f"on a new {face.colour.title} pile"
            slot = pile_slot(turn.slots, action.pile)
            return f"on {face.colour.title} pile {slot.letter}" if slot else "on a pile"
    return None


def why_not(turn: Turn | None, action: str, legal: Sequence[Action]) -> str:
    """Why a table key (its action's name) can't act now, in a sentence of markup."""
    if turn is None:
        return "The game hasn't started: waiting for the deal."
    view = turn.view
    if action == "results":
        return "The results come when the game is over."
    if view.phase == Phase.GAME_OVER:
        return "The game is over: [b]g[/] shows the results, [b]l[/] the whole game."
    if turn.me is None:
        return "You are watching: only the players play. [b]t[/] talks, [b]l[/] shows " \
               "the history."
    if view.phase == Phase.BLOCK_WINDOW and view.window is not None:
        window = view.window
        whose = "your" if window.seat == turn.me else f"{escape(turn.name(window.seat))}'s"
        return f"Wait: the Block window on {whose} {window.pile.colour.title} pile " \
               f"{window.pile.name} is open."
    if not turn.my_turn():
        return f"Not your turn: [b]{escape(turn.name(view.current))}[/] is playing."
    if action == "end_turn":
        return "[b]e[/] ends your turn only once your hand is empty: discard a card " \
               "([b]x[/]) to end it."
    return "That key does nothing now."

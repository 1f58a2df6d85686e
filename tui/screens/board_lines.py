"""The classic Sequence table in words: the status line, the teams, your hand and the play
bar (what the picked card may do, what the keys do now), as :class:`BoardScreen` shows
them (``tui.screens.board``, which mixes :class:`BoardLines` in and handles the keys).
"""

from __future__ import annotations

from textual.content import Content
from textual.markup import escape

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import CORNERS, WINDOWS, Cell, cell_name
from engine.classic.cards import FACES, HIDDEN, JackKind
from engine.classic.rules import legal_actions
from engine.classic.state import EMPTY, Phase, SequenceState
from engine.state import Seat
from tui import classic_words as cw
from tui.fit import fit_line
from tui.model import SeatPresence
from tui.plural import counted


def options_for(view: SequenceState, seat: Seat, card: int) -> list[SequenceAction]:
    """What ``card`` of ``seat``'s hand can do: the engine's legal actions on ``seat``'s
    turn; on another's turn, what it could do if the turn were ``seat``'s now (a preview,
    so that a player sees where a card goes while waiting)."""
    if view.phase != Phase.PLAY or not 0 <= seat < view.players:
        return []
    if view.current == seat:
        actions = legal_actions(view, seat)
    else:
        preview = view.copy()
        preview.current = seat
        preview.exchanges = 0
        actions = legal_actions(preview, seat)
    return [a for a in actions if getattr(a, "card", None) == card]


class BoardLines:
    """The words of the board screen, from its state (``BoardScreen`` owns the attributes
    below: the reactives, the selection and the cursor)."""

    table: str
    names: tuple[str, ...]
    me: Seat | None
    view: SequenceState | None
    seats: tuple[SeatPresence | None, ...]
    waiting: str
    legal: list[SequenceAction]
    selected: int | None
    cursor: Cell
    answer: str
    choices: list[PlaceChip]
    choice: int

    def _options(self) -> list[SequenceAction]:
        view, me, card = self.view, self.me, self.selected
        if view is None or me is None or card is None:
            return []
        if view.current == me:
            return [a for a in self.legal if getattr(a, "card", None) == card]
        return options_for(view, me, card)

    def _my_turn(self) -> bool:
        view = self.view
        return (view is not None and self.me is not None and view.phase == Phase.PLAY
                and view.current == self.me)

    def _seat_name(self, seat: Seat) -> str:
        if seat == self.me:
            return "You"
        return self.names[seat] if 0 <= seat < len(self.names) else f"Seat {seat + 1}"

    def _status(self, width: int = 0) -> str:
        """The status line, fitted to ``width`` cells (see :func:`tui.fit.fit_line`):
        whom the table waits for is said whole, the table's name, the game and the turn's
        number giving way first."""
        view = self.view
        table = f"[b]{escape(self.table)}[/]"
        head = f"{table} · Sequence"
        if view is None or view.phase == Phase.SETUP:
            return f"{head} · waiting for the deal"
        if view.outcome is not None:
            # Short enough for 80 columns: the table, the turn, the outcome, the key.
            text = cw.outcome_text(view.outcome, view, self.names, self.me)
            over = f"[b]Game over: {escape(text)}[/]"
            return fit_line([f"{table} · turn {view.turn} · {over} · g: results",
                             f"{over} · g: results"], width)
        if self._my_turn():
            now = "[b reverse] Your turn [/]"
        else:
            current = view.current
            now = f"{cw.chip(view.team_of(current))} {escape(self._seat_name(current))}'s turn"
        if self.me is not None:
            team = f"you are {cw.team_word(view.team_of(self.me))}"
        else:
            team = "watching"
        full = f"{head} · turn {view.turn} · {now} · {team}"
        if not self.waiting:
            return fit_line([full, f"{table} · {now} · {team}", now], width)
        wait = f"[b]{escape(self.waiting)}[/]"
        return fit_line([f"{full} · {wait}", f"{table} · {now} · {wait}", f"{now} · {wait}"],
                        width)

    def _teams(self) -> str:
        view = self.view
        if view is None or view.phase == Phase.SETUP:
            return "[dim]Waiting for the deal…[/]"
        need = view.to_win
        lines = [f"[dim]{need} sequence{'s' if need > 1 else ''} win[/]"]
        for team in range(view.teams):
            made = view.sequence_count(team)
            stars = "★" * made + "·" * max(0, need - made)
            members = []
            for seat in view.members(team):
                name = escape(self._seat_name(seat))
                if seat == view.current and view.outcome is None:
                    name = f"[b]▶{name}[/]"
                info = self.seats[seat] if seat < len(self.seats) else None
                if info is not None and info.words not in ("online",):
                    name += f" [dim]{info.words}[/]"
                members.append(name)
            lines.append(f"{cw.team_word(team)} {stars} {made}/{need}")
            lines.append("  " + ", ".join(members))
        lines.append(f"[dim]Draw pile {len(view.draw_pile)}[/]")
        return "\n".join(lines)

    def _hand(self) -> str:
        view, me = self.view, self.me
        if view is None or view.phase == Phase.SETUP:
            return "[dim]Waiting for the deal…[/]"
        if me is None:
            return "[dim]You are watching: no hand. Arrows move the cursor over the board.[/]"
        playable = {getattr(a, "card", None) for a in self.legal}
        cards = []
        for index, card in enumerate(view.hands[me]):
            cards.append(self._card(view, index, card, card in playable))
        hand = " ".join(cards) if cards else "[dim]empty[/]"
        pile = view.discards[me]
        top = f"{cw.card(pile[-1])} [dim]({counted(len(pile), 'card')})[/]" if pile \
            else "[dim]—[/]"
        return f"{hand}\n[dim]Your discard pile[/] {top}"

    def _card(self, view: SequenceState, index: int, card: int, playable: bool) -> str:
        key = str(index + 1) if index < 9 else " "
        face = FACES[card] if card != HIDDEN else None
        note = ""
        if face is not None and face.jack is not JackKind.NONE:
            note = f"[dim]{cw.JACK_WORDS[face.jack]}[/]"
        elif face is not None and view.is_dead(face.code):
            note = "[b]dead[/]"
        mark = "[b]•[/]" if playable else " "
        chosen = card == self.selected
        label = f"[reverse b]{key}[/]" if chosen else (f"[b]{key}[/]" if playable else key)
        body = cw.card(card)
        text = f"{label}{mark}{body}" + (f" {note}" if note else "")
        if chosen:
            text = f"▸{text}◂"
        return text

    def card_at(self, column: int) -> int | None:
        """The hand position drawn at ``column`` of the hand's first line (a click)."""
        view, me = self.view, self.me
        if view is None or me is None or view.phase == Phase.SETUP:
            return None
        playable = {getattr(a, "card", None) for a in self.legal}
        start = 0
        for index, card in enumerate(view.hands[me]):
            width = Content.from_markup(self._card(view, index, card, card in playable)) \
                .cell_length
            if start <= column < start + width:
                return index
            start += width + 1
        return None

    def _cell_words(self, view: SequenceState, cell: Cell) -> str:
        code = view.board.codes[cell]
        name = cell_name(cell)
        if cell in CORNERS:
            return f"{name} is a free corner (counts for every team)"
        team = view.chips[cell]
        what = f"{name} {cw.short_code(code)}"
        if team == EMPTY:
            return f"{what}: empty"
        locked = " (in a sequence: it stays)" if view.locked[cell] else ""
        return f"{what}: {cw.team_title(team)} chip{locked}"

    def _playbar(self) -> str:
        view, me = self.view, self.me
        if view is None or view.phase == Phase.SETUP:
            return "[dim]Waiting for the host…[/]"
        cursor = f"[dim]Cursor {escape(self._cell_words(view, self.cursor))}[/]"
        if self.answer:
            return f"[b reverse] ! [/] {self.answer}\n{cursor}"
        if view.outcome is not None:
            return f"The game is over: [b]g[/] shows the results.\n{cursor}"
        if me is None:
            return f"[dim]You are watching.[/]\n{cursor}"
        if self.choices:
            return f"{self._choice_line()}\n{cursor}"
        mine = self._my_turn()
        card = self.selected
        if card is None:
            if not mine:
                first = f"Waiting for {escape(self._seat_name(view.current))}. Pick a card " \
                        f"({self._keys_words()}) to see where it goes."
            elif self._stuck():
                first = "[b]Nothing you hold can be played[/]: pick a card, [b]x[/] " \
                        "discards it."
            else:
                first = f"[b]Your turn[/]: pick a card ({self._keys_words()}), or move to a " \
                        "cell and [b]⏎[/] plays the card that fits."
            return f"{first}\n{cursor}"
        return f"{self._card_line(view, card, mine)}\n{cursor}"

    def _choice_line(self) -> str:
        """The choices of sequence, numbered, the one shown marked."""
        shown = []
        for index, action in enumerate(self.choices):
            words = " + ".join(window_words(w) for w in action.claim)
            item = f"[b]{index + 1}[/] {words}"
            shown.append(f"[reverse]▸{item}◂[/]" if index == self.choice else item)
        count = len(self.choices)
        return (f"{cell_name(self.choices[0].cell)} makes a sequence: which five? "
                f"{' '.join(shown)} ([b]1-{count}[/], [b]Tab[/]: show {{ }}; [b]⏎[/] takes "
                "it; [b]Esc[/]: back)")

    def _keys_words(self) -> str:
        """``[b]1-7[/]``: the number keys of the hand held now."""
        view, me = self.view, self.me
        count = len(view.hands[me]) if view is not None and me is not None else 0
        return f"[b]1-{min(9, count)}[/]" if count > 1 else "[b]1[/]"

    def _stuck(self) -> bool:
        return any(isinstance(a, DiscardUnplayable | PassTurn) for a in self.legal)

    def _card_line(self, view: SequenceState, card: int, mine: bool) -> str:
        face = FACES[card]
        name = f"{cw.card(card)} [dim]{escape(face.name)}[/]"
        options = self._options()
        places = sorted({a.cell for a in options if isinstance(a, PlaceChip)})
        removes = [a for a in options if isinstance(a, RemoveChip)]
        act = "[b]⏎[/]" if mine else "on your turn [b]⏎[/]"
        if any(isinstance(a, DiscardUnplayable) for a in options):
            return f"{name}: nothing can be played; [b]x[/] discards it."
        if face.jack is JackKind.TWO_EYED:
            if not places:
                return f"{name}: wild, but no space is empty."
            return f"{name}: wild, any empty space ([b]+[/]). Move there, {act} places it."
        if face.jack is JackKind.ONE_EYED:
            if not removes:
                return f"{name}: removes an opponent's chip; none can be removed now."
            return (f"{name}: removes an opponent's chip ([b]×[/]); [b]Tab[/] goes to one, "
                    f"{act} removes it.")
        if any(isinstance(a, ExchangeDeadCard) for a in options) or (
                not places and view.is_dead(face.code)):
            return f"{name} is dead (both spaces covered): [b]d[/] turns it in for another."
        spaces = " or ".join(cell_name(c) for c in places)
        return f"{name} goes on {spaces} ([b]+[/]): [b]Tab[/] goes there, {act} places it."


def window_words(window: int) -> str:
    """A window by its ends: ``A5-E5``."""
    cells = WINDOWS[window]
    return f"{cell_name(cells[0])}-{cell_name(cells[-1])}"

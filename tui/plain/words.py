"""Plain mode's words for the table as it is: your hand, the piles or the board, the
seats, the moves you may make, the commands. Each is a line (or lines) of markup, with
anything a player typed escaped; :func:`plain` takes the markup off for the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rich.errors import MarkupError
from rich.markup import escape
from rich.text import Text

from engine.actions import (
    Block,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import Colour
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
)
from engine.classic.board import CORNERS, cell_name
from engine.classic.cards import CODES as CLASSIC_CODES
from engine.classic.cards import FACES as CLASSIC_FACES
from engine.classic.cards import JackKind
from engine.classic.state import EMPTY, SequenceState, team_name
from engine.state import NEW_PILE, Phase, Seat, State, Zone
from tui import classic_words, words

LIST_CELLS = 8
"""Board spaces named in a move before "and N more"."""

Names = Callable[[Seat], str]
"""A seat's name as plain mode says it ("You" for your own)."""


def plain(markup: str) -> str:
    """The words of a line of markup: no styles, no box-drawing rules."""
    try:
        text = Text.from_markup(markup).plain
    except MarkupError:
        text = re.sub(r"\[/?[^\[\]]*\]", "", markup)
    # A card's markup pads its code with a space each side, for the colour behind it.
    return "\n".join(re.sub(r" {2,}", " ", part).strip() for part in text.splitlines())


def escaped(text: str) -> str:
    """Words as markup that says them as they are (a name may hold ``[``)."""
    return escape(text)


def either(items: Sequence[str]) -> str:
    """``a, b or c``."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def card_number(view: Any, me: Seat | None, card: int) -> int | None:
    """The number a card has in the hand as listed (0: your discard top)."""
    if view is None or me is None:
        return None
    hand = view.hands[me]
    if card in hand:
        return int(hand.index(card)) + 1
    if isinstance(view, State) and view.discard_top(me) == card:
        return 0
    return None


def hand_line(view: Any, me: Seat | None) -> str:
    """Your hand, each card with its number."""
    if me is None or view is None:
        return "You are watching: you hold no cards."
    hand = view.hands[me]
    if isinstance(view, SequenceState):
        cards = [f"{n} {_classic_card(view, c)}" for n, c in enumerate(hand, 1)]
        return "Your hand: " + (", ".join(cards) if cards else "empty") + "."
    cards = [f"{n} {words.card_code(c)}" for n, c in enumerate(hand, 1)]
    line = "Your hand: " + (", ".join(cards) if cards else "empty")
    top = view.discard_top(me)
    if top is not None:
        line += f"; 0 your discard top {words.card_code(top)}"
    return escaped(line) + "."


def _classic_card(view: SequenceState, card: int) -> str:
    text = classic_words.code(card)
    jack = CLASSIC_FACES[card].jack
    if jack is JackKind.TWO_EYED:
        return f"{text} (two-eyed jack: any empty space)"
    if jack is JackKind.ONE_EYED:
        return f"{text} (one-eyed jack: removes a chip)"
    spaces = view.board.spaces[CLASSIC_CODES[card]]
    free = [cell_name(c) for c in spaces if view.chips[c] == EMPTY]
    if not free:
        return f"{text} (dead: both spaces taken)"
    return f"{text} ({' or '.join(free)})"


def piles_line(view: State) -> str:
    """The open piles (and the one a Block window holds), and the draw pile."""
    piles = list(view.piles)
    if view.window is not None:
        piles.append(view.window.pile)
    if not piles:
        line = "No piles are open"
    else:
        line = "Piles: " + "; ".join(
            f"{p.name} {p.colour.title} " + " ".join(words.card_code(c) for c in p.cards)
            + (", complete" if view.window is not None and p is view.window.pile
               else f", needs {p.height + 1}")
            for p in sorted(piles, key=lambda p: p.name))
    return escaped(line) + f". Draw pile: {len(view.draw_pile)} cards."


def board_lines(view: SequenceState) -> list[str]:
    """Each team's chips and sequences, and the free corners."""
    lines = []
    for team in range(view.teams):
        cells = [cell_name(c) for c, owner in enumerate(view.chips) if owner == team]
        made = view.sequence_count(team)
        lines.append(f"{team_name(team)} chips ({len(cells)}): "
                     + (", ".join(cells) if cells else "none")
                     + f"; sequences {made} of {view.to_win}.")
    lines.append(f"Free corners: {', '.join(cell_name(c) for c in sorted(CORNERS))}.")
    return lines


def seat_lines(view: Any, name: Names) -> list[str]:
    """A line a seat: who, how many cards, its discard top and chips (its team)."""
    lines = []
    for seat in range(view.players):
        who = f"Seat {seat + 1}, {name(seat)}"
        hand = len(view.hands[seat])
        if isinstance(view, SequenceState):
            team = team_name(view.team_of(seat))
            line = f"{who}: {team} team, {hand} cards"
        else:
            top = view.discard_top(seat)
            red, blue = view.chips[seat]
            line = (f"{who}: {hand} cards, discard top "
                    f"{words.card_code(top) if top is not None else 'none'}, "
                    f"chips {red} red {blue} blue")
            if view.skip_tokens[seat]:
                line += ", misses the next turn"
        if view.current == seat and view.phase == Phase.PLAY:
            line += " (playing now)"
        lines.append(escaped(line) + ".")
    return lines


def move_list(view: Any, me: Seat | None, legal: Sequence[Any], name: Names) -> list[str]:
    """What may be done now, as commands (the first of each kind first)."""
    out: list[str] = []
    discards: list[int] = []
    by_card: dict[int, list[str]] = {}
    for action in legal:
        card = getattr(action, "card", None)
        n = card_number(view, me, card) if isinstance(card, int) else None
        if isinstance(action, PlayCard) and isinstance(view, State):
            pile = view.pile(action.pile)
            where = "new" if action.pile == NEW_PILE or pile is None else pile.name
            out.append(f"play {n} on {where}")
        elif isinstance(action, PlaySkip | PlayReverse):
            out.append(f"play {n} ({words.card_code(action.card)})")
        elif isinstance(action, StealCard):
            zone = "hand" if action.zone == Zone.HAND else "discard"
            out.append(f"play {n} from {name(action.target)} {zone}")
        elif isinstance(action, StealChip):
            out.append(f"play {n} from {name(action.target)} "
                       f"{Colour(action.colour).title.lower()}")
        elif isinstance(action, Discard | DiscardUnplayable) and n is not None:
            discards.append(n)
        elif isinstance(action, EndTurn):
            out.append("end")
        elif isinstance(action, Block):
            out.append("block")
        elif isinstance(action, PassBlock | PassTurn):
            out.append("pass")
        elif isinstance(action, ExchangeDeadCard):
            out.append(f"dead {n}")
        elif isinstance(action, PlaceChip | RemoveChip) and n is not None:
            if isinstance(action, PlaceChip) and action.claim:
                continue  # the engine's choice of sequences is the plain one
            by_card.setdefault(n, []).append(cell_name(action.cell))
    for n, cells in sorted(by_card.items()):
        unique = list(dict.fromkeys(cells))
        if len(unique) <= LIST_CELLS:
            out.append(f"play {n} at {either(unique)}")
        else:
            out.append(f"play {n} at {', '.join(unique[:LIST_CELLS])} and "
                       f"{len(unique) - LIST_CELLS} more")
    if discards:
        out.append("discard " + either([str(n) for n in sorted(set(discards))]))
    return list(dict.fromkeys(out))


def standings_lines(view: Any, name: Names) -> list[str]:
    """The end: each seat's chips by colour (classic Sequence: each team's sequences),
    the winner first, then the most."""
    outcome = view.outcome
    winner = outcome.winner if outcome is not None else None
    if isinstance(view, SequenceState):
        teams = sorted(range(view.teams),
                       key=lambda t: (t != winner, -view.sequence_count(t), t))
        lines = ["Sequences, the winner first:" if winner is not None else "Sequences:"]
        for team in teams:
            made = view.sequence_count(team)
            members = escaped(", ".join(name(s) for s in view.members(team)))
            tail = " (the winner)" if team == winner else ""
            lines.append(f"{team_name(team)} team ({members}): {made} of {view.to_win} "
                         f"sequences{tail}.")
        return lines

    def chips(seat: Seat) -> tuple[int, int]:
        red, blue = view.chips[seat]
        return int(red), int(blue)

    seats = sorted(range(view.players),
                   key=lambda s: (s != winner, -sum(chips(s)), -min(chips(s)), s))
    lines = ["Chips, the winner first:" if winner is not None else "Chips:"]
    for seat in seats:
        red, blue = chips(seat)
        held = f"{red} red, {blue} blue" if red or blue else "no chips"
        tail = " (the winner)" if seat == winner else ""
        lines.append(f"{escaped(name(seat))}: {held}{tail}.")
    return lines


def help_line(game: str) -> str:
    """The commands of ``game``'s table."""
    if game == "sequence":
        return ("Commands: play N at E5 (N: the card's number in your hand; a one-eyed jack "
                "removes the chip there); dead N turns in a dead card; discard N or pass when "
                "you can play nothing; hand; board; seats; moves; say TEXT; quit.")
    return ("Commands: play N on a (N: the card's number in your hand, 0 your discard top; a "
            "pile's letter, or new for a new pile); play N for an action card (a steal: play "
            "N from NAME hand, discard, red or blue); discard N ends your turn; end (with an "
            "empty hand); block or pass in a Block window; hand; piles; seats; moves; say "
            "TEXT; quit.")

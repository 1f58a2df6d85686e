"""A first game that teaches (``stacks learn``): a scripted deal against Tutor, a bot.

The deal is built with the engine's own state (no seed to search, no network): you
(seat 0) and Tutor (seat 1), a red pile at 3 and a blue pile at 3, your hand and the draw
pile laid so that the next cards teach, in order, a number card, a pile completion,
Steal a Chip, the discard that ends a turn, a Block (Tutor completes the blue pile and
you hold the Block), Steal a Card, a wild card (it starts a new pile), Skip, and Reverse
(which works as a Skip between two), and then "you're ready": every kind of card is played
once. Each :class:`Lesson` says what to do, which of your moves it takes,
and why another move is refused; Tutor's moves are fixed too (:data:`TUTOR_SCRIPT`).
``tui.screens.learn`` shows it on the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.actions import (
    Action,
    Block,
    Discard,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import FACES, CardId, Colour
from engine.config import RulesConfig
from engine.game import Game
from engine.rng import Rng
from engine.state import Phase, Pile, PileId, State, pile_name

YOU, TUTOR = 0, 1
NAMES = ("You", "Tutor")
RED_PILE: PileId = 0
BLUE_PILE: PileId = 1
RED_NAME = pile_name(RED_PILE, set())
BLUE_NAME = pile_name(BLUE_PILE, {RED_NAME})
"""The piles' letters (``b`` is the Block key, so the blue pile is ``c``)."""
SEED = b"stacks learn"
"""Tutor's random hand card for Steal a Card comes from this seed: the same every time."""


class Deck:
    """Hands out the deck's cards by face code (``R4``, ``BLOCK``), each card once."""

    def __init__(self, deck: tuple[CardId, ...]) -> None:
        self.left = list(deck)

    def take(self, *codes: str) -> list[CardId]:
        cards = []
        for code in codes:
            card = next(c for c in self.left if FACES[c].code == code)
            self.left.remove(card)
            cards.append(card)
        return cards


def card_of(state: State, seat: int, code: str) -> CardId | None:
    """The first card of face ``code`` in ``seat``'s hand."""
    return next((c for c in state.hands[seat] if FACES[c].code == code), None)


def lesson_game() -> Game:
    """The lesson's deal, your turn first (the state checks out: ``check_invariants``)."""
    config = RulesConfig()
    state = State.new(config, 2)
    deck = Deck(state.deck)
    red = Pile(RED_PILE, Colour.RED, deck.take("R1", "R2", "R3"), RED_NAME)
    blue = Pile(BLUE_PILE, Colour.BLUE, deck.take("B1", "B2", "B3"), BLUE_NAME)
    state.piles = [red, blue]
    state.next_pile_id = 2
    state.hands[YOU] = deck.take("R4", "R5", "STEAL_CHIP", "BLOCK", "R2")
    state.hands[TUTOR] = deck.take("B4", "B5", "R3", "B1", "R1")
    state.discards[TUTOR] = deck.take("B2")
    state.chips[TUTOR] = [1, 1]
    state.supply = [config.chips_per_colour - 1, config.chips_per_colour - 1]
    # The draw pile, bottom to top: after your first turn you draw the top four (Steal a
    # Card, Skip, the Red wild and Reverse, in that order), then Tutor draws three.
    top = deck.take("B3", "R1", "B2", "REV", "RW", "SKIP", "STEAL_CARD")
    state.draw_pile = [*deck.left, *top]
    state.dealer, state.current, state.turn, state.phase = TUTOR, YOU, 1, Phase.PLAY
    return Game(state, Rng(SEED))


@dataclass(frozen=True)
class Lesson:
    """One step: its title, what it says, the moves of yours it takes, and what it says
    to a move it doesn't take."""

    name: str
    title: str
    text: str
    takes: Callable[[Action], bool]
    refusal: str = ""
    """Said when another move is tried ("" for the title's own words)."""


def _plays(code: str, pile: PileId) -> Callable[[Action], bool]:
    return lambda a: isinstance(a, PlayCard) and FACES[a.card].code == code and a.pile == pile


def _never(action: Action) -> bool:
    return False


LESSONS: tuple[Lesson, ...] = (
    Lesson(
        "number", "A number card",
        "Piles grow from [b]1[/] to [b]5[/] in one colour, one number at a time. Red pile "
        f"[b]{RED_NAME}[/] shows R1 R2 R3: your [b]Red 4[/] goes on it. Press [b]1[/] to pick "
        f"it (the piles it fits get ▶ ◀), then [b]{RED_NAME}[/] to put it there. (A new "
        "pile starts with a 1 or a wild: [b]n[/].)",
        _plays("R4", RED_PILE),
        f"Not that one: pick your [b]Red 4[/] ([b]1[/]) and put it on pile [b]{RED_NAME}[/].",
    ),
    Lesson(
        "complete", "A pile completion",
        "A pile that reaches [b]5[/] is completed: its player takes a chip of its colour. "
        f"Play your [b]Red 5[/] on pile [b]{RED_NAME}[/] ([b]1[/], then [b]{RED_NAME}[/]). "
        "Then Tutor may "
        "Block it, or pass.",
        _plays("R5", RED_PILE),
        f"Complete the pile first: your [b]Red 5[/] ([b]1[/]) on pile [b]{RED_NAME}[/].",
    ),
    Lesson(
        "steal_chip", "Steal a Chip",
        "You took a red chip (Your chips, under your hand). To win you need [b]5 chips, at "
        "least 2 of each colour[/]. [b]Steal a Chip[/] takes one from an opponent: press its "
        "number, then [b]p[/], and choose the colour.",
        lambda a: isinstance(a, StealChip),
        "Play your [b]Steal a Chip[/]: its number, then [b]p[/].",
    ),
    Lesson(
        "discard", "The discard ends your turn",
        "Play as many cards as you like; a [b]discard[/] ends the turn. The card goes on "
        "your discard pile, whose top you may play later ([b]0[/]), and you draw up to 5. "
        "Keep the Block! Discard your [b]Red 2[/]: its number, then [b]x[/].",
        lambda a: isinstance(a, Discard) and FACES[a.card].code != "BLOCK",
        "Keep your [b]Block[/]: you need it in a moment. Discard the [b]Red 2[/] "
        "(its number, then [b]x[/]).",
    ),
    Lesson(
        "block", "A Block",
        f"Tutor's turn: watch the blue pile [b]{BLUE_NAME}[/]. When an opponent completes a "
        "pile and you hold a [b]Block[/], you may Block it: the pile is thrown away and "
        "nobody takes the chip. At a real table it is a race against a clock. Press "
        "[b]b[/] when asked.",
        lambda a: isinstance(a, Block),
        "Block it this time: press [b]b[/] (the prompt is back).",
    ),
    Lesson(
        "steal_card", "Steal a Card",
        "Your turn again. [b]Steal a Card[/] takes an opponent's discard top, or a card "
        "of their hand at random. Press its number, then [b]p[/], and choose.",
        lambda a: isinstance(a, StealCard),
        "Play your [b]Steal a Card[/] first: its number, then [b]p[/].",
    ),
    Lesson(
        "wild", "A wild card",
        "A [b]wild[/] card is any number of its colour. Your [b]Red wild[/] can start a "
        "new red pile as its 1: press its number, then [b]n[/] (new pile).",
        lambda a: isinstance(a, PlayCard) and FACES[a.card].code == "RW",
        "Play your [b]Red wild[/]: its number, then [b]n[/] for a new pile.",
    ),
    Lesson(
        "skip", "Skip",
        "[b]Skip[/] makes the next player miss a turn. Play your Skip: its number, then "
        "[b]p[/].",
        lambda a: isinstance(a, PlaySkip),
        "Play your [b]Skip[/]: its number, then [b]p[/].",
    ),
    Lesson(
        "end", "End the turn",
        "Tutor will miss the next turn. Discard a card ([b]x[/]) to end yours, and watch "
        "the turn come straight back to you. Keep the [b]Reverse[/]: it is next.",
        lambda a: isinstance(a, Discard) and FACES[a.card].code != "REV",
        "Keep your [b]Reverse[/] for the next lesson: discard the other card "
        "(its number, then [b]x[/]).",
    ),
    Lesson(
        "reverse", "Reverse",
        "The turn came straight back. [b]Reverse[/] turns the direction of play; with "
        "two players it works as a Skip, so Tutor misses a turn again. Play it: its "
        "number, then [b]p[/].",
        lambda a: isinstance(a, PlayReverse),
        "Play your [b]Reverse[/]: its number, then [b]p[/].",
    ),
    Lesson(
        "ready", "You're ready",
        "You played a number card and a wild, completed a pile, stole a chip and a card, "
        "Blocked a pile, skipped a turn and reversed the play: every card of the game. "
        "First to 5 chips (2 of each colour) wins. [b]Enter[/] goes back to the menu: "
        "[b]p[/] plays against bots. "
        "[b]?[/] lists the keys, [b]F1[/] the rules.",
        _never,
        "The lesson is over: [b]Enter[/] goes back to the menu.",
    ),
)


def _tutor_plays(code: str, pile: PileId) -> Callable[[Action], bool]:
    return lambda a: isinstance(a, PlayCard) and a.seat == TUTOR \
        and FACES[a.card].code == code and a.pile == pile


TUTOR_SCRIPT: tuple[Callable[[Action], bool], ...] = (
    lambda a: isinstance(a, PassBlock) and a.seat == TUTOR,  # your red pile: no Block
    _tutor_plays("B4", BLUE_PILE),
    _tutor_plays("B5", BLUE_PILE),  # completes it: your Block
    lambda a: isinstance(a, Discard) and a.seat == TUTOR and FACES[a.card].code == "R3",
)
"""Tutor's moves, in order (each the first legal move it matches)."""


def tutor_acts(state: State) -> bool:
    """Whether Tutor is to move now (its turn, or a Block window waiting for it)."""
    if state.outcome is not None:
        return False
    if state.phase == Phase.BLOCK_WINDOW:
        window = state.window
        return window is not None and TUTOR in window.eligible and TUTOR not in window.passed
    return state.phase == Phase.PLAY and state.current == TUTOR


def tutor_move(game: Game, played: int) -> Action:
    """Tutor's next move: the ``played``-th of its script if legal now, else a move that
    keeps the lesson going (pass a Block window; discard)."""
    legal = game.legal_actions(TUTOR)
    if played < len(TUTOR_SCRIPT):
        found = [a for a in legal if TUTOR_SCRIPT[played](a)]
        if found:
            return found[0]
    for action in legal:
        if isinstance(action, PassBlock | Discard):
            return action
    return legal[0]

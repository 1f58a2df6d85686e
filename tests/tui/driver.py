"""A player made of key presses: reads the screen the way a person would and picks keys.

It uses only what the table shows (the selection's legal choices) and presses keys to
act, so a whole game runs through the same paths as a person at the keyboard.
"""

from __future__ import annotations

from textual.app import App
from textual.pilot import Pilot

from engine.actions import (
    Discard,
    EndTurn,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
)
from engine.classic.state import SequenceState
from engine.state import NEW_PILE, State
from tests.tui.conftest import TIMEOUT
from tui.screens.block import BlockPrompt
from tui.screens.board import BoardScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.gameover import GameOverScreen
from tui.screens.table import TableScreen
from tui.widgets.hand import picks


def keys_for_turn(screen: TableScreen) -> list[str]:
    """The keys of one move: a card's number, then what to do with it."""
    view, me = screen.view, screen.me
    assert view is not None and me is not None
    keyed = {p.card: p.key for p in picks(view, me) if p.key}
    order = (PlayCard, PlaySkip, PlayReverse, StealChip, StealCard, Discard, EndTurn)
    for kind in order:
        for action in screen.legal:
            if not isinstance(action, kind):
                continue
            if isinstance(action, EndTurn):
                return ["e"]
            key = keyed.get(action.card)
            if key is None:
                continue
            if isinstance(action, PlayCard):
                if action.pile == NEW_PILE:
                    return [key, "n"]
                slot = next(s for s in screen.slots
                            if s.pile is not None and s.pile.id == action.pile)
                return [key, slot.letter]
            if isinstance(action, Discard):
                return [key, "x"]
            return [key, "p"]
    return []


async def play_to_the_end(app: App[None], pilot: Pilot[None], *, block: bool = True,
                          limit: int = 5000) -> int:
    """Press keys until the game-over screen shows; how many keys were pressed."""
    pressed = 0
    acted_on: State | None = None
    idle = 0.0
    while not isinstance(app.screen, GameOverScreen):
        screen = app.screen
        keys: list[str] = []
        if isinstance(screen, BlockPrompt):
            keys = ["b" if block else "p"]
        elif isinstance(screen, ChoiceScreen):
            keys = ["1"]
        elif isinstance(screen, TableScreen) and screen._my_turn() and (
            screen.view is not acted_on
        ):
            keys = keys_for_turn(screen)
            acted_on = screen.view
        if keys:
            await pilot.press(*keys)
            pressed += len(keys)
            idle = 0.0
            if pressed > limit:
                raise AssertionError(f"no end after {pressed} key presses")
        else:
            idle += 0.02
            if idle > TIMEOUT:
                raise AssertionError(f"nothing to do for {TIMEOUT} s on {type(screen).__name__}")
        await pilot.pause(0.02)
    return pressed


# -- classic Sequence: the board ---------------------------------------------------------------


def board_keys(screen: BoardScreen, turn: int) -> list[str]:
    """The keys of one classic Sequence move, as a person presses them: on odd turns the
    hint (``i``) and what it says to press; else a card's number, Tab until the cursor is
    on the cell the first legal action names, Enter (``d`` for a dead card, ``x`` for a
    discard). Tab presses are counted from the screen's own cycle of target cells."""
    view, me = screen.view, screen.me
    assert view is not None and me is not None
    legal = screen.legal
    if turn % 2:
        hint = screen._bot.choose(view, me, list(legal))
        if isinstance(hint, ExchangeDeadCard):
            return ["i", "d"]
        if isinstance(hint, DiscardUnplayable | PassTurn):
            return ["i", "x"]
        return ["i", "enter"]
    action = legal[0]
    if isinstance(action, PassTurn):
        return ["x"]
    key = str(view.hands[me].index(action.card) + 1)
    if isinstance(action, ExchangeDeadCard):
        return [key, "d"]
    if isinstance(action, DiscardUnplayable):
        return [key, "x"]
    assert isinstance(action, PlaceChip | RemoveChip)
    spots = sorted(a.cell for a in legal
                   if isinstance(a, PlaceChip | RemoveChip) and a.card == action.card)
    cursor = screen.cursor if screen.cursor in spots else spots[0]
    tabs = (spots.index(action.cell) - spots.index(cursor)) % len(spots)
    return [key, *["tab"] * tabs, "enter"]


async def play_board_to_the_end(app: App[None], pilot: Pilot[None],
                                limit: int = 5000) -> int:
    """Press keys on the board until the game-over screen shows; how many were pressed."""
    pressed = turns = 0
    acted_on: SequenceState | None = None
    idle = 0.0
    while not isinstance(app.screen, GameOverScreen):
        screen = app.screen
        keys: list[str] = []
        if isinstance(screen, BoardScreen) and screen._my_turn() and screen.legal and (
            screen.view is not acted_on
        ):
            keys = board_keys(screen, turns)
            acted_on = screen.view
            turns += 1
        if keys:
            await pilot.press(*keys)
            pressed += len(keys)
            idle = 0.0
            if pressed > limit:
                raise AssertionError(f"no end after {pressed} key presses")
        else:
            idle += 0.02
            if idle > TIMEOUT:
                raise AssertionError(f"nothing to do for {TIMEOUT} s on {type(screen).__name__}")
        await pilot.pause(0.02)
    return pressed

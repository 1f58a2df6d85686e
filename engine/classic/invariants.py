"""Checks that hold after every event of classic Sequence (tests, ``stacks simulate``)."""

from __future__ import annotations

from itertools import compress

from engine.checks import cards_conserved, phase_problems
from engine.classic.board import CORNERS, WINDOW_OF, cell_name
from engine.classic.cards import HIDDEN
from engine.classic.state import EMPTY, Phase, SequenceState


def check_invariants(state: SequenceState) -> list[str]:
    """Return a description of every broken invariant (empty when all hold)."""
    problems: list[str] = []
    zones = [*state.draw_pile]
    for hand in state.hands:
        zones += hand
    for pile in state.discards:
        zones += pile
    # A spectator's view may know every card too (all hands empty, the pile gone).
    problems += cards_conserved(zones, state.deck, known=state.audience < 0 and HIDDEN not in zones)
    if state.phase != Phase.SETUP:
        for seat, hand in enumerate(state.hands):
            short = state.hand_size - len(hand)
            # Between its play (or dead card) and its draw, the player to move is one short.
            if short != 0 and not (short == 1 and seat == state.current):
                problems.append(f"seat {seat} holds {len(hand)} cards, not {state.hand_size}")
    chips = state.chips
    if (
        min(chips) < EMPTY
        or max(chips) >= state.teams
        or any(chips[corner] != EMPTY for corner in CORNERS)
    ):
        for cell, owner in enumerate(chips):
            if owner != EMPTY and not 0 <= owner < state.teams:
                problems.append(f"{cell_name(cell)} holds a chip of no team ({owner})")
            if cell in CORNERS and owner != EMPTY:
                problems.append(f"corner {cell_name(cell)} holds a chip")
    locked: set[int] = set()
    for index, seq in enumerate(state.sequences):
        if seq.cells not in WINDOW_OF:
            problems.append(f"sequence {index} is not five spaces in a line")
            continue
        if not all(state.owns(cell, seq.team) for cell in seq.cells):
            problems.append(f"sequence {index} has a space that is not its team's")
        for other in state.sequences[:index]:
            if other.team == seq.team and len(set(other.cells) & set(seq.cells)) > 1:
                problems.append(f"sequence {index} shares more than one space with another")
        locked.update(seq.cells)
    if set(compress(range(len(state.locked)), state.locked)) != locked:
        problems.append("the locked spaces are not exactly those of the sequences")
    return problems + phase_problems(state, Phase.GAME_OVER)

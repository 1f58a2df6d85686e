"""Checks that must hold after every event (used by tests and ``stacks simulate``)."""

from __future__ import annotations

from engine.cards import COLOUR
from engine.checks import cards_conserved, phase_problems
from engine.state import HOST, Phase, State


def check_invariants(state: State) -> list[str]:
    """Return a description of every broken invariant (empty when all hold)."""
    problems: list[str] = []
    cfg = state.config
    # Every card in exactly one zone (only the host knows every card).
    zones: list[int] = [*state.draw_pile, *state.out_of_play, *state.special_discard]
    for hand in state.hands:
        zones += hand
    for pile in state.discards:
        zones += pile
    for p in state.piles:
        zones += p.cards
    if state.window is not None:
        zones += state.window.pile.cards
    problems += cards_conserved(zones, state.deck, known=state.audience == HOST)
    # Chips are conserved.
    for colour in (0, 1):
        held = sum(chips[colour] for chips in state.chips)
        if any(chips[colour] < 0 for chips in state.chips) or state.supply[colour] < 0:
            problems.append("a negative chip count")
        if not cfg.unlimited_chips and held + state.supply[colour] != cfg.chips_per_colour:
            problems.append(f"colour {colour}: {held} held + {state.supply[colour]} in supply")
    # Piles.
    limit = cfg.max_open_piles_per_colour
    for colour in (0, 1):
        if limit and sum(1 for p in state.piles if p.colour == colour) > limit:
            problems.append(f"more than {limit} open piles of colour {colour}")
    names = [p.name for p in state.piles]
    if state.window is not None:
        names.append(state.window.pile.name)
    if len(set(names)) != len(names):
        problems.append("two open piles share a name")
    for p in state.piles:
        # Height 5 lasts only from the completing play to the PileCompleted that follows.
        if not 1 <= p.height <= 5:
            problems.append(f"open pile {p.id} has height {p.height}")
        if any(COLOUR[c] != p.colour for c in p.cards):
            problems.append(f"pile {p.id} holds a card of the other colour")
    # Phase.
    if (state.phase == Phase.BLOCK_WINDOW) != (state.window is not None):
        problems.append("a Block window exists exactly in the BLOCK_WINDOW phase")
    return problems + phase_problems(state, Phase.GAME_OVER)

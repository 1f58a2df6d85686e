"""The search's fast path: a legal action applied straight to the state, no events.

:func:`play` does what :func:`engine.rules.step` does to the state, for an action that
:func:`engine.rules.legal_actions` listed for that very state, without the legality
check, without making an event object and without the reducer's checks of each event:
the zones are changed in place, the generator is drawn in the same order for the same
things (a reshuffle, the card a Steal takes from a hand), so the same action on the same
state with the same generator leaves the same state as ``step``.

It is for searches and playouts only, which make millions of steps on states nobody
else sees. Everything a peer sees still goes through ``step`` and the one reducer.
tests/engine/test_fastplay.py plays thousands of random games under every house rule
and checks after every action that this path and ``step`` agree field for field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.actions import (
    Action,
    Block,
    CloseBlockWindow,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import CARDS_BY_KIND, COLOUR, KIND, Colour, Kind
from engine.config import StalemateResult
from engine.rng import Rng
from engine.rules import skip_targets
from engine.state import (
    NEW_PILE,
    BlockWindow,
    Outcome,
    Phase,
    Pile,
    Seat,
    State,
    Termination,
    Zone,
)

_BLOCKS = CARDS_BY_KIND[Kind.BLOCK]
_IS_BLOCK = tuple(kind is Kind.BLOCK for kind in KIND)
_SKIP_LIKE = Kind.SKIP
_REVERSE = Kind.REVERSE
_HAND = Zone.HAND
_DISCARD = Zone.DISCARD


def play(state: State, action: Action, rng: Rng) -> None:
    """Apply a legal ``action`` to ``state`` in place, as :func:`engine.rules.step` would."""
    _PLAYS[type(action)](state, action, rng)


# -- the pieces of a step -------------------------------------------------------------------


def _is_dry(state: State) -> bool:
    return not state.draw_pile and not state.has_reshuffle_pool()


def _take(state: State, seat: Seat, card: int) -> Zone:
    """Take ``card`` from ``seat``'s hand, else from its discard top; where it came from."""
    hand = state.hands[seat]
    if card in hand:
        hand.remove(card)
        return _HAND
    state.discards[seat].pop()
    return _DISCARD


def _draw(state: State, seat: Seat, count: int, rng: Rng) -> None:
    """:meth:`engine.stepping.Stepper.draw`: reshuffle the pool when the pile runs out."""
    pile = state.draw_pile
    hand = state.hands[seat]
    while count > 0:
        if not pile:
            pool = state.reshuffle_pool()
            if not pool:
                return
            rng.shuffle(pool)
            state.draw_pile = pile = pool
            state.out_of_play.clear()
            if state.config.reshuffle_includes_action_cards:
                state.special_discard.clear()
        take = count if count < len(pile) else len(pile)
        drawn = pile[-take:]
        drawn.reverse()
        del pile[-take:]
        hand.extend(drawn)
        count -= take


def _after_hand_play(state: State, seat: Seat, zone: Zone, rng: Rng) -> None:
    if zone is _HAND and not state.hands[seat]:
        _draw(state, seat, state.config.hand_size, rng)


def _game_over(state: State, termination: Termination, winner: Seat | None) -> None:
    state.phase = Phase.GAME_OVER
    state.window = None
    state.outcome = Outcome(termination, winner)


def _eligible_blockers(state: State, completer: Seat) -> tuple[Seat, ...]:
    """:func:`engine.rules._eligible_blockers`: who might hold a Block, by public information."""
    deck = state.deck
    hidden = sum(1 for c in _BLOCKS if c in deck)
    if hidden:
        hidden -= sum(1 for c in state.special_discard if _IS_BLOCK[c])
        for pile in state.discards:
            hidden -= sum(1 for c in pile if _IS_BLOCK[c])
    from_discard = state.config.block_from_discard
    hands = state.hands
    discards = state.discards
    eligible = []
    for seat in range(state.players):
        if seat == completer:
            continue
        if (hidden > 0 and hands[seat]) or (
            from_discard and discards[seat] and _IS_BLOCK[discards[seat][-1]]
        ):
            eligible.append(seat)
    return tuple(eligible)


def _close_window(state: State, blocker: Block | None, rng: Rng) -> None:
    window = state.window
    assert window is not None
    seat, pile = window.seat, window.pile
    if blocker is not None:
        _take(state, blocker.seat, blocker.card)
        state.special_discard.append(blocker.card)
    state.out_of_play.extend(pile.cards)
    state.window = None
    state.phase = Phase.PLAY
    if blocker is None:
        colour = pile.colour
        supply = state.supply
        if supply[colour] > 0 or state.config.unlimited_chips:
            if supply[colour] > 0:
                supply[colour] -= 1
            chips = state.chips[seat]
            chips[colour] += 1
            if state.meets_win(chips[0], chips[1]):
                _game_over(state, Termination.WIN, seat)
                return
    if window.refill:
        _draw(state, seat, state.config.hand_size, rng)


def _note_turn_over(state: State) -> None:
    if state.plays_this_turn == 0 and state.dry_at_start and _is_dry(state):
        state.idle_turns += 1
    else:
        state.idle_turns = 0
    state.plays_this_turn = 0
    state.skips_this_turn = []


def _end_turn(state: State, seat: Seat, rng: Rng) -> None:
    missing = state.config.hand_size - len(state.hands[seat])
    if missing > 0:
        _draw(state, seat, missing, rng)
    if state.skips_this_turn:
        tokens = state.skip_tokens
        for target in skip_targets(state, seat):
            tokens[target] += 1
    _note_turn_over(state)
    _next_turn(state)


def _next_turn(state: State) -> None:
    cfg = state.config
    seat = state.current
    n = state.players
    while True:
        if state.idle_turns >= n:
            winner = None
            if cfg.stalemate_result == StalemateResult.MOST_CHIPS:
                totals = [sum(c) for c in state.chips]
                best = max(totals)
                if totals.count(best) == 1:
                    winner = totals.index(best)
            _game_over(state, Termination.STALEMATE, winner)
            return
        if state.turn >= cfg.max_turns:
            _game_over(state, Termination.MAX_TURNS, None)
            return
        seat = (seat + state.direction) % n
        state.current = seat
        state.turn += 1
        state.plays_this_turn = 0
        if state.skip_tokens[seat] > 0:
            state.skip_tokens[seat] -= 1
            state.dry_at_start = _is_dry(state)
            _note_turn_over(state)
            continue
        state.phase = Phase.PLAY
        state.skips_this_turn = []
        state.dry_at_start = _is_dry(state)
        return


# -- one function per action ----------------------------------------------------------------


def _play_card(state: State, action: PlayCard, rng: Rng) -> None:
    seat = action.seat
    card = action.card
    zone = _take(state, seat, card)
    if action.pile == NEW_PILE:
        colour = COLOUR[card]
        assert colour is not None
        pile = Pile(state.next_pile_id, colour, name=state.name_for_new_pile())
        state.piles.append(pile)
        state.next_pile_id += 1
    else:
        for pile in state.piles:
            if pile.id == action.pile:
                break
        else:  # pragma: no cover - legal_actions lists open piles only
            raise AssertionError(f"no open pile {action.pile}")
    cards = pile.cards
    cards.append(card)
    state.plays_this_turn += 1
    if len(cards) < 5:
        _after_hand_play(state, seat, zone, rng)
        return
    refill = zone is _HAND and not state.hands[seat]
    eligible = _eligible_blockers(state, seat)
    state.piles.remove(pile)
    state.window = BlockWindow(pile, seat, refill, eligible)
    state.phase = Phase.BLOCK_WINDOW
    if not eligible:
        _close_window(state, None, rng)


def _played_action(state: State, seat: Seat, card: int) -> Zone:
    """An action card leaves the hand or the discard top for the special discard."""
    zone = _take(state, seat, card)
    state.special_discard.append(card)
    state.plays_this_turn += 1
    kind = KIND[card]
    if kind is _SKIP_LIKE or (kind is _REVERSE and state.players == 2):
        state.skips_this_turn.append(state.direction)
    elif kind is _REVERSE:
        state.direction = -state.direction
    return zone


def _play_skip_or_reverse(state: State, action: PlaySkip | PlayReverse, rng: Rng) -> None:
    zone = _played_action(state, action.seat, action.card)
    _after_hand_play(state, action.seat, zone, rng)


def _steal_card(state: State, action: StealCard, rng: Rng) -> None:
    seat, target = action.seat, action.target
    zone = _played_action(state, seat, action.card)
    _after_hand_play(state, seat, zone, rng)
    if action.zone == _DISCARD:
        taken = state.discards[target].pop()
    else:
        hand = state.hands[target]
        taken = hand[rng.below(len(hand))]
        hand.remove(taken)
    state.hands[seat].append(taken)


def _steal_chip(state: State, action: StealChip, rng: Rng) -> None:
    seat = action.seat
    zone = _played_action(state, seat, action.card)
    colour: Colour = action.colour
    state.chips[action.target][colour] -= 1
    state.chips[seat][colour] += 1
    _after_hand_play(state, seat, zone, rng)


def _discard(state: State, action: Discard, rng: Rng) -> None:
    seat = action.seat
    state.hands[seat].remove(action.card)
    state.discards[seat].append(action.card)
    _end_turn(state, seat, rng)


def _end_turn_action(state: State, action: EndTurn, rng: Rng) -> None:
    _end_turn(state, action.seat, rng)


def _block(state: State, action: Block, rng: Rng) -> None:
    _close_window(state, action, rng)


def _pass_block(state: State, action: PassBlock, rng: Rng) -> None:
    window = state.window
    assert window is not None
    window.passed.add(action.seat)
    passed = window.passed
    if all(seat in passed for seat in window.eligible):
        _close_window(state, None, rng)


def _close(state: State, action: CloseBlockWindow, rng: Rng) -> None:
    _close_window(state, None, rng)


_PLAYS: dict[type[Action], Callable[[State, Any, Rng], None]] = {
    PlayCard: _play_card,
    PlaySkip: _play_skip_or_reverse,
    PlayReverse: _play_skip_or_reverse,
    StealCard: _steal_card,
    StealChip: _steal_chip,
    Discard: _discard,
    EndTurn: _end_turn_action,
    Block: _block,
    PassBlock: _pass_block,
    CloseBlockWindow: _close,
}

"""The single reducer: ``apply(state, event)`` is the only code that changes a state.

It runs on the host (full state) and on every peer (a view with hidden cards), so it
accepts :data:`~engine.cards.HIDDEN` wherever a card may be unknown to the audience.
An event that does not fit the state raises :class:`InvalidEventError` and leaves the
state unchanged, ready for a resync.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.cards import COLOUR, DECK_SIZE, KIND, RANK, CardId, Kind, card_name
from engine.errors import InvalidEventError
from engine.events import (
    ActionPlayed,
    BlockPassed,
    CardDiscarded,
    CardPlayed,
    CardsDrawn,
    CardTaken,
    ChipAwarded,
    ChipTaken,
    DrawPileFormed,
    Event,
    GameOver,
    PileBlocked,
    PileCleared,
    PileCompleted,
    Reshuffled,
    SkipsGiven,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from engine.reducing import Reducer, Zones, check_seat
from engine.state import (
    BlockWindow,
    Outcome,
    Phase,
    Pile,
    Seat,
    State,
    Termination,
    Zone,
)


def apply(state: State, event: Event) -> None:
    """Apply ``event`` to ``state`` in place."""
    _REDUCER.apply(state, event)


def apply_checked(state: State, event: Event) -> None:
    """Apply an untrusted event: any inconsistency leaves ``state`` as it was.

    Works on a copy and swaps it in only on success, so a half-applied event can't
    leave a peer in a state nobody else has.
    """
    _REDUCER.apply_checked(state, event)


# -- helpers -------------------------------------------------------------------------------

_ZONES = Zones(DECK_SIZE, "the deck", card_name)
_seat = check_seat
_known = _ZONES.known
_for = _ZONES.visible
_remove_from_hand = _ZONES.remove_from_hand


def _take(state: State, seat: Seat, card: CardId, zone: Zone) -> None:
    if zone == Zone.HAND:
        _remove_from_hand(state.hands[seat], card)
        return
    pile = state.discards[seat]
    if not pile or pile[-1] != card:
        raise InvalidEventError(f"{card_name(card)} is not on top of seat {seat}'s discard pile")
    pile.pop()


def _is_dry(state: State) -> bool:
    return not state.draw_pile and not state.has_reshuffle_pool()


def _note_turn_over(state: State) -> None:
    """Stalemate bookkeeping at the end of a turn, played or skipped (§1.11).

    A turn is idle when nothing could be drawn from its start to its end and nothing
    was played in it; the cycle that ends the game counts only such turns.
    """
    if state.plays_this_turn == 0 and state.dry_at_start and _is_dry(state):
        state.idle_turns += 1
    else:
        state.idle_turns = 0
    state.plays_this_turn = 0
    state.skips_this_turn = []


# -- one function per event ---------------------------------------------------------------


def _draw_pile_formed(state: State, ev: DrawPileFormed) -> None:
    if state.phase != Phase.SETUP:
        raise InvalidEventError("the draw pile is formed only before the deal")
    _ZONES.form_draw_pile(state, ev.cards)


def _reshuffled(state: State, ev: Reshuffled) -> None:
    _ZONES.reshuffle(state, ev.cards, state.reshuffle_pool(), "the reshuffle pool")
    state.out_of_play.clear()
    if state.config.reshuffle_includes_action_cards:
        state.special_discard.clear()


def _cards_drawn(state: State, ev: CardsDrawn) -> None:
    _ZONES.draw(state, ev.seat, ev.cards)


def _turn_started(state: State, ev: TurnStarted) -> None:
    seat = _seat(state, ev.seat)
    if state.phase == Phase.BLOCK_WINDOW:
        raise InvalidEventError("a turn can't start during a Block window")
    if state.turn == 0:
        state.dealer = (seat - 1) % state.players  # A26: the starter sits left of the dealer
    state.current = seat
    state.turn += 1
    state.phase = Phase.PLAY
    state.plays_this_turn = 0
    state.skips_this_turn = []
    state.dry_at_start = _is_dry(state)


def _turn_skipped(state: State, ev: TurnSkipped) -> None:
    seat = _seat(state, ev.seat)
    if state.skip_tokens[seat] <= 0:
        raise InvalidEventError(f"seat {seat} has no skip token")
    state.skip_tokens[seat] -= 1
    state.current = seat
    state.turn += 1
    state.plays_this_turn = 0
    state.dry_at_start = _is_dry(state)
    _note_turn_over(state)


def _require_turn(state: State, seat: Seat) -> None:
    if state.phase != Phase.PLAY or seat != state.current:
        raise InvalidEventError(f"seat {seat} can't play now")


def _card_played(state: State, ev: CardPlayed) -> None:
    seat = _seat(state, ev.seat)
    _require_turn(state, seat)
    card = _known(ev.card)
    kind = KIND[card]
    if kind is not Kind.NUMBER and kind is not Kind.WILD:
        raise InvalidEventError(f"{card_name(card)} can't go onto a pile")
    colour = COLOUR[card]
    assert colour is not None
    if ev.opens:
        if ev.pile != state.next_pile_id:
            raise InvalidEventError(f"a new pile must get id {state.next_pile_id}")
        if (kind is Kind.NUMBER and RANK[card] != 1) or not state.can_open_pile(colour):
            raise InvalidEventError(f"{card_name(card)} can't open a pile now")
        _take(state, seat, card, ev.zone)
        pile = Pile(ev.pile, colour, name=state.name_for_new_pile())
        state.piles.append(pile)
        state.next_pile_id += 1
    else:
        found = state.pile(ev.pile)
        if found is None:
            raise InvalidEventError(f"there is no open pile {ev.pile}")
        if found.colour != colour or found.height >= 5 or (
            kind is Kind.NUMBER and RANK[card] != found.height + 1
        ):
            raise InvalidEventError(f"{card_name(card)} does not fit {found.label()}")
        _take(state, seat, card, ev.zone)
        pile = found
    pile.cards.append(card)
    state.plays_this_turn += 1


def _action_played(state: State, ev: ActionPlayed) -> None:
    seat = _seat(state, ev.seat)
    _require_turn(state, seat)
    card = _known(ev.card)
    kind = KIND[card]
    if not kind.is_action or kind is Kind.BLOCK:
        raise InvalidEventError(f"{card_name(card)} is not an action to play on your turn")
    _take(state, seat, card, ev.zone)
    state.special_discard.append(card)
    state.plays_this_turn += 1
    if kind is Kind.SKIP or (kind is Kind.REVERSE and state.players == 2):
        state.skips_this_turn.append(state.direction)
    elif kind is Kind.REVERSE:
        state.direction = -state.direction


def _card_taken(state: State, ev: CardTaken) -> None:
    seat = _seat(state, ev.seat)
    target = _seat(state, ev.target)
    if seat == target:
        raise InvalidEventError("a player can't steal from themselves")
    if ev.zone == Zone.DISCARD:
        _known(ev.card)
    else:
        _for(state, ev.card, seat, target)
    _take(state, target, ev.card, ev.zone)
    state.hands[seat].append(ev.card)


def _chip_taken(state: State, ev: ChipTaken) -> None:
    seat = _seat(state, ev.seat)
    target = _seat(state, ev.target)
    if seat == target or state.chips[target][ev.colour] <= 0:
        raise InvalidEventError(f"seat {target} has no {ev.colour.title.lower()} chip to take")
    state.chips[target][ev.colour] -= 1
    state.chips[seat][ev.colour] += 1


def _pile_completed(state: State, ev: PileCompleted) -> None:
    seat = _seat(state, ev.seat)
    _require_turn(state, seat)
    pile = state.pile(ev.pile)
    if pile is None or pile.height != 5:
        raise InvalidEventError(f"pile {ev.pile} is not complete")
    for other in ev.eligible:
        if _seat(state, other) == seat:
            raise InvalidEventError("the completing player can't block")
    state.piles.remove(pile)
    state.window = BlockWindow(pile, seat, ev.refill, ev.eligible)
    state.phase = Phase.BLOCK_WINDOW


def _window(state: State, pile_id: int) -> BlockWindow:
    window = state.window
    if state.phase != Phase.BLOCK_WINDOW or window is None or window.pile.id != pile_id:
        raise InvalidEventError(f"no Block window is open for pile {pile_id}")
    return window


def _block_passed(state: State, ev: BlockPassed) -> None:
    window = state.window
    if state.phase != Phase.BLOCK_WINDOW or window is None or ev.seat not in window.eligible:
        raise InvalidEventError(f"seat {ev.seat} can't pass: no Block window is open to it")
    window.passed.add(ev.seat)


def _close(state: State, window: BlockWindow) -> None:
    state.out_of_play.extend(window.pile.cards)
    state.window = None
    state.phase = Phase.PLAY


def _pile_blocked(state: State, ev: PileBlocked) -> None:
    seat = _seat(state, ev.seat)
    window = _window(state, ev.pile)
    if seat == window.seat:
        raise InvalidEventError("a player can't block their own completion")
    if KIND[_known(ev.card)] is not Kind.BLOCK:
        raise InvalidEventError(f"{card_name(ev.card)} is not a Block")
    _take(state, seat, ev.card, ev.zone)
    state.special_discard.append(ev.card)
    _close(state, window)


def _pile_cleared(state: State, ev: PileCleared) -> None:
    _close(state, _window(state, ev.pile))


def _chip_awarded(state: State, ev: ChipAwarded) -> None:
    seat = _seat(state, ev.seat)
    if state.supply[ev.colour] > 0:
        state.supply[ev.colour] -= 1
    elif not state.config.unlimited_chips:
        raise InvalidEventError(f"the {ev.colour.title.lower()} supply is empty")
    state.chips[seat][ev.colour] += 1


def _card_discarded(state: State, ev: CardDiscarded) -> None:
    seat = _seat(state, ev.seat)
    _require_turn(state, seat)
    _remove_from_hand(state.hands[seat], _known(ev.card))
    state.discards[seat].append(ev.card)


def _skips_given(state: State, ev: SkipsGiven) -> None:
    for seat in ev.seats:
        _seat(state, seat)
    for seat in ev.seats:
        state.skip_tokens[seat] += 1


def _turn_ended(state: State, ev: TurnEnded) -> None:
    _require_turn(state, _seat(state, ev.seat))
    _note_turn_over(state)


def _game_over(state: State, ev: GameOver) -> None:
    if ev.winner is not None:
        _seat(state, ev.winner)
        if ev.termination == Termination.MAX_TURNS:
            raise InvalidEventError("the turn limit ends the game without a winner")
    if state.window is not None:
        raise InvalidEventError("the game can't end while a Block window is open")
    state.phase = Phase.GAME_OVER
    state.window = None
    state.outcome = Outcome(ev.termination, ev.winner)


_HANDLERS: dict[type[Event], Callable[[State, Any], None]] = {
    DrawPileFormed: _draw_pile_formed,
    Reshuffled: _reshuffled,
    CardsDrawn: _cards_drawn,
    TurnStarted: _turn_started,
    TurnSkipped: _turn_skipped,
    CardPlayed: _card_played,
    ActionPlayed: _action_played,
    CardTaken: _card_taken,
    ChipTaken: _chip_taken,
    PileCompleted: _pile_completed,
    BlockPassed: _block_passed,
    PileBlocked: _pile_blocked,
    PileCleared: _pile_cleared,
    ChipAwarded: _chip_awarded,
    CardDiscarded: _card_discarded,
    SkipsGiven: _skips_given,
    TurnEnded: _turn_ended,
    GameOver: _game_over,
}

_REDUCER: Reducer[State, Event] = Reducer(_HANDLERS, Phase.GAME_OVER)

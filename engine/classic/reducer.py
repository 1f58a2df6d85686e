"""The reducer of classic Sequence: ``apply(state, event)`` is the only code that changes
a :class:`SequenceState`, on the host and on every peer's view.

An event that does not fit the state raises :class:`InvalidEventError`; use
:func:`apply_checked` for untrusted events, which leaves the state as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.classic.board import CELLS, CORNERS, WINDOW_OF, Cell, cell_name
from engine.classic.cards import CODES, DECK_SIZE, JACKS, CardId, JackKind, card_name
from engine.classic.events import (
    CardDiscarded,
    CardsDrawn,
    ChipPlaced,
    ChipRemoved,
    DeadCardExchanged,
    DealerCut,
    DrawPileFormed,
    GameOver,
    Reshuffled,
    SequenceEvent,
    SequenceMade,
    TurnEnded,
    TurnPassed,
    TurnStarted,
)
from engine.classic.state import EMPTY, Phase, Sequence, SequenceState
from engine.errors import InvalidEventError
from engine.reducing import Reducer, Zones, check_seat
from engine.state import Outcome, Seat, Termination


def apply(state: SequenceState, event: SequenceEvent) -> None:
    """Apply ``event`` to ``state`` in place."""
    _REDUCER.apply(state, event)


def apply_checked(state: SequenceState, event: SequenceEvent) -> None:
    """Apply an untrusted event on a copy and keep it only if it fits."""
    _REDUCER.apply_checked(state, event)


# -- helpers -------------------------------------------------------------------------------

_ZONES = Zones(DECK_SIZE, "the decks", card_name)
_seat = check_seat
_known = _ZONES.known


def _cell(cell: Cell) -> Cell:
    if type(cell) is not int or not 0 <= cell < CELLS:
        raise InvalidEventError(f"{cell!r} is not a board space")
    return cell


def _require_play(state: SequenceState, seat: Seat) -> Seat:
    _seat(state, seat)
    if state.phase != Phase.PLAY or seat != state.current:
        raise InvalidEventError(f"seat {seat} can't play now")
    if state.played:
        raise InvalidEventError(f"seat {seat} has already played this turn")
    return seat


def _play_to_discard(state: SequenceState, seat: Seat, card: CardId) -> None:
    _ZONES.remove_from_hand(state.hands[seat], card)
    state.discards[seat].append(card)


# -- one function per event ---------------------------------------------------------------


def _dealer_cut(state: SequenceState, ev: DealerCut) -> None:
    if state.phase != Phase.SETUP:
        raise InvalidEventError("the dealer is chosen only before the deal")
    state.dealer = _seat(state, ev.seat)


def _draw_pile_formed(state: SequenceState, ev: DrawPileFormed) -> None:
    if state.phase != Phase.SETUP:
        raise InvalidEventError("the draw pile is formed only before the deal")
    _ZONES.form_draw_pile(state, ev.cards)


def _reshuffled(state: SequenceState, ev: Reshuffled) -> None:
    pool = [card for pile in state.discards for card in pile]
    _ZONES.reshuffle(state, ev.cards, pool, "the discard piles")
    for pile in state.discards:
        pile.clear()


def _cards_drawn(state: SequenceState, ev: CardsDrawn) -> None:
    _ZONES.draw(state, ev.seat, ev.cards)


def _turn_started(state: SequenceState, ev: TurnStarted) -> None:
    seat = _seat(state, ev.seat)
    if state.phase == Phase.PLAY and not state.played:
        raise InvalidEventError(f"seat {state.current}'s turn has not been played")
    state.current = seat
    state.turn += 1
    state.phase = Phase.PLAY
    state.exchanges = 0
    state.played = False


def _dead_card_exchanged(state: SequenceState, ev: DeadCardExchanged) -> None:
    seat = _require_play(state, ev.seat)
    card = _known(ev.card)
    if JACKS[card] is not JackKind.NONE or not state.is_dead(CODES[card]):
        raise InvalidEventError(f"{card_name(card)} is not a dead card")
    if state.exchanges >= state.config.dead_cards_per_turn:
        raise InvalidEventError("no more dead-card exchanges this turn")
    _play_to_discard(state, seat, card)
    state.exchanges += 1


def _chip_placed(state: SequenceState, ev: ChipPlaced) -> None:
    seat = _require_play(state, ev.seat)
    card = _known(ev.card)
    cell = _cell(ev.cell)
    jack = JACKS[card]
    if jack is JackKind.ONE_EYED:
        raise InvalidEventError(f"{card_name(card)} removes a chip; it places none")
    if jack is JackKind.NONE and cell not in state.board.spaces[CODES[card]]:
        raise InvalidEventError(f"{card_name(card)} is not the card of {cell_name(cell)}")
    if cell in CORNERS or state.chips[cell] != EMPTY:
        raise InvalidEventError(f"{cell_name(cell)} is not an empty space")
    _play_to_discard(state, seat, card)
    state.chips[cell] = state.team_of(seat)
    state.played = True


def _chip_removed(state: SequenceState, ev: ChipRemoved) -> None:
    seat = _require_play(state, ev.seat)
    card = _known(ev.card)
    cell = _cell(ev.cell)
    if JACKS[card] is not JackKind.ONE_EYED:
        raise InvalidEventError(f"{card_name(card)} is not a one-eyed jack")
    owner = state.chips[cell]
    if owner == EMPTY or owner == state.team_of(seat) or state.locked[cell]:
        raise InvalidEventError(f"{cell_name(cell)} holds no removable opponent chip")
    _play_to_discard(state, seat, card)
    state.chips[cell] = EMPTY
    state.played = True


def _card_discarded(state: SequenceState, ev: CardDiscarded) -> None:
    seat = _require_play(state, ev.seat)
    _play_to_discard(state, seat, _known(ev.card))
    state.played = True


def _turn_passed(state: SequenceState, ev: TurnPassed) -> None:
    _require_play(state, ev.seat)
    state.played = True


def _sequence_made(state: SequenceState, ev: SequenceMade) -> None:
    if state.phase != Phase.PLAY or not state.played:
        raise InvalidEventError("a sequence is made only by a play")
    team = ev.team
    if type(team) is not int or not 0 <= team < state.teams:
        raise InvalidEventError(f"no team {team} at this table")
    if ev.cells not in WINDOW_OF:
        raise InvalidEventError(f"{list(ev.cells)} are not five spaces in a line")
    if not all(state.owns(cell, team) for cell in ev.cells):
        raise InvalidEventError(f"{cell_name(ev.cells[0])}.. is not a line of the team's chips")
    cells = set(ev.cells)
    for other in state.sequences:
        if other.team == team and len(cells.intersection(other.cells)) > 1:
            raise InvalidEventError("two sequences of a team share at most one space")
    state.sequences.append(Sequence(team, ev.cells))
    for cell in ev.cells:
        state.locked[cell] = True


def _turn_ended(state: SequenceState, ev: TurnEnded) -> None:
    seat = _seat(state, ev.seat)
    if state.phase != Phase.PLAY or seat != state.current or not state.played:
        raise InvalidEventError(f"seat {seat} has no turn to end")


def _game_over(state: SequenceState, ev: GameOver) -> None:
    if ev.winner is not None:
        if type(ev.winner) is not int or not 0 <= ev.winner < state.teams:
            raise InvalidEventError(f"no team {ev.winner} at this table")
        if ev.termination != Termination.WIN:
            raise InvalidEventError("only a win has a winner")
        if state.sequence_count(ev.winner) < state.to_win:
            raise InvalidEventError(f"team {ev.winner} has not made {state.to_win} sequences")
    elif ev.termination == Termination.WIN:
        raise InvalidEventError("a win needs a winner")
    state.phase = Phase.GAME_OVER
    state.outcome = Outcome(ev.termination, ev.winner)


_HANDLERS: dict[type[SequenceEvent], Callable[[SequenceState, Any], None]] = {
    DealerCut: _dealer_cut,
    DrawPileFormed: _draw_pile_formed,
    Reshuffled: _reshuffled,
    CardsDrawn: _cards_drawn,
    TurnStarted: _turn_started,
    DeadCardExchanged: _dead_card_exchanged,
    ChipPlaced: _chip_placed,
    ChipRemoved: _chip_removed,
    CardDiscarded: _card_discarded,
    TurnPassed: _turn_passed,
    SequenceMade: _sequence_made,
    TurnEnded: _turn_ended,
    GameOver: _game_over,
}

_REDUCER: Reducer[SequenceState, SequenceEvent] = Reducer(_HANDLERS, Phase.GAME_OVER)

"""Legality and ``step`` for classic Sequence (RULES.md §3).

``step`` validates an action against the full state and produces its events, applying
each through the one reducer as it is made. Randomness comes only from the
:class:`~engine.rng.Rng` passed in: the cut for the deal, the shuffle, each reshuffle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import CELLS, CORNERS, THROUGH, WINDOW_LINE, WINDOW_START, WINDOWS, Cell
from engine.classic.board import cell_name as _cell_name
from engine.classic.cards import CODES, DECK_SIZE, FACES, JACKS, CardId, JackKind
from engine.classic.config import NoPlay
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
from engine.classic.reducer import apply
from engine.classic.state import EMPTY, Phase, SequenceState, Team, team_name
from engine.errors import IllegalActionError
from engine.rng import Rng
from engine.state import Seat, Termination
from engine.stepping import Emitter, Stepper

_Emitter = Emitter[SequenceState, SequenceEvent]


# -- the deal -------------------------------------------------------------------------------


def deal(state: SequenceState, rng: Rng, dealer: Seat | None = None) -> list[SequenceEvent]:
    """Shuffle both decks, cut for the dealer, deal clockwise from the dealer's left.

    The dealer is ``dealer`` when given (a rematch passes the deal to the left, as in
    Sequence Stacks' A26), else the table's ``dealer`` setting, else the cut: "lowest
    card deals" (§3.2) gives every seat the same chance, so it is one ``below(players)``
    drawn right after the shuffle. Each seat from the dealer's left takes its whole hand
    from the top in turn; the player on the dealer's left starts.
    """
    emit, order = _STEPPER.begin_deal(state, rng, dealer)
    if dealer is None:
        dealer = state.config.dealer
    emit(DealerCut(rng.below(state.players) if dealer is None else dealer))
    emit(DrawPileFormed(tuple(order)))
    for offset in range(1, state.players + 1):
        _draw(emit, (state.dealer + offset) % state.players, state.hand_size)
    emit(TurnStarted(state.next_seat(state.dealer)))
    return emit.events


# -- step -----------------------------------------------------------------------------------


def step(state: SequenceState, action: SequenceAction, rng: Rng) -> list[SequenceEvent]:
    """Validate ``action``, apply its consequences, return the events.

    Raises :class:`IllegalActionError` (state untouched) when the rules don't allow it.
    """
    return _STEPPER.step(state, action, rng)


def validate(state: SequenceState, action: SequenceAction) -> None:
    """Raise :class:`IllegalActionError` with the reason when ``action`` is not legal now
    (every action is the current player's)."""
    _STEPPER.validate(state, action)


def is_legal(state: SequenceState, action: SequenceAction) -> bool:
    return _STEPPER.is_legal(state, action)


def _held(state: SequenceState, seat: Seat, card: CardId) -> str:
    if type(card) is not int or not 0 <= card < DECK_SIZE:
        raise IllegalActionError(f"there is no card {card}")
    name = FACES[card].name
    if card not in state.hands[seat]:
        raise IllegalActionError(f"{name} is not in your hand")
    return name


def _space(cell: Cell) -> str:
    if type(cell) is not int or not 0 <= cell < CELLS:
        raise IllegalActionError(f"there is no board space {cell}")
    return _cell_name(cell)


def _check_exchange(state: SequenceState, action: ExchangeDeadCard) -> None:
    name = _held(state, action.seat, action.card)
    limit = state.config.dead_cards_per_turn
    if JACKS[action.card] is not JackKind.NONE:
        raise IllegalActionError(f"{name} is never dead: a jack has no space on the board")
    if not state.is_dead(CODES[action.card]):
        raise IllegalActionError(f"{name} is not dead: one of its spaces is open")
    if state.exchanges >= limit:
        raise IllegalActionError(
            "no dead-card exchange at this table" if limit == 0
            else f"only {limit} dead card{'s' if limit > 1 else ''} may be turned in per turn"
        )


def _check_place(state: SequenceState, action: PlaceChip) -> None:
    name = _held(state, action.seat, action.card)
    where = _space(action.cell)
    cell = action.cell
    jack = JACKS[action.card]
    if jack is JackKind.ONE_EYED:
        raise IllegalActionError(f"{name} removes an opponent's chip; it places none")
    if cell in CORNERS:
        raise IllegalActionError(f"{where} is a free corner: it never takes a chip")
    if jack is JackKind.NONE and cell not in state.board.spaces[CODES[action.card]]:
        first, second = state.board.spaces[CODES[action.card]]
        raise IllegalActionError(
            f"{name} goes on {_cell_name(first)} or {_cell_name(second)}, not {where}"
        )
    owner = state.chips[cell]
    if owner != EMPTY:
        raise IllegalActionError(f"{where} already holds a {team_name(owner).lower()} chip")
    if action.claim:
        if not state.config.choose_sequences:
            raise IllegalActionError("at this table the engine picks the sequences (no claim)")
        if action.claim not in _claim_options(state, cell, state.team_of(action.seat)):
            raise IllegalActionError(
                f"windows {list(action.claim)} are not a choice of sequences at {where} "
                "(the most sequences the chip makes, window numbers in ascending order)"
            )


def _check_remove(state: SequenceState, action: RemoveChip) -> None:
    name = _held(state, action.seat, action.card)
    where = _space(action.cell)
    if JACKS[action.card] is not JackKind.ONE_EYED:
        raise IllegalActionError(f"{name} is not a one-eyed jack: it can't remove a chip")
    owner = state.chips[action.cell]
    if owner == EMPTY:
        raise IllegalActionError(f"{where} holds no chip to remove")
    if owner == state.team_of(action.seat):
        raise IllegalActionError(f"{where} is your own team's chip")
    if state.locked[action.cell]:
        raise IllegalActionError(f"{where} is part of a completed sequence: it can't be removed")


def _check_no_play(state: SequenceState, seat: Seat) -> None:
    if _has_play(state, seat):
        raise IllegalActionError("you have a card you can play (or a dead card to turn in)")


def _check_discard(state: SequenceState, action: DiscardUnplayable) -> None:
    _held(state, action.seat, action.card)
    if state.config.no_play is not NoPlay.DISCARD:
        raise IllegalActionError("at this table a player who can't play passes")
    _check_no_play(state, action.seat)


def _check_pass(state: SequenceState, action: PassTurn) -> None:
    if state.config.no_play is not NoPlay.PASS:
        raise IllegalActionError("at this table a player who can't play discards a card")
    _check_no_play(state, action.seat)


_VALIDATORS: dict[type[SequenceAction], Callable[[SequenceState, Any], None]] = {
    ExchangeDeadCard: _check_exchange,
    PlaceChip: _check_place,
    RemoveChip: _check_remove,
    DiscardUnplayable: _check_discard,
    PassTurn: _check_pass,
}


# -- sequences ------------------------------------------------------------------------------


def _complete_windows(state: SequenceState, cell: Cell, team: Team) -> list[int]:
    """Windows through ``cell`` that are all ``team``'s (corners count), as if the chip
    on ``cell`` were already there, that may still register under the one-shared-space
    rule against the team's sequences."""
    chips = state.chips
    found = []
    for w in THROUGH[cell]:
        for c in WINDOWS[w]:
            if chips[c] != team and c != cell and c not in CORNERS:
                break
        else:
            found.append(w)
    if not found:
        return found  # most placements: then the team's sequences need no look
    mine = [set(s.cells) for s in state.sequences if s.team == team]
    return [w for w in found if all(len(seq.intersection(WINDOWS[w])) <= 1 for seq in mine)]


def _overlap(state: SequenceState, team: Team, windows: Iterable[int]) -> int:
    cells = [set(s.cells) for s in state.sequences if s.team == team]
    return sum(len(seq.intersection(WINDOWS[w])) for w in windows for seq in cells)


def _claim_options(state: SequenceState, cell: Cell, team: Team) -> list[tuple[int, ...]]:
    """Every largest set of new sequences a chip on ``cell`` may register (§3.4).

    Windows of different lines through one cell share only that cell, so each line is
    decided alone: two windows of a line may both count only when they share one space
    (a run of nine), else one window of the line counts. The options are the products of
    each line's largest choices, sorted.
    """
    by_line: dict[int, list[int]] = {}
    for w in _complete_windows(state, cell, team):
        by_line.setdefault(WINDOW_LINE[w], []).append(w)
    options: list[tuple[int, ...]] = [()]
    for windows in by_line.values():
        pairs: list[tuple[int, ...]] = [
            p for p in combinations(windows, 2)
            if abs(WINDOW_START[p[0]] - WINDOW_START[p[1]]) >= 4
        ]
        choices: list[tuple[int, ...]] = pairs or [(w,) for w in windows]
        options = [opt + choice for opt in options for choice in choices]
    return sorted(tuple(sorted(opt)) for opt in options)


def default_claim(state: SequenceState, cell: Cell, team: Team) -> tuple[int, ...]:
    """RULES.md §3.4 DEFAULT: as many sequences as the rule allows; among those the
    windows that overlap the team's sequences least; then the lowest start on each line."""
    options = _claim_options(state, cell, team)
    return min(
        options, key=lambda opt: (_overlap(state, team, opt), [WINDOW_START[w] for w in opt])
    )


# -- resolution -----------------------------------------------------------------------------


def _draw(emit: _Emitter, seat: Seat, count: int) -> None:
    """Draw ``count`` cards, reshuffling every discard pile when the pile runs out (§3.5;
    with two decks the discards are never all empty then, and play would go on)."""
    _STEPPER.draw(emit, seat, count)


def _discard_pool(state: SequenceState) -> list[CardId]:
    return [card for pile in state.discards for card in pile]


def _resolve_exchange(emit: _Emitter, action: ExchangeDeadCard) -> None:
    emit(DeadCardExchanged(action.seat, action.card))
    _draw(emit, action.seat, 1)


def _resolve_place(emit: _Emitter, action: PlaceChip) -> None:
    state = emit.state
    team = state.team_of(action.seat)
    claim = action.claim or default_claim(state, action.cell, team)
    emit(ChipPlaced(action.seat, action.card, action.cell))
    for w in claim:
        emit(SequenceMade(team, WINDOWS[w]))
    if state.sequence_count(team) >= state.to_win:
        emit(GameOver(Termination.WIN, team))
        return
    _finish_turn(emit, action.seat)


def _resolve_remove(emit: _Emitter, action: RemoveChip) -> None:
    emit(ChipRemoved(action.seat, action.card, action.cell))
    _finish_turn(emit, action.seat)


def _resolve_discard(emit: _Emitter, action: DiscardUnplayable) -> None:
    emit(CardDiscarded(action.seat, action.card))
    _finish_turn(emit, action.seat)


def _resolve_pass(emit: _Emitter, action: PassTurn) -> None:
    emit(TurnPassed(action.seat))
    _end_turn(emit, action.seat)


def _finish_turn(emit: _Emitter, seat: Seat) -> None:
    _draw(emit, seat, 1)
    _end_turn(emit, seat)


def _end_turn(emit: _Emitter, seat: Seat) -> None:
    state = emit.state
    emit(TurnEnded(seat))
    if state.turn >= state.config.max_turns:
        emit(GameOver(Termination.MAX_TURNS, None))
        return
    emit(TurnStarted(state.next_seat(seat)))


_RESOLVERS: dict[type[SequenceAction], Callable[[_Emitter, Any], None]] = {
    ExchangeDeadCard: _resolve_exchange,
    PlaceChip: _resolve_place,
    RemoveChip: _resolve_remove,
    DiscardUnplayable: _resolve_discard,
    PassTurn: _resolve_pass,
}


_STEPPER: Stepper[SequenceState, SequenceEvent] = Stepper(
    apply=apply,
    validators=_VALIDATORS,
    resolvers=_RESOLVERS,
    setup=Phase.SETUP,
    game_over=Phase.GAME_OVER,
    pool=_discard_pool,
    reshuffled=Reshuffled,
    drawn=CardsDrawn,
    own_turn=True,
)


# -- legal actions --------------------------------------------------------------------------


def _has_play(state: SequenceState, seat: Seat) -> bool:
    """Whether ``seat`` can place, remove, or turn in a dead card now."""
    chips = state.chips
    team = state.team_of(seat)
    can_exchange = state.exchanges < state.config.dead_cards_per_turn
    for card in state.hands[seat]:
        jack = JACKS[card]
        if jack is JackKind.NONE:
            if not state.is_dead(CODES[card]) or can_exchange:
                return True
        elif jack is JackKind.TWO_EYED:
            if any(chips[c] == EMPTY and c not in CORNERS for c in range(CELLS)):
                return True
        elif any(o != EMPTY and o != team and not state.locked[c] for c, o in enumerate(chips)):
            return True
    return False


def legal_actions(view: SequenceState, seat: Seat) -> list[SequenceAction]:
    """Every action ``seat`` may take now, from ``seat``'s own view (or the host's state).

    Each listed action is accepted by :func:`step`; no action outside the list is.
    Two copies of a card in a hand each get their own actions.
    """
    if view.phase != Phase.PLAY or seat != view.current or not 0 <= seat < view.players:
        return []
    chips = view.chips
    team = view.team_of(seat)
    spaces = view.board.spaces
    can_exchange = view.exchanges < view.config.dead_cards_per_turn
    choose = view.config.choose_sequences
    empty: list[Cell] | None = None
    removable: list[Cell] | None = None
    actions: list[SequenceAction] = []
    places, removes = _PLACES, _REMOVES

    for card in view.hands[seat]:
        jack = JACKS[card]
        key = (seat * DECK_SIZE + card) * CELLS
        if jack is JackKind.NONE:
            open_cells = [c for c in spaces[CODES[card]] if chips[c] == EMPTY]
            if not open_cells:
                if can_exchange:
                    actions.append(ExchangeDeadCard(seat, card))
                continue
        elif jack is JackKind.TWO_EYED:
            if empty is None:
                empty = [c for c in range(CELLS) if chips[c] == EMPTY and c not in CORNERS]
            open_cells = empty
        else:
            if removable is None:
                locked = view.locked
                removable = [
                    c for c, o in enumerate(chips) if o != EMPTY and o != team and not locked[c]
                ]
            actions.extend([removes.get(key + c) or _remove(seat, card, c) for c in removable])
            continue
        if not choose:
            actions.extend([places.get(key + c) or _place(seat, card, c) for c in open_cells])
            continue
        for cell in open_cells:
            actions.append(places.get(key + cell) or _place(seat, card, cell))
            actions.extend(
                PlaceChip(seat, card, cell, opt) for opt in _claim_options(view, cell, team) if opt
            )
    if actions:
        return actions
    if view.config.no_play is NoPlay.PASS:
        return [PassTurn(seat)]
    return [DiscardUnplayable(seat, card) for card in view.hands[seat]]


# Actions are values: the chip placements and removals without a claim, which
# legal_actions lists by the dozen at every turn, are made once each and kept (at most
# a few thousand: seats x cards x the spaces a card may take).
_PLACES: dict[int, PlaceChip] = {}
_REMOVES: dict[int, RemoveChip] = {}


def _place(seat: Seat, card: CardId, cell: Cell) -> PlaceChip:
    action = _PLACES[(seat * DECK_SIZE + card) * CELLS + cell] = PlaceChip(seat, card, cell)
    return action


def _remove(seat: Seat, card: CardId, cell: Cell) -> RemoveChip:
    action = _REMOVES[(seat * DECK_SIZE + card) * CELLS + cell] = RemoveChip(seat, card, cell)
    return action

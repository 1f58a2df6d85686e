"""Legality and ``step``: validate an action against the state and produce its events.

``step`` advances the state it is given: every event it produces goes through the one
reducer (:func:`engine.reducer.apply`) as it is made, so later events are computed from
the state the earlier ones left. Randomness comes only from the :class:`Rng` passed in.
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
from engine.cards import (
    CARDS_BY_KIND,
    COLOUR,
    DECK_SIZE,
    FACES,
    KIND,
    RANK,
    CardId,
    Colour,
    Kind,
)
from engine.config import SkipStacking, SkipTiming, StalemateResult, StealChipWin
from engine.errors import IllegalActionError
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
from engine.reducer import apply
from engine.rng import Rng
from engine.state import NEW_PILE, Phase, PileId, Seat, State, Termination, Zone
from engine.stepping import Emitter, Stepper

_Emitter = Emitter[State, Event]


# -- the deal -------------------------------------------------------------------------------


def deal(state: State, rng: Rng, dealer: Seat | None = None) -> list[Event]:
    """Shuffle, deal ``hand_size`` cards to each seat (seat 0 first), start the first turn.

    A26: the dealer is ``dealer`` when given (a rematch passes the deal to the left),
    else drawn from ``rng`` right after the shuffle, so that it is as fair as the deal
    and re-derived from the same seed. The player left of the dealer starts, unless the
    table sets ``first_player``.
    """
    emit, order = _STEPPER.begin_deal(state, rng, dealer)
    if dealer is None:
        dealer = rng.below(state.players)
    emit(DrawPileFormed(tuple(order)))
    for seat in range(state.players):
        _draw(emit, seat, state.config.hand_size)
    first = state.config.first_player
    emit(TurnStarted((dealer + 1) % state.players if first is None else first))
    return emit.events


# -- step -----------------------------------------------------------------------------------


def step(state: State, action: Action, rng: Rng) -> list[Event]:
    """Validate ``action`` against the full state, apply its consequences, return the events.

    Raises :class:`IllegalActionError` (state untouched) when the rules don't allow it.
    """
    return _STEPPER.step(state, action, rng)


def step_trusted(state: State, action: Action, rng: Rng) -> None:
    """:func:`step` without the legality check and without the event list, for searches
    that only play actions :func:`legal_actions` listed for that very state."""
    _STEPPER.step_trusted(state, action, rng)


def validate(state: State, action: Action) -> None:
    """Raise :class:`IllegalActionError` with the reason when ``action`` is not legal now."""
    _STEPPER.validate(state, action)


def is_legal(state: State, action: Action) -> bool:
    return _STEPPER.is_legal(state, action)


def _name(card: CardId) -> str:
    if not 0 <= card < DECK_SIZE:
        raise IllegalActionError(f"there is no card {card}")
    return KIND_NAMES[card]


KIND_NAMES: tuple[str, ...] = tuple(f.name for f in FACES)
_FIRST: dict[Kind, CardId] = {kind: cards[0] for kind, cards in CARDS_BY_KIND.items()}


def _own_turn(state: State, seat: Seat) -> None:
    if state.phase == Phase.BLOCK_WINDOW:
        raise IllegalActionError("wait: a Block window is open")
    if seat != state.current:
        raise IllegalActionError(f"it is seat {state.current}'s turn, not seat {seat}'s")


def _source(state: State, seat: Seat, card: CardId) -> Zone:
    """Where ``seat`` can play ``card`` from: the hand or the discard top."""
    name = _name(card)
    if card in state.hands[seat]:
        return Zone.HAND
    if state.discard_top(seat) == card:
        return Zone.DISCARD
    raise IllegalActionError(f"{name} is not in your hand or on top of your discard pile")


def _check_play_limit(state: State) -> None:
    if state.plays_this_turn >= state.config.max_plays_per_turn:
        raise IllegalActionError(
            f"{state.config.max_plays_per_turn} plays this turn: discard to end it"
        )


def _check_play_card(state: State, action: PlayCard) -> None:
    _own_turn(state, action.seat)
    card = action.card
    _source(state, action.seat, card)
    name = KIND_NAMES[card]
    kind = KIND[card]
    if kind is not Kind.NUMBER and kind is not Kind.WILD:
        raise IllegalActionError(f"{name} is an action card, not a card for a pile")
    _check_play_limit(state)
    colour = COLOUR[card]
    assert colour is not None
    if action.pile == NEW_PILE:
        if kind is Kind.NUMBER and RANK[card] != 1:
            raise IllegalActionError(f"{name} can't start a pile: a pile starts with a 1 or a wild")
        if not state.can_open_pile(colour):
            limit = state.config.max_open_piles_per_colour
            raise IllegalActionError(
                f"{name} can't start a pile: {limit} {colour.title.lower()} piles are already open"
            )
        return
    pile = state.pile(action.pile)
    if pile is None:
        raise IllegalActionError(f"there is no open pile {action.pile}")
    if pile.colour != colour:
        raise IllegalActionError(f"{name} can't go on {pile.label()}: colours differ")
    if kind is Kind.NUMBER and RANK[card] != pile.height + 1:
        raise IllegalActionError(f"{name} can't go on {pile.label()}: it needs a {pile.height + 1}")


def _check_action_card(state: State, seat: Seat, card: CardId, kind: Kind) -> Zone:
    _own_turn(state, seat)
    zone = _source(state, seat, card)
    if KIND[card] is not kind:
        raise IllegalActionError(f"{KIND_NAMES[card]} is not a {FACES[_FIRST[kind]].name}")
    _check_play_limit(state)
    return zone


def _check_skip(state: State, action: PlaySkip) -> None:
    _check_action_card(state, action.seat, action.card, Kind.SKIP)


def _check_reverse(state: State, action: PlayReverse) -> None:
    _check_action_card(state, action.seat, action.card, Kind.REVERSE)


def _check_target(state: State, seat: Seat, target: Seat) -> None:
    if not 0 <= target < state.players:
        raise IllegalActionError(f"there is no seat {target} to target")
    if target == seat:
        raise IllegalActionError("choose an opponent, not yourself")


def _check_steal_card(state: State, action: StealCard) -> None:
    zone = _check_action_card(state, action.seat, action.card, Kind.STEAL_CARD)
    _check_target(state, action.seat, action.target)
    limit = state.config.hand_limit
    hand_after = len(state.hands[action.seat]) - (zone == Zone.HAND)
    if limit is not None and hand_after >= limit:
        raise IllegalActionError(f"Steal a Card: your hand is at the limit of {limit} cards")
    if action.zone == Zone.DISCARD:
        if not state.discards[action.target]:
            raise IllegalActionError(f"seat {action.target}'s discard pile is empty")
    elif not state.config.steal_card_from_hand:
        raise IllegalActionError("Steal a Card takes only a discard top at this table")
    elif not state.hands[action.target]:
        raise IllegalActionError(f"seat {action.target} has no cards in hand")


def _check_steal_chip(state: State, action: StealChip) -> None:
    _check_action_card(state, action.seat, action.card, Kind.STEAL_CHIP)
    _check_target(state, action.seat, action.target)
    colour = Colour(action.colour)
    if state.chips[action.target][colour] <= 0:
        raise IllegalActionError(f"seat {action.target} has no {colour.title.lower()} chip")
    if state.config.steal_chip_win == StealChipWin.ILLEGAL:
        red, blue = state.chips[action.seat]
        red += colour == Colour.RED
        blue += colour == Colour.BLUE
        if state.meets_win(red, blue):
            raise IllegalActionError(
                f"Steal a Chip can't be used to win ({red} red and {blue} blue would win)"
            )


def _check_discard(state: State, action: Discard) -> None:
    _own_turn(state, action.seat)
    name = _name(action.card)
    if action.card not in state.hands[action.seat]:
        raise IllegalActionError(f"{name} is not in your hand: you discard from your hand")
    _check_forced_play(state, action.seat)


def _check_end_turn(state: State, action: EndTurn) -> None:
    _own_turn(state, action.seat)
    if state.hands[action.seat]:
        raise IllegalActionError("discard a card to end your turn")
    _check_forced_play(state, action.seat)


def _check_forced_play(state: State, seat: Seat) -> None:
    if (
        state.config.forced_play
        and state.plays_this_turn < state.config.max_plays_per_turn
        and any(isinstance(a, PlayCard) for a in legal_actions(state, seat))
    ):
        raise IllegalActionError("you must keep playing while a card fits a pile")


def _open_window(state: State, seat: Seat) -> None:
    window = state.window
    if state.phase != Phase.BLOCK_WINDOW or window is None:
        raise IllegalActionError("there is no completed pile to block")
    if seat == window.seat:
        raise IllegalActionError("you can't block your own sequence")
    if seat in window.passed:
        raise IllegalActionError("you already passed on this Block")


def _check_block(state: State, action: Block) -> None:
    _open_window(state, action.seat)
    name = _name(action.card)
    if KIND[action.card] is not Kind.BLOCK:
        raise IllegalActionError(f"{name} is not a Block")
    if action.card in state.hands[action.seat]:
        return
    if state.config.block_from_discard and state.discard_top(action.seat) == action.card:
        return
    raise IllegalActionError("you don't hold that Block in your hand")


def _check_pass_block(state: State, action: PassBlock) -> None:
    _open_window(state, action.seat)
    assert state.window is not None
    if action.seat not in state.window.eligible:
        raise IllegalActionError("you can't block this sequence")


def _check_close(state: State, action: CloseBlockWindow) -> None:
    if state.phase != Phase.BLOCK_WINDOW:
        raise IllegalActionError("there is no Block window to close")


_VALIDATORS: dict[type[Action], Callable[[State, Any], None]] = {
    PlayCard: _check_play_card,
    PlaySkip: _check_skip,
    PlayReverse: _check_reverse,
    StealCard: _check_steal_card,
    StealChip: _check_steal_chip,
    Discard: _check_discard,
    EndTurn: _check_end_turn,
    Block: _check_block,
    PassBlock: _check_pass_block,
    CloseBlockWindow: _check_close,
}


# -- resolution -----------------------------------------------------------------------------


def _draw(emit: _Emitter, seat: Seat, count: int) -> None:
    """Draw ``count`` cards, reshuffling the pool when the pile runs out (§1.8); A17:
    with nothing to draw, play goes on."""
    _STEPPER.draw(emit, seat, count)


def _after_hand_play(emit: _Emitter, seat: Seat, zone: Zone) -> None:
    """A15: a play from the hand that empties it refills it at once."""
    if zone == Zone.HAND and not emit.state.hands[seat]:
        _draw(emit, seat, emit.state.config.hand_size)


def _zone_of(state: State, seat: Seat, card: CardId) -> Zone:
    return Zone.HAND if card in state.hands[seat] else Zone.DISCARD


def _resolve_play_card(emit: _Emitter, action: PlayCard) -> None:
    state = emit.state
    seat = action.seat
    zone = _zone_of(state, seat, action.card)
    opens = action.pile == NEW_PILE
    pile_id = state.next_pile_id if opens else action.pile
    emit(CardPlayed(seat, action.card, zone, pile_id, opens))
    pile = state.pile(pile_id)
    assert pile is not None
    if pile.height < 5:
        _after_hand_play(emit, seat, zone)
        return
    refill = zone == Zone.HAND and not state.hands[seat]
    emit(PileCompleted(seat, pile_id, refill, _eligible_blockers(state, seat)))
    assert state.window is not None
    if not state.window.eligible:
        _close_window(emit, blocker=None)


def _eligible_blockers(state: State, completer: Seat) -> tuple[Seat, ...]:
    """Opponents who might hold a Block, judged on public information only."""
    blocks = CARDS_BY_KIND[Kind.BLOCK]
    in_deck = [c for c in blocks if c in state.deck]
    seen = sum(1 for c in state.special_discard if KIND[c] is Kind.BLOCK)
    for pile in state.discards:
        seen += sum(1 for c in pile if KIND[c] is Kind.BLOCK)
    from_discard = state.config.block_from_discard
    hidden_blocks = len(in_deck) - seen > 0
    eligible = []
    for seat in range(state.players):
        if seat == completer:
            continue
        top = state.discard_top(seat)
        if (hidden_blocks and state.hands[seat]) or (
            from_discard and top is not None and KIND[top] is Kind.BLOCK
        ):
            eligible.append(seat)
    return tuple(eligible)


def _close_window(emit: _Emitter, blocker: Block | None) -> None:
    state = emit.state
    window = state.window
    assert window is not None
    seat, pile = window.seat, window.pile
    if blocker is not None:
        zone = _zone_of(state, blocker.seat, blocker.card)
        emit(PileBlocked(blocker.seat, blocker.card, zone, pile.id))
    else:
        emit(PileCleared(pile.id))
        colour = pile.colour
        if state.supply[colour] > 0 or state.config.unlimited_chips:
            emit(ChipAwarded(seat, colour))
            red, blue = state.chips[seat]
            if state.meets_win(red, blue):
                emit(GameOver(Termination.WIN, seat))
                return
    if window.refill:
        _draw(emit, seat, state.config.hand_size)


def _resolve_action_card(emit: _Emitter, action: PlaySkip | PlayReverse) -> None:
    zone = _zone_of(emit.state, action.seat, action.card)
    emit(ActionPlayed(action.seat, action.card, zone))
    _after_hand_play(emit, action.seat, zone)


def _resolve_steal_card(emit: _Emitter, action: StealCard) -> None:
    state = emit.state
    zone = _zone_of(state, action.seat, action.card)
    emit(ActionPlayed(action.seat, action.card, zone))
    # A15: played as the last hand card, it refills the hand first (draw 5), then the
    # stolen card joins it.
    _after_hand_play(emit, action.seat, zone)
    if action.zone == Zone.DISCARD:
        taken = state.discards[action.target][-1]
    else:
        hand = state.hands[action.target]
        taken = hand[emit.rng.below(len(hand))]
    emit(CardTaken(action.seat, action.target, action.zone, taken))


def _resolve_steal_chip(emit: _Emitter, action: StealChip) -> None:
    state = emit.state
    zone = _zone_of(state, action.seat, action.card)
    emit(ActionPlayed(action.seat, action.card, zone))
    emit(ChipTaken(action.seat, action.target, action.colour))
    _after_hand_play(emit, action.seat, zone)


def _resolve_discard(emit: _Emitter, action: Discard) -> None:
    emit(CardDiscarded(action.seat, action.card))
    _end_turn(emit, action.seat)


def _resolve_end_turn(emit: _Emitter, action: EndTurn) -> None:
    _end_turn(emit, action.seat)


def _resolve_block(emit: _Emitter, action: Block) -> None:
    _close_window(emit, blocker=action)


def _resolve_pass_block(emit: _Emitter, action: PassBlock) -> None:
    emit(BlockPassed(action.seat))
    window = emit.state.window
    assert window is not None
    if all(seat in window.passed for seat in window.eligible):
        _close_window(emit, blocker=None)


def _resolve_close(emit: _Emitter, action: CloseBlockWindow) -> None:
    _close_window(emit, blocker=None)


_RESOLVERS: dict[type[Action], Callable[[_Emitter, Any], None]] = {
    PlayCard: _resolve_play_card,
    PlaySkip: _resolve_action_card,
    PlayReverse: _resolve_action_card,
    StealCard: _resolve_steal_card,
    StealChip: _resolve_steal_chip,
    Discard: _resolve_discard,
    EndTurn: _resolve_end_turn,
    Block: _resolve_block,
    PassBlock: _resolve_pass_block,
    CloseBlockWindow: _resolve_close,
}


# -- end of turn ----------------------------------------------------------------------------


def skip_targets(state: State, seat: Seat) -> tuple[Seat, ...]:
    """Who gets a skip token for the skip effects of ``seat``'s turn (A13, A14)."""
    skips = state.skips_this_turn
    if not skips:
        return ()
    cfg = state.config
    n = state.players

    def order(direction: int) -> list[Seat]:
        return [(seat + direction * i) % n for i in range(1, n)]

    def direction_of(played: int) -> int:
        return played if cfg.skip_timing == SkipTiming.AT_PLAY else state.direction

    if cfg.skip_stacking == SkipStacking.REDUNDANT:
        return (order(direction_of(skips[0]))[0],)
    if cfg.skip_stacking == SkipStacking.NEXT_LOSES_K:
        return (order(direction_of(skips[0]))[0],) * len(skips)
    given: dict[Seat, int] = dict.fromkeys(range(n), 0)
    targets: list[Seat] = []
    for played in skips:
        candidates = order(direction_of(played))
        fewest = min(given[s] for s in candidates)
        target = next(s for s in candidates if given[s] == fewest)
        given[target] += 1
        targets.append(target)
    return tuple(targets)


def _end_turn(emit: _Emitter, seat: Seat) -> None:
    state = emit.state
    missing = state.config.hand_size - len(state.hands[seat])
    if missing > 0:
        _draw(emit, seat, missing)
    targets = skip_targets(state, seat)
    if targets:
        emit(SkipsGiven(targets))
    emit(TurnEnded(seat))
    _next_turn(emit)


def _next_turn(emit: _Emitter) -> None:
    state = emit.state
    seat = state.current
    while True:
        if _check_stalemate(emit):
            return
        if state.turn >= state.config.max_turns:
            emit(GameOver(Termination.MAX_TURNS, None))
            return
        seat = state.next_seat(seat)
        if state.skip_tokens[seat] > 0:
            emit(TurnSkipped(seat))
            continue
        emit(TurnStarted(seat))
        return


def _check_stalemate(emit: _Emitter) -> bool:
    state = emit.state
    if state.idle_turns < state.players:
        return False
    winner = None
    if state.config.stalemate_result == StalemateResult.MOST_CHIPS:
        totals = [sum(c) for c in state.chips]
        best = max(totals)
        if totals.count(best) == 1:
            winner = totals.index(best)
    emit(GameOver(Termination.STALEMATE, winner))
    return True


_STEPPER: Stepper[State, Event] = Stepper(
    apply=apply,
    validators=_VALIDATORS,
    resolvers=_RESOLVERS,
    setup=Phase.SETUP,
    game_over=Phase.GAME_OVER,
    pool=State.reshuffle_pool,
    reshuffled=Reshuffled,
    drawn=CardsDrawn,
    unseated=(CloseBlockWindow,),
)


# -- legal actions --------------------------------------------------------------------------


def legal_actions(view: State, seat: Seat) -> list[Action]:
    """Every action ``seat`` may take now, computed from ``seat``'s own view (or the host's).

    Each action in the list is accepted by :func:`step`; no action outside it is.
    (``CloseBlockWindow`` is the host's and never listed.)
    """
    phase = view.phase
    if phase == _BLOCK_WINDOW:
        return _legal_in_window(view, seat)
    if phase != _PLAY or seat != view.current:
        return []
    cfg = view.config
    hand = view.hands[seat]
    actions: list[Action] = []
    if view.plays_this_turn < cfg.max_plays_per_turn:
        discard = view.discards[seat]
        top = discard[-1] if discard else None
        sources = hand if top is None else [*hand, top]
        # Which piles take which card: by colour for wilds, by colour and rank for numbers
        # (the key _NEED gives a number card).
        by_colour: tuple[list[PileId], list[PileId]] = ([], [])
        by_need: dict[int, list[PileId]] = {}
        for pile in view.piles:
            colour = pile.colour
            by_colour[colour].append(pile.id)
            need = colour * 8 + len(pile.cards) + 1
            ids = by_need.get(need)
            if ids is None:
                by_need[need] = [pile.id]
            else:
                ids.append(pile.id)
        limit = cfg.max_open_piles_per_colour
        can_open = (not limit or len(by_colour[0]) < limit, not limit or len(by_colour[1]) < limit)
        played = _PLAYS[seat]
        for card in sources:
            kind = KIND[card]
            if kind is _NUMBER:
                plays = played[card]
                for pile_id in by_need.get(_NEED[card], ()):
                    action = plays.get(pile_id)
                    if action is None:
                        action = _new_play(plays, seat, card, pile_id)
                    actions.append(action)
                if _OPENS[card] and can_open[_COLOUR_OF[card]]:
                    actions.append(plays[NEW_PILE])
            elif kind is _WILD:
                side = _COLOUR_OF[card]
                plays = played[card]
                for pile_id in by_colour[side]:
                    action = plays.get(pile_id)
                    if action is None:
                        action = _new_play(plays, seat, card, pile_id)
                    actions.append(action)
                if can_open[side]:
                    actions.append(plays[NEW_PILE])
            elif kind is _SKIP:
                actions.append(_SKIPS[seat][card])
            elif kind is _REVERSE:
                actions.append(_REVERSES[seat][card])
            elif kind is _STEAL_CARD:
                _legal_steal_card(view, seat, card, card != top, actions)
            elif kind is _STEAL_CHIP:
                _legal_steal_chip(view, seat, card, actions)
    if cfg.forced_play and any(isinstance(a, PlayCard) for a in actions):
        return actions
    if hand:
        discards = _DISCARDS[seat]
        actions.extend([discards[card] for card in hand])
    else:
        actions.append(EndTurn(seat))
    return actions


_BLOCK_WINDOW, _PLAY = Phase.BLOCK_WINDOW, Phase.PLAY
_NUMBER, _WILD, _SKIP, _REVERSE, _STEAL_CARD, _STEAL_CHIP = (
    Kind.NUMBER, Kind.WILD, Kind.SKIP, Kind.REVERSE, Kind.STEAL_CARD, Kind.STEAL_CHIP
)
_COLOUR_OF: tuple[int, ...] = tuple(-1 if c is None else int(c) for c in COLOUR)
_NEED: tuple[int, ...] = tuple(
    colour * 8 + rank if kind is Kind.NUMBER else -1
    for colour, rank, kind in zip(_COLOUR_OF, RANK, KIND, strict=True)
)
"""A number card's key among the piles it fits: its colour and rank, as the piles' key
in ``legal_actions`` is their colour and the rank they need next."""
_OPENS: tuple[bool, ...] = tuple(
    kind is Kind.NUMBER and rank == 1 for rank, kind in zip(RANK, KIND, strict=True)
)

# Actions are values: the ones that name only a seat and a card are made once, up front
# (legal_actions lists every discard at every decision; building them was its main cost).
_SEATS = range(6)
_DISCARDS = tuple(tuple(Discard(s, c) for c in range(DECK_SIZE)) for s in _SEATS)
_PLAYS: tuple[tuple[dict[PileId, PlayCard], ...], ...] = tuple(
    tuple({NEW_PILE: PlayCard(s, c, NEW_PILE)} for c in range(DECK_SIZE)) for s in _SEATS
)
"""``_PLAYS[seat][card][pile]``: each play made once, the first time it is legal (pile ids
count up within a game and start again at 0 in the next; only the first
:data:`_KEPT_PILES` are kept, so this stays small)."""
_KEPT_PILES = 512
"""Plays on piles with lower ids are kept (a game of thousands of turns opens more)."""


def _new_play(plays: dict[PileId, PlayCard], seat: Seat, card: CardId, pile: PileId) -> PlayCard:
    action = PlayCard(seat, card, pile)
    if pile < _KEPT_PILES:
        plays[pile] = action
    return action


_PASSES = tuple(PassBlock(s) for s in _SEATS)
_BLOCKS = {s: {c: Block(s, c) for c in CARDS_BY_KIND[Kind.BLOCK]} for s in _SEATS}
_SKIPS = {s: {c: PlaySkip(s, c) for c in CARDS_BY_KIND[Kind.SKIP]} for s in _SEATS}
_REVERSES = {s: {c: PlayReverse(s, c) for c in CARDS_BY_KIND[Kind.REVERSE]} for s in _SEATS}


def _legal_in_window(view: State, seat: Seat) -> list[Action]:
    window = view.window
    if window is None or not 0 <= seat < view.players or seat == window.seat or (
        seat in window.passed
    ):
        return []
    blocks = _BLOCKS[seat]
    actions: list[Action] = [blocks[c] for c in view.hands[seat] if KIND[c] is Kind.BLOCK]
    top = view.discard_top(seat)
    if view.config.block_from_discard and top is not None and KIND[top] is Kind.BLOCK:
        actions.append(blocks[top])
    if seat in window.eligible:
        actions.append(_PASSES[seat])
    return actions


def _legal_steal_card(
    view: State, seat: Seat, card: CardId, from_hand: bool, out: list[Action]
) -> None:
    limit = view.config.hand_limit
    if limit is not None and len(view.hands[seat]) - from_hand >= limit:
        return
    from_hands = view.config.steal_card_from_hand
    for target in range(view.players):
        if target == seat:
            continue
        if view.discards[target]:
            out.append(StealCard(seat, card, target, Zone.DISCARD))
        if from_hands and view.hands[target]:
            out.append(StealCard(seat, card, target, Zone.HAND))


def _legal_steal_chip(view: State, seat: Seat, card: CardId, out: list[Action]) -> None:
    red, blue = view.chips[seat]
    guard = view.config.steal_chip_win == StealChipWin.ILLEGAL
    for target in range(view.players):
        if target == seat:
            continue
        chips = view.chips[target]
        for colour in (Colour.RED, Colour.BLUE):
            if chips[colour] <= 0:
                continue
            if guard and view.meets_win(red + (colour == 0), blue + (colour == 1)):
                continue
            out.append(StealChip(seat, card, target, colour))


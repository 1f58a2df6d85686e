"""Engine properties over seeded games at 2-6 players: apply_checked: corrupted, wrong and
fuzzed events are rejected, the state unchanged.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import CARDS_BY_KIND, COLOUR, DECK_SIZE, HIDDEN, KIND, RANK, CardId, Colour, Kind
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
from engine.invariants import check_invariants
from engine.reducer import apply_checked
from engine.state import HOST, NEW_PILE, SPECTATOR, Audience, Phase, State, Termination, Zone
from engine.views import view_for
from tests.engine.gameplay import (
    Table,
    any_record,
    card_zone_problems,
    chip_problems,
    choose,
    new_game,
    play,
    table_pile_problems,
)
from tests.engine.seeded import SOAK, completing_pile, seeded_games

# -- 10. apply_checked rejects corrupted events --------------------------------------------------


def _not_in(cards: list[CardId], kinds: tuple[Kind, ...], exclude: set[CardId]) -> CardId:
    """A card of one of ``kinds`` that is not in ``exclude`` (there always is one)."""
    return next(c for kind in kinds for c in CARDS_BY_KIND[kind] if c not in exclude)


def corrupted_events(state: State) -> list[Event]:
    """Events that can't follow ``state``, detectable with what ``state``'s audience knows."""
    n = state.players
    cur = state.current
    other = (cur + 1) % n
    audience = state.audience
    sees_all = audience == HOST
    events: list[Event] = [
        DrawPileFormed(tuple(state.deck)),
        CardsDrawn(n, (0,)),
        CardsDrawn(-1, (0,)),
        CardsDrawn(cur, ()),
        CardsDrawn(cur, (0,) * (len(state.draw_pile) + 1)),
        CardPlayed(n, _not_in([], (Kind.WILD,), set()), Zone.HAND, NEW_PILE, True),
        CardPlayed(cur, HIDDEN, Zone.HAND, state.next_pile_id, True),
        CardPlayed(cur, DECK_SIZE, Zone.HAND, state.next_pile_id, True),
        CardPlayed(cur, 2**31 - 1, Zone.HAND, state.next_pile_id, True),
        ActionPlayed(cur, CARDS_BY_KIND[Kind.NUMBER][0], Zone.HAND),
        ActionPlayed(cur, CARDS_BY_KIND[Kind.BLOCK][0], Zone.HAND),
        ActionPlayed(cur, HIDDEN, Zone.HAND),
        CardTaken(cur, cur, Zone.DISCARD, 0),
        CardTaken(cur, n, Zone.HAND, 0),
        CardTaken(n, cur, Zone.HAND, 0),
        ChipAwarded(n, Colour.RED),
        SkipsGiven((cur, n)),
        GameOver(Termination.WIN, n),
        TurnStarted(n),
        TurnSkipped(n),
        TurnEnded(n),
        CardDiscarded(n, 0),
        PileCompleted(cur, 10**6, False, ()),
        PileCleared(10**6),
        PileBlocked(other, CARDS_BY_KIND[Kind.BLOCK][0], Zone.HAND, 10**6),
        Reshuffled((0,) * (len(state.reshuffle_pool()) + 1)),
    ]
    if state.draw_pile:
        events.append(Reshuffled(tuple(state.reshuffle_pool())))
    for target in range(n):
        for colour in Colour:
            if state.chips[target][colour] == 0 and target != cur:
                events.append(ChipTaken(cur, target, colour))
        top = state.discard_top(target)
        wrong_top = _not_in([], (Kind.NUMBER,), {top} if top is not None else set())
        if target != cur:
            events.append(CardTaken(cur, target, Zone.DISCARD, wrong_top))
        if state.skip_tokens[target] == 0:
            events.append(TurnSkipped(target))
    for colour in Colour:
        if state.supply[colour] == 0 and not state.config.unlimited_chips:
            events.append(ChipAwarded(cur, colour))
    if state.phase == Phase.PLAY:
        for pile in state.piles:
            if pile.height < 5:
                events.append(PileCompleted(cur, pile.id, False, ()))
        events += [
            CardPlayed(other, CARDS_BY_KIND[Kind.WILD][0], Zone.HAND, state.next_pile_id, True),
            CardDiscarded(other, 0),
            TurnEnded(other),
            PileCleared(state.next_pile_id - 1),
            BlockPassed(other),
            PileBlocked(other, CARDS_BY_KIND[Kind.BLOCK][0], Zone.HAND, state.next_pile_id - 1),
        ]
        if sees_all or audience == cur:
            held = set(state.hands[cur]) | set(state.discards[cur][-1:])
            opener = _not_in([], (Kind.WILD,), held)
            events += [
                CardPlayed(cur, opener, Zone.HAND, state.next_pile_id, True),
                CardPlayed(cur, opener, Zone.DISCARD, state.next_pile_id, True),
                CardDiscarded(cur, _not_in([], (Kind.NUMBER,), held)),
            ]
        if sees_all and state.draw_pile:
            top = state.draw_pile[-1]
            events.append(CardsDrawn(cur, (_not_in([], (Kind.NUMBER,), {top}),)))
    if state.phase == Phase.BLOCK_WINDOW:
        window = state.window
        assert window is not None
        events += [
            TurnStarted(cur),
            CardPlayed(cur, CARDS_BY_KIND[Kind.WILD][0], Zone.HAND, state.next_pile_id, True),
            PileCleared(window.pile.id + 1),
            PileBlocked(window.seat, CARDS_BY_KIND[Kind.BLOCK][0], Zone.HAND, window.pile.id),
            PileBlocked(other, CARDS_BY_KIND[Kind.NUMBER][0], Zone.HAND, window.pile.id),
        ]
        events += [BlockPassed(s) for s in range(n) if s not in window.eligible]
    return events


def check_corruption(table: Table) -> None:
    if len(table.actions) % 3 and not table.over:
        return
    host = table.state
    targets: list[State] = [host, *table.views]
    if table.spectator is not None:
        targets.append(table.spectator)
    for state in targets:
        before = state.copy()
        for event in corrupted_events(state):
            try:
                apply_checked(state, event)
            except InvalidEventError:
                pass
            else:
                raise AssertionError(f"{table.where()}: audience {state.audience} took {event}")
            assert state == before, f"{table.where()}: rejected {event} changed the state"


def run_corruption(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True)
    play(table, rng, on_state=check_corruption)


@seeded_games(25)
def test_apply_checked_rejects_corrupted_events_unchanged(seed: int, players: int) -> None:
    run_corruption(seed, players)


@pytest.mark.slow
@seeded_games(25 * SOAK)
def test_apply_checked_rejects_corrupted_events_unchanged_soak(seed: int, players: int) -> None:
    run_corruption(seed, players)


# -- 10b. events apply_checked should reject but takes (engine bugs) -----------------------------


def game_state(seed: int, players: int, wanted: Callable[[State], bool]) -> State:
    """The first decision point of a DEFAULT-rules property game where ``wanted`` holds."""
    table, rng = new_game(seed, players, default_config=True)
    while not wanted(table.state):
        assert not table.over, f"seed={seed} players={players}: no such state"
        table.act(choose(table, rng, 80))
    return table.state


def in_play(state: State) -> bool:
    return state.phase == Phase.PLAY and bool(state.piles) and len(state.hands[state.current]) > 1


def in_window(state: State) -> bool:
    return state.phase == Phase.BLOCK_WINDOW


def a_state(test: Callable[[State], bool], where: Callable[[State], bool] = in_play) -> State:
    """A host state where ``where`` and ``test`` hold, from the first game that has one."""
    for seed in range(200):
        state = game_state(seed, 3, lambda s: where(s) or s.outcome is not None)
        if state.outcome is None and test(state):
            return state
    raise AssertionError("no such state in 200 games")


def wrong_colour(state: State) -> Event | None:
    """A wild onto a pile of the other colour."""
    for pile in state.piles:
        for card in state.hands[state.current]:
            if KIND[card] is Kind.WILD and COLOUR[card] != pile.colour:
                return CardPlayed(state.current, card, Zone.HAND, pile.id, False)
    return None


def wrong_rank(state: State) -> Event | None:
    """A number of the pile's colour that is not the number it needs."""
    for pile in state.piles:
        for card in state.hands[state.current]:
            if (
                KIND[card] is Kind.NUMBER
                and COLOUR[card] == pile.colour
                and RANK[card] != pile.height + 1
            ):
                return CardPlayed(state.current, card, Zone.HAND, pile.id, False)
    return None


def wrong_opener(state: State) -> Event | None:
    """A new pile opened with a 2, 3, 4 or 5."""
    for card in state.hands[state.current]:
        if KIND[card] is Kind.NUMBER and RANK[card] > 1:
            return CardPlayed(state.current, card, Zone.HAND, state.next_pile_id, True)
    return None


def hidden_discard(state: State) -> Event | None:
    return CardDiscarded(state.current, HIDDEN)


def hidden_steal(state: State) -> Event | None:
    target = (state.current + 1) % state.players
    return CardTaken(state.current, target, Zone.HAND, HIDDEN) if state.hands[target] else None


def blind_block(state: State) -> Event | None:
    assert state.window is not None
    seat = next((s for s in state.window.eligible if state.hands[s]), None)
    return None if seat is None else PileBlocked(seat, HIDDEN, Zone.HAND, state.window.pile.id)


def game_over(state: State) -> Event | None:
    return GameOver(Termination.STALEMATE, None)


def bad_event_cases() -> list[Any]:
    """(audience, how to make the event) pairs the reducer takes although they can't happen."""
    view, turn = SPECTATOR, in_play
    return [
        pytest.param(HOST, wrong_colour, turn, id="host-CardPlayed-wild-onto-other-colour"),
        pytest.param(HOST, wrong_rank, turn, id="host-CardPlayed-number-out-of-sequence"),
        pytest.param(HOST, wrong_opener, turn, id="host-CardPlayed-opens-pile-with-a-2-to-5"),
        pytest.param(HOST, hidden_discard, turn, id="host-CardDiscarded-HIDDEN"),
        pytest.param(HOST, hidden_steal, turn, id="host-CardTaken-HIDDEN"),
        pytest.param(view, lambda s: CardDiscarded(s.current, HIDDEN), turn, id="view-discard-HID"),
        pytest.param(view, lambda s: CardDiscarded(s.current, 500), turn, id="view-discard-500"),
        pytest.param(view, lambda s: CardsDrawn(s.current, (500,)), turn, id="view-draw-500"),
        pytest.param(0, lambda s: CardsDrawn(0, (HIDDEN,)), turn, id="own-view-draws-HIDDEN"),
        pytest.param(HOST, blind_block, in_window, id="host-PileBlocked-HIDDEN"),
        pytest.param(HOST, game_over, in_window, id="host-GameOver-in-window-loses-the-pile"),
    ]


@pytest.mark.parametrize(("audience", "make", "where"), bad_event_cases())
def test_apply_checked_rejects_events_that_break_the_state(
    audience: Audience,
    make: Callable[[State], Event | None],
    where: Callable[[State], bool],
) -> None:
    host = a_state(lambda s: make(s) is not None, where)
    state = host if audience == HOST else view_for(host, audience)
    event = make(host)
    assert event is not None
    before = state.copy()
    with pytest.raises(InvalidEventError):
        apply_checked(state, event)
    assert state == before


# -- 10c. fuzzed events against states reached in play -------------------------------------------

_STATES: list[State] = []


def fuzz_states() -> list[State]:
    """Host states and views from a few games: mid-turn, in Block windows, after the end."""
    if not _STATES:
        for seed, players in ((1, 2), (2, 4), (3, 6), (6, 3), (9, 5)):
            table, rng = new_game(seed, players, views=True)
            picked: list[State] = []

            def keep(t: Table, picked: list[State] = picked) -> None:
                if len(t.actions) % 7 == 0 or t.state.phase != Phase.PLAY:
                    picked.append(t.state.copy())
                    picked.extend(view.copy() for view in t.views[:2])
                    assert t.spectator is not None
                    picked.append(t.spectator.copy())

            play(table, rng, on_state=keep)
            _STATES.extend(picked)
    return _STATES


def breaks(state: State, event: Event) -> list[str]:
    """What is wrong with ``state`` after ``event`` was taken."""
    problems = check_invariants(state) + chip_problems(state)
    problems += table_pile_problems(state, completing_pile(event))
    if state.audience == HOST:
        problems += card_zone_problems(state)
    public = [*state.out_of_play, *state.special_discard, *chain(*state.discards)]
    if any(not 0 <= c < DECK_SIZE for c in public):
        problems.append("a face-up zone holds a hidden or unknown card")
    if any(not HIDDEN <= c < DECK_SIZE for c in chain(*state.hands, state.draw_pile)):
        problems.append("a card id outside the deck")
    return problems


@settings(max_examples=800, deadline=None, derandomize=True, database=None)
@given(index=st.integers(0, 10**6), event=any_record(Event))
def test_apply_checked_raises_only_invalid_event_error(index: int, event: Event) -> None:
    states = fuzz_states()
    state = states[index % len(states)].copy()
    before = state.copy()
    try:
        apply_checked(state, event)
    except InvalidEventError:
        assert state == before
    # Anything else propagates and fails the test.


@settings(
    max_examples=800,
    deadline=None,
    derandomize=True,
    database=None,
)
@given(index=st.integers(0, 10**6), event=any_record(Event))
def test_apply_checked_takes_only_events_that_keep_the_state_whole(
    index: int, event: Event
) -> None:
    states = fuzz_states()
    state = states[index % len(states)].copy()
    try:
        apply_checked(state, event)
    except InvalidEventError:
        return
    problems = breaks(state, event)
    assert not problems, f"{event} taken by audience {state.audience}: {problems}"

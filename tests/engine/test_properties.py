"""Properties of the rules engine over thousands of seeded games at 2-6 players.

Each test plays games chosen by ``(seed, players)`` (see :mod:`tests.engine.gameplay`):
a third of the seeds play the DEFAULT rules, the others random house rules; actions are
random legal ones, more or less eager to keep playing, with any seat answering a Block
window and the host closing windows early now and then. Checks run after every event
(the events of a step are replayed one by one on a shadow state and on every view) or at
every decision point. A failure names the seed and players that reproduce it.

Every test has a ``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from itertools import chain
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, CloseBlockWindow
from engine.bots.random_bot import RandomBot
from engine.cards import CARDS_BY_KIND, COLOUR, DECK_SIZE, HIDDEN, KIND, RANK, CardId, Colour, Kind
from engine.config import (
    RulesConfig,
    SkipStacking,
    SkipTiming,
    StalemateResult,
    StealChipWin,
)
from engine.errors import IllegalActionError, InvalidEventError
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
from engine.game import Game
from engine.invariants import check_invariants
from engine.reducer import apply, apply_checked
from engine.rng import Rng
from engine.rules import is_legal, legal_actions, step, validate
from engine.runner import game_seed, play_game
from engine.state import HOST, NEW_PILE, SPECTATOR, Audience, Phase, State, Termination, Zone
from engine.views import public_hash, view_for
from tests.engine.gameplay import (
    Table,
    any_record,
    card_zone_problems,
    chip_problems,
    choose,
    config_for,
    masked,
    new_game,
    plain_problems,
    play,
    random_action,
    table_pile_problems,
    table_seed,
    wire_key,
)

SOAK = 10
"""How many times more games the ``slow`` twin of each test plays."""

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
PLAYERS = st.integers(min_value=2, max_value=6)

TestFunction = Callable[..., None]


def seeded_games(count: int) -> Callable[[TestFunction], TestFunction]:
    """Run the test for ``count`` deterministic ``(seed, players)`` examples."""

    def decorate(test: TestFunction) -> TestFunction:
        return settings(
            max_examples=count,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(given(seed=SEEDS, players=PLAYERS)(test))

    return decorate


def completing_pile(event: Event) -> int | None:
    """The pile a ``CardPlayed`` may have just made 5 high (before its ``PileCompleted``)."""
    return event.pile if isinstance(event, CardPlayed) else None


# -- 1. every card in exactly one zone ---------------------------------------------------------


def check_card_zones(table: Table, event: Event) -> None:
    state = table.shadow
    problems = card_zone_problems(state)
    problems += table_pile_problems(state, completing_pile(event))
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_card_zones(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_card_zones])
    assert not card_zone_problems(table.state), table.where()
    play(table, rng)


@seeded_games(200)
def test_every_card_is_in_exactly_one_zone_after_every_event(seed: int, players: int) -> None:
    run_card_zones(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_every_card_is_in_exactly_one_zone_soak(seed: int, players: int) -> None:
    run_card_zones(seed, players)


def check_engine_invariants(table: Table, event: Event) -> None:
    problems = check_invariants(table.shadow)
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_engine_invariants(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_engine_invariants])
    play(table, rng)


@seeded_games(100)
def test_check_invariants_holds_after_every_event(seed: int, players: int) -> None:
    run_engine_invariants(seed, players)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_check_invariants_holds_after_every_event_soak(seed: int, players: int) -> None:
    run_engine_invariants(seed, players)


# -- 2. chips are conserved ------------------------------------------------------------------


def check_chips(table: Table, event: Event) -> None:
    state = table.shadow
    problems = chip_problems(state)
    if not state.config.unlimited_chips:
        total = sum(state.supply) + sum(sum(chips) for chips in state.chips)
        if total != 2 * state.config.chips_per_colour:
            problems.append(f"{total} chips in all")
    assert not problems, f"{table.where()} after {event}: {problems}"


def run_chips(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_chips])
    play(table, rng)


@seeded_games(200)
def test_chips_are_conserved_after_every_event(seed: int, players: int) -> None:
    run_chips(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_chips_are_conserved_soak(seed: int, players: int) -> None:
    run_chips(seed, players)


@pytest.mark.parametrize("players", range(2, 7))
def test_the_default_table_holds_40_chips(players: int) -> None:
    table, rng = new_game(0, players, default_config=True, event_checks=[check_chips])
    state = table.state
    assert state.supply == [20, 20]
    play(table, rng)
    assert sum(state.supply) + sum(map(sum, state.chips)) == 40


# -- the outcome and the win condition -------------------------------------------------------


def check_outcome(table: Table) -> None:
    """At every decision point and at the end: the game is over exactly when it should be."""
    state = table.state
    cfg = state.config
    outcome = state.outcome
    if outcome is None:
        assert state.turn <= cfg.max_turns, table.where()
        if cfg.steal_chip_win == StealChipWin.ILLEGAL:
            # Chips come from completions (checked at once) or steals (illegal to win).
            winners = [s for s, (r, b) in enumerate(state.chips) if state.meets_win(r, b)]
            assert not winners, f"{table.where()}: seats {winners} meet the win but play on"
        return
    if outcome.termination == Termination.WIN:
        assert outcome.winner is not None
        assert state.meets_win(*state.chips[outcome.winner]), table.where()
    elif outcome.termination == Termination.MAX_TURNS:
        assert outcome.winner is None
        assert state.turn >= cfg.max_turns, table.where()
    else:
        assert not state.draw_pile and not state.has_reshuffle_pool(), table.where()
    last = table.events[-1] if table.events else table.deal_events[-1]
    assert last == GameOver(outcome.termination, outcome.winner), table.where()


def run_outcome(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    play(table, rng, on_state=check_outcome)
    assert sum(isinstance(e, GameOver) for e in table.events) == 1, table.where()


@seeded_games(200)
def test_games_end_exactly_when_someone_wins_or_the_game_is_stuck(seed: int, players: int) -> None:
    run_outcome(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_games_end_exactly_when_they_should_soak(seed: int, players: int) -> None:
    run_outcome(seed, players)


# -- turn order, skips, Block eligibility and stalemate, by an independent model -----------------


def at(table: Table, event: Event) -> str:
    return f"{table.where()} at {event}"


class TurnModel:
    """Follows the events with its own bookkeeping of §1.5, §1.7 (A13, A14, A25), §1.11.

    It knows whose turn comes next (direction flipped by each Reverse at 3+ players, skip
    tokens handed out at the end of a turn and spent when the seat comes up), which turns
    were idle, and who may be offered a Block.
    """

    def __init__(self, table: Table) -> None:
        state = table.state
        self.n = state.players
        self.cfg = state.config
        self.direction = 1
        self.tokens = [0] * self.n
        # A26: the seat left of the dealer starts (the dealer is drawn from the seed).
        first = self.cfg.first_player
        self.current = (state.dealer + 1) % self.n if first is None else first
        assert state.current == self.current, table.where()
        self.next: int | None = None
        self.skips: list[int] = []
        self.given = False
        self.plays = 0
        self.dry_at_start = self.dry(state)  # the deal ends with the first TurnStarted
        self.idle_run = 0

    @staticmethod
    def dry(state: State) -> bool:
        return not state.draw_pile and not state.has_reshuffle_pool()

    def others(self, seat: int, direction: int) -> list[int]:
        return [(seat + direction * i) % self.n for i in range(1, self.n)]

    def skip_targets(self) -> list[int]:
        at_play = self.cfg.skip_timing == SkipTiming.AT_PLAY
        order = [self.others(self.current, d if at_play else self.direction) for d in self.skips]
        if self.cfg.skip_stacking == SkipStacking.REDUNDANT:
            return [order[0][0]]
        if self.cfg.skip_stacking == SkipStacking.NEXT_LOSES_K:
            return [order[0][0]] * len(order)
        given = [0] * self.n
        targets = []
        for candidates in order:
            fewest = min(given[s] for s in candidates)
            target = next(s for s in candidates if given[s] == fewest)
            given[target] += 1
            targets.append(target)
        return targets

    def turn_over(self, table: Table) -> None:
        idle = self.plays == 0 and self.dry_at_start and self.dry(table.shadow)
        self.idle_run = self.idle_run + 1 if idle else 0

    def __call__(self, table: Table, event: Event) -> None:
        state = table.shadow
        if isinstance(event, TurnStarted | TurnSkipped):
            if self.next is not None:
                assert event.seat == self.next, f"{at(table, event)}: seat {self.next} was next"
            assert self.idle_run < self.n, (
                f"{at(table, event)}: {self.idle_run} idle turns: a stalemate"
            )
            self.current = event.seat
            self.plays = 0
            self.dry_at_start = self.dry(state)
        if isinstance(event, TurnStarted):
            assert self.tokens[event.seat] == 0, f"{at(table, event)}: the seat holds a skip token"
            self.skips, self.given, self.next = [], False, None
        elif isinstance(event, TurnSkipped):
            assert self.tokens[event.seat] > 0, f"{at(table, event)}: the seat has no skip token"
            self.tokens[event.seat] -= 1
            self.turn_over(table)
            self.next = (event.seat + self.direction) % self.n
        elif isinstance(event, CardPlayed):
            self.plays += 1
        elif isinstance(event, ActionPlayed):
            self.plays += 1
            if KIND[event.card] is Kind.SKIP or (KIND[event.card] is Kind.REVERSE and self.n == 2):
                self.skips.append(self.direction)
            elif KIND[event.card] is Kind.REVERSE:
                self.direction = -self.direction
        elif isinstance(event, SkipsGiven):
            assert self.skips and not self.given, f"{at(table, event)}: no skip effect was played"
            assert list(event.seats) == self.skip_targets(), (
                f"{at(table, event)}: skips {self.skips}"
            )
            for seat in event.seats:
                self.tokens[seat] += 1
            self.given = True
        elif isinstance(event, TurnEnded):
            assert event.seat == self.current, at(table, event)
            assert self.given == bool(self.skips), (
                f"{at(table, event)}: skips {self.skips} not handed out"
            )
            hand = state.hands[event.seat]
            assert len(hand) >= self.cfg.hand_size or self.dry(state), (
                f"{at(table, event)}: hand {hand}"
            )
            self.turn_over(table)
            self.next = (event.seat + self.direction) % self.n
        elif isinstance(event, PileCompleted):
            self.check_eligible(table, event)
        elif isinstance(event, GameOver) and event.termination == Termination.STALEMATE:
            assert self.idle_run >= self.n, f"{at(table, event)}: only {self.idle_run} idle turns"
            totals = [sum(chips) for chips in state.chips]
            best = [s for s, total in enumerate(totals) if total == max(totals)]
            most_chips = self.cfg.stalemate_result == StalemateResult.MOST_CHIPS
            winner = best[0] if most_chips and len(best) == 1 else None
            assert event.winner == winner, f"{at(table, event)}: chips {totals}"
        assert state.direction == self.direction, at(table, event)
        assert state.skip_tokens == self.tokens, at(table, event)

    def check_eligible(self, table: Table, event: PileCompleted) -> None:
        """Who may Block is judged on public information (§1.6.2): hands are secret."""
        state = table.shadow
        blocks = [c for c in CARDS_BY_KIND[Kind.BLOCK] if c in state.deck]
        public = [c for c in [*state.special_discard, *chain(*state.discards)] if c in blocks]
        unseen = len(blocks) > len(public)
        from_discard = self.cfg.block_from_discard
        for seat in range(self.n):
            top = state.discard_top(seat)
            top_block = from_discard and top is not None and KIND[top] is Kind.BLOCK
            holds = any(KIND[c] is Kind.BLOCK for c in state.hands[seat])
            if seat == event.seat:
                assert seat not in event.eligible, at(table, event)
            elif holds or top_block or (unseen and state.hands[seat]):
                assert seat in event.eligible, f"{at(table, event)}: seat {seat} may hold a Block"
            else:
                assert seat not in event.eligible, f"{at(table, event)}: seat {seat} can't Block"


def run_turn_model(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    table.event_checks.append(TurnModel(table))
    play(table, rng)


@seeded_games(200)
def test_turns_skips_block_windows_and_stalemates_follow_the_rules(
    seed: int, players: int
) -> None:
    run_turn_model(seed, players)


@pytest.mark.slow
@seeded_games(200 * SOAK)
def test_turns_skips_block_windows_and_stalemates_follow_the_rules_soak(
    seed: int, players: int
) -> None:
    run_turn_model(seed, players)


# -- 3. legal actions are accepted, nothing else is ---------------------------------------------

RANDOM_ACTIONS_PER_STATE = 12


def check_legality(table: Table, rng: Rng) -> None:
    state = table.state
    if state.outcome is not None:
        for _ in range(RANDOM_ACTIONS_PER_STATE):
            action = random_action(state, rng)
            with pytest.raises(IllegalActionError):
                validate(state, action)
        return
    legal: dict[int, set[str]] = {}
    for seat in range(state.players):
        actions = legal_actions(state, seat)
        keys = {wire_key(a) for a in actions}
        assert len(keys) == len(actions), f"{table.where()}: duplicate legal actions"
        legal[seat] = keys
        for action in actions:
            try:
                validate(state, action)
            except IllegalActionError as exc:
                raise AssertionError(f"{table.where()}: listed {action} rejected: {exc}") from None
            trial = state.copy()
            events = step(trial, action, Rng(b"probe"))
            assert events, f"{table.where()}: {action} did nothing"
    if state.phase == Phase.PLAY:
        assert legal[state.current], f"{table.where()}: the seat to move has no legal action"
    before = state.copy()
    before_hash = public_hash(state)
    before_hands = [list(hand) for hand in state.hands]
    position = table.game.rng.position
    for _ in range(RANDOM_ACTIONS_PER_STATE):
        action = random_action(state, rng)
        if isinstance(action, CloseBlockWindow):
            expected = state.phase == Phase.BLOCK_WINDOW
        else:
            expected = 0 <= action.seat < state.players and wire_key(action) in legal[action.seat]
        assert is_legal(state, action) == expected, f"{table.where()}: {action}"
        if expected:
            continue
        with pytest.raises(IllegalActionError):
            table.game.act(action)
        assert state == before, f"{table.where()}: rejected {action} changed the state"
        assert table.game.rng.position == position, f"{table.where()}: {action} used randomness"
    assert public_hash(state) == before_hash
    assert state.hands == before_hands


def run_legality(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    probe = Rng(b"illegal" + table_seed(seed))
    play(table, rng, on_state=lambda t: check_legality(t, probe))


@seeded_games(40)
def test_legal_actions_are_accepted_and_nothing_else_is(seed: int, players: int) -> None:
    run_legality(seed, players)


@pytest.mark.slow
@seeded_games(40 * SOAK)
def test_legal_actions_are_accepted_and_nothing_else_is_soak(seed: int, players: int) -> None:
    run_legality(seed, players)


NOT_SEATS = (HOST, SPECTATOR, 6, 100)


def test_legal_actions_of_a_non_seat_are_empty() -> None:
    for seed in range(40):
        players = 2 + seed % 5
        table, rng = new_game(seed, players, default_config=True)
        while not table.over:
            for seat in (*NOT_SEATS, players):
                assert legal_actions(table.state, seat) == [], f"{table.where()}: seat {seat}"
            table.act(choose(table, rng, 80))


# -- 4. views hold no hidden faces; 5. public hashes agree ---------------------------------------


def audiences(table: Table) -> list[tuple[Audience, State]]:
    assert table.spectator is not None
    return [*enumerate(table.views), (SPECTATOR, table.spectator)]


def check_secrecy(table: Table, event: Event) -> None:
    host = table.shadow
    for audience, view in audiences(table):
        assert view.audience == audience
        assert all(card == HIDDEN for card in view.draw_pile), (
            f"{at(table, event)}: seat {audience} sees faces in the draw pile"
        )
        for seat, hand in enumerate(view.hands):
            if seat == audience:
                assert hand == host.hands[seat], f"{at(table, event)}: seat {seat}'s own hand"
                continue
            faces = [card for card in hand if card != HIDDEN]
            if not faces:
                continue
            unknown = set(faces) - table.known[audience][seat]
            assert not unknown, (
                f"{at(table, event)}: {audience} sees {sorted(unknown)} in seat {seat}'s hand"
            )
            assert not Counter(faces) - Counter(host.hands[seat]), (
                f"{at(table, event)}: {audience} believes seat {seat} holds {faces}, "
                f"it holds {host.hands[seat]}"
            )


def check_views_are_view_for(table: Table) -> None:
    """What a view knows beyond ``view_for`` of the host is only what was checked above."""
    for audience, view in audiences(table):
        assert masked(view) == view_for(table.state, audience), f"{table.where()}: {audience}"


def run_secrecy(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True, event_checks=[check_secrecy])
    play(table, rng, on_state=check_views_are_view_for)


@seeded_games(60)
def test_views_never_hold_another_seats_hidden_cards(seed: int, players: int) -> None:
    run_secrecy(seed, players)


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_views_never_hold_another_seats_hidden_cards_soak(seed: int, players: int) -> None:
    run_secrecy(seed, players)


def check_hashes(table: Table, event: Event) -> None:
    expected = public_hash(table.shadow)
    for audience, view in audiences(table):
        assert public_hash(view) == expected, f"{table.where()} after {event}: view {audience}"


def run_hashes(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True, event_checks=[check_hashes])
    play(table, rng)


@seeded_games(60)
def test_every_view_has_the_hosts_public_hash_after_every_event(seed: int, players: int) -> None:
    run_hashes(seed, players)


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_every_view_has_the_hosts_public_hash_soak(seed: int, players: int) -> None:
    run_hashes(seed, players)


def run_deal_views(seed: int, players: int) -> None:
    config = config_for(seed, players)
    game = Game.new(players, table_seed(seed), config)
    for audience in [*range(players), SPECTATOR]:
        view = State.new(config, players)
        view.audience = audience
        for event in game.log:
            apply(view, event.redacted_for(audience))
        assert view == view_for(game.state, audience), f"seed={seed} players={players}"
        assert public_hash(view) == public_hash(game.state)


@seeded_games(300)
def test_views_built_from_the_redacted_deal_equal_view_for(seed: int, players: int) -> None:
    run_deal_views(seed, players)


@pytest.mark.slow
@seeded_games(300 * SOAK)
def test_views_built_from_the_redacted_deal_equal_view_for_soak(seed: int, players: int) -> None:
    run_deal_views(seed, players)


# -- 6. legal actions from a view are the host's -------------------------------------------------


def check_view_legality(table: Table) -> None:
    host = table.state
    for seat, view in enumerate(table.views):
        from_view = sorted(wire_key(a) for a in legal_actions(view, seat))
        from_host = sorted(wire_key(a) for a in legal_actions(host, seat))
        assert from_view == from_host, f"{table.where()}: seat {seat}"


def run_view_legality(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True)
    play(table, rng, on_state=check_view_legality)


@seeded_games(100)
def test_legal_actions_from_a_view_equal_the_hosts(seed: int, players: int) -> None:
    run_view_legality(seed, players)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_legal_actions_from_a_view_equal_the_hosts_soak(seed: int, players: int) -> None:
    run_view_legality(seed, players)


# -- 7. everything produced survives the wire ---------------------------------------------------

AUDIENCES_EXTRA: tuple[Audience, ...] = (HOST, SPECTATOR)


def assert_round_trip(record: Action | Event, where: str) -> None:
    wire = record.to_wire()
    problems = plain_problems(wire)
    assert not problems, f"{where}: {record} -> {problems}"
    assert type(record).from_wire(wire) == record, f"{where}: {record}"
    family = Action if isinstance(record, Action) else Event
    decoded = family.from_wire(json.loads(json.dumps(wire)))
    assert decoded == record and type(decoded) is type(record), f"{where}: {record}"
    assert decoded.to_wire() == wire, f"{where}: {record}"


def check_event_wire(table: Table, event: Event) -> None:
    where = table.where()
    variants = {wire_key(event.redacted_for(a)): event.redacted_for(a) for a in AUDIENCES_EXTRA}
    for audience in range(table.players):
        redacted = event.redacted_for(audience)
        variants.setdefault(wire_key(redacted), redacted)
    for redacted in variants.values():
        assert_round_trip(redacted, where)


def check_action_wire(table: Table, probe: Rng) -> None:
    state = table.state
    where = table.where()
    for seat in range(state.players):
        for action in legal_actions(state, seat):
            assert_round_trip(action, where)
    for _ in range(4):
        assert_round_trip(random_action(state, probe), where)


def run_wire(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, event_checks=[check_event_wire])
    for event in table.deal_events:
        check_event_wire(table, event)
    probe = Rng(b"wire" + table_seed(seed))
    play(table, rng, on_state=lambda t: check_action_wire(t, probe))
    for action in table.actions:
        assert_round_trip(action, table.where())


@seeded_games(40)
def test_every_action_and_event_round_trips_through_the_wire(seed: int, players: int) -> None:
    run_wire(seed, players)


@pytest.mark.slow
@seeded_games(40 * SOAK)
def test_every_action_and_event_round_trips_through_the_wire_soak(
    seed: int, players: int
) -> None:
    run_wire(seed, players)


# -- 8. determinism ---------------------------------------------------------------------------


def run_replay(seed: int, players: int) -> None:
    table, rng = new_game(seed, players)
    play(table, rng)
    config = table.state.config
    replay = Game.new(players, table_seed(seed), config)
    for wire in json.loads(json.dumps([a.to_wire() for a in table.actions])):
        replay.act(Action.from_wire(wire))
    assert replay.log == table.game.log, table.where()
    assert replay.state == table.state, table.where()
    # The event log alone rebuilds the state (the reducer is the only code that moves cards).
    rebuilt = State.new(config, players)
    for wire in json.loads(json.dumps([e.to_wire() for e in table.game.log])):
        apply(rebuilt, Event.from_wire(wire))
    assert rebuilt == table.state, table.where()


@seeded_games(150)
def test_the_same_seed_and_actions_give_the_same_events(seed: int, players: int) -> None:
    run_replay(seed, players)


@pytest.mark.slow
@seeded_games(150 * SOAK)
def test_the_same_seed_and_actions_give_the_same_events_soak(seed: int, players: int) -> None:
    run_replay(seed, players)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(seeds=st.lists(SEEDS, min_size=2, max_size=2, unique=True), players=PLAYERS)
def test_different_seeds_deal_differently(seeds: list[int], players: int) -> None:
    one, other = (Game.new(players, table_seed(seed)) for seed in seeds)
    assert one.log[0] != other.log[0], f"{seeds}: the same draw pile"
    assert one.state.hands != other.state.hands, f"{seeds}: the same hands"


REPLAY_DIGEST = """
import hashlib, json
from tests.engine.gameplay import new_game, play
digest = hashlib.sha256()
for seed in range({games}):
    table, rng = new_game(seed, 2 + seed % 5)
    play(table, rng)
    digest.update(json.dumps([e.to_wire() for e in table.game.log]).encode())
print(digest.hexdigest())
"""


def test_games_replay_identically_in_other_processes_whatever_the_hash_seed() -> None:
    """Peers on other machines re-derive the same events: no dependence on set/dict order."""
    code = REPLAY_DIGEST.format(games=12)
    namespace: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(code, namespace)
    here = out.getvalue().strip()
    root = Path(__file__).resolve().parents[2]
    for hash_seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
            check=True, timeout=120,
        )
        assert done.stdout.strip() == here, f"PYTHONHASHSEED={hash_seed}: {done.stderr}"


def test_a_deal_shuffles_the_whole_deck() -> None:
    first_cards: Counter[CardId] = Counter()
    for seed in range(200):
        formed = Game.new(4, table_seed(seed)).log[0]
        assert isinstance(formed, DrawPileFormed)
        assert sorted(formed.cards) == list(range(DECK_SIZE))
        first_cards[formed.cards[-1]] += 1
    # 200 deals put at least a few dozen different cards on top.
    assert len(first_cards) > 60


# -- 9. every game ends -------------------------------------------------------------------------

ENDINGS = {"win", "stalemate", "max_turns"}


def run_bot_game(seed: int, players: int, bot: str, *, house_rules: bool = False) -> None:
    config = config_for(seed, players) if house_rules else RulesConfig()
    bots: list[Any] = [RandomBot(game_seed(seed, 1000 + s)) for s in range(players)]
    if bot != "random":
        greedy = pytest.importorskip("engine.bots.greedy")
        for s in range(players):
            if bot == "greedy" or (s + seed) % 2:
                bots[s] = greedy.GreedyBot(bytes([s, seed % 256]))
    # The runner's own per-event checks (invariants, view hashes) on one game in twenty.
    result = play_game(players, bots, game_seed(seed, players), config, check=seed % 20 == 0)
    where = f"seed={seed} players={players} bot={bot} house_rules={house_rules}"
    assert result.termination in ENDINGS, where
    assert result.invariant_violations == 0, where
    assert result.turns <= config.max_turns, where
    if result.termination == "win":
        assert result.winner is not None
        red, blue = result.chips[result.winner]
        need = config.win_min_each_colour
        assert red + blue >= config.win_chips and red >= need and blue >= need, where
    elif config.stalemate_result == StalemateResult.DRAW or result.termination == "max_turns":
        assert result.winner is None, where


@seeded_games(300)
def test_every_random_bot_game_ends(seed: int, players: int) -> None:
    run_bot_game(seed, players, "random")


@pytest.mark.slow
@seeded_games(300 * SOAK)
def test_every_random_bot_game_ends_soak(seed: int, players: int) -> None:
    run_bot_game(seed, players, "random")


@seeded_games(60)
def test_every_greedy_bot_game_ends(seed: int, players: int) -> None:
    run_bot_game(seed, players, "greedy")


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_every_greedy_bot_game_ends_soak(seed: int, players: int) -> None:
    run_bot_game(seed, players, "greedy")


@seeded_games(100)
def test_every_greedy_against_random_game_ends_under_house_rules(seed: int, players: int) -> None:
    run_bot_game(seed, players, "mixed", house_rules=True)


@pytest.mark.slow
@seeded_games(100 * SOAK)
def test_every_greedy_against_random_game_ends_under_house_rules_soak(
    seed: int, players: int
) -> None:
    run_bot_game(seed, players, "mixed", house_rules=True)


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

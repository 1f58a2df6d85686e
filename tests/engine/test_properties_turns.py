"""Engine properties over seeded games at 2-6 players: turn order, skips, Block eligibility
and stalemate, by an independent model.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

from itertools import chain

import pytest

from engine.cards import CARDS_BY_KIND, KIND, Kind
from engine.config import (
    SkipStacking,
    SkipTiming,
    StalemateResult,
)
from engine.events import (
    ActionPlayed,
    CardPlayed,
    Event,
    GameOver,
    PileCompleted,
    SkipsGiven,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
)
from engine.state import State, Termination
from tests.engine.gameplay import (
    Table,
    new_game,
    play,
)
from tests.engine.seeded import SOAK, at, seeded_games

# -- turn order, skips, Block eligibility and stalemate, by an independent model -----------------


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

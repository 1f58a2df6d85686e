"""Engine properties over seeded games at 2-6 players: everything produced survives the
wire, and the same seed and actions give the same game.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.cards import DECK_SIZE, CardId
from engine.events import (
    DrawPileFormed,
    Event,
)
from engine.game import Game
from engine.reducer import apply
from engine.rng import Rng
from engine.rules import legal_actions
from engine.state import HOST, SPECTATOR, Audience, State
from tests.engine.gameplay import (
    Table,
    new_game,
    plain_problems,
    play,
    random_action,
    table_seed,
    wire_key,
)
from tests.engine.seeded import PLAYERS, SEEDS, SOAK, seeded_games

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

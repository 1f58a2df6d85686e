"""The public hash is the SHA-256 of ``json.dumps(public_state, separators=(",", ":"),
sort_keys=True)``, byte for byte, whatever encoder computes it: peers of one build
compare each other's hashes, and the value is part of the protocol (docs/protocol.md)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.classic import views as classic_views
from engine.classic.game import SequenceGame
from engine.classic.reducer import apply as classic_apply
from engine.classic.rules import legal_actions as classic_legal_actions
from engine.events import Event
from engine.redaction import canonical_json, config_json, hash_public
from engine.rng import Rng
from engine.state import SPECTATOR
from engine.views import public_hash, public_state
from tests.engine.classic.gameplay import random_config as classic_random_config
from tests.engine.gameplay import Table, choose, new_game, play
from tests.engine.seeded import audiences, seeded_games


def plain_hash(public: list[Any]) -> str:
    """The hash as the protocol states it, with nothing precomputed."""
    text = json.dumps(public, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def check_hash_is_plain_json(table: Table, event: Event) -> None:
    for audience, state in [("host", table.shadow), *audiences(table)]:
        public = public_state(state)
        assert public_hash(state) == plain_hash(public), f"{table.where()}: {audience}"


@seeded_games(25)
def test_the_stacks_hash_is_the_sha256_of_plain_canonical_json_after_every_event(
    seed: int, players: int,
) -> None:
    table, rng = new_game(seed, players, views=True, event_checks=[check_hash_is_plain_json])
    play(table, rng)


@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), players=st.sampled_from([2, 3, 4, 6]))
def test_the_sequence_hash_is_the_sha256_of_plain_canonical_json_after_every_action(
    seed: int, players: int,
) -> None:
    rng = Rng(seed.to_bytes(8, "big"))
    game = SequenceGame.new(players, seed.to_bytes(32, "big"),
                            classic_random_config(rng, players))
    views = [classic_views.view_for(game.state, seat) for seat in [*range(players), SPECTATOR]]
    for _ in range(400):
        if game.state.outcome is not None:
            break
        legal = classic_legal_actions(game.state, game.state.current)
        events = game.act(legal[rng.below(len(legal))])
        for audience, view in zip([*range(players), SPECTATOR], views, strict=True):
            for event in events:
                classic_apply(view, event.redacted_for(audience))
        for state in [game.state, *views]:
            public = classic_views.public_state(state)
            assert classic_views.public_hash(state) == plain_hash(public)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None, database=None)
@given(data=st.lists(JSON, max_size=8) | st.dictionaries(st.text(), JSON, max_size=8))
def test_canonical_json_is_json_dumps_sorted_and_compact(data: Any) -> None:
    expected = json.dumps(data, separators=(",", ":"), sort_keys=True)
    assert canonical_json(data) == expected
    if isinstance(data, list):
        assert hash_public(data) == plain_hash(data)


@settings(max_examples=300, deadline=None, database=None)
@given(head=st.lists(JSON, max_size=6), last=st.text())
def test_a_trailing_string_encoded_once_hashes_as_the_whole_list(
    head: list[Any], last: str,
) -> None:
    """The rules' JSON ends every public part: it is encoded once, and spliced."""
    public = [*head, last]
    assert hash_public(public) == plain_hash(public)
    assert hash_public(public) == plain_hash(public)  # from the cache this time


def test_a_known_state_keeps_its_known_hash() -> None:
    """A value computed before the hash got its own encoder (a change of the hash is a
    change of protocol)."""
    table, rng = new_game(7, 4, default_config=True)
    for _ in range(30):
        table.act(choose(table, rng, 80))
    assert public_hash(table.state) == PINNED
    assert config_json(table.state.config) == json.dumps(
        table.state.config.to_wire(), separators=(",", ":"), sort_keys=True)


PINNED = "dbd9e428e56fdb697dc5b651a526f32a"
"""Seed 7, 4 players, default rules, after 30 actions (turn 11), as main computed it."""

"""Wire forms of classic Sequence under fuzzing, its config, snapshots and the game registry."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.actions import Action
from engine.classic.actions import PlaceChip, SequenceAction
from engine.classic.board import parse_cell
from engine.classic.config import NoPlay, SequenceConfig
from engine.classic.events import ChipPlaced, SequenceEvent
from engine.classic.game import SequenceGame
from engine.classic.reducer import apply_checked
from engine.classic.snapshot import state_from_wire, state_to_wire
from engine.classic.views import public_hash, view_for
from engine.config import RulesConfig
from engine.errors import ConfigError, InvalidEventError, MalformedError
from engine.events import Event
from engine.game import Game
from engine.games import GAMES, SEQUENCE, STACKS, game_def
from engine.snapshot import state_to_wire as stacks_state_to_wire
from engine.views import public_hash as stacks_hash
from engine.wire import Record
from tests.engine.gameplay import any_record, plain_problems, record_types
from tests.engine.test_wire_properties import FUZZ, JUNK, mangled

FAMILIES: list[type[Record]] = [SequenceAction, SequenceEvent]


def check_decoders(data: object) -> None:
    decoders = [*FAMILIES, *record_types(SequenceAction), *record_types(SequenceEvent)]
    for decoder in decoders:
        try:
            record = decoder.from_wire(data)
        except MalformedError:
            continue
        wire = record.to_wire()
        assert not plain_problems(wire)
        assert wire == json.loads(json.dumps(data)), f"{decoder.__name__} took {data!r}"


@FUZZ
@given(data=st.one_of(JUNK, any_record(SequenceAction).map(lambda r: r.to_wire()).flatmap(mangled),
                      any_record(SequenceEvent).map(lambda r: r.to_wire()).flatmap(mangled)))
def test_decoding_junk_and_damaged_records_raises_only_malformed_error(data: object) -> None:
    check_decoders(data)


@FUZZ
@given(record=st.one_of(any_record(SequenceAction), any_record(SequenceEvent)))
def test_every_record_round_trips(record: Record) -> None:
    wire = record.to_wire()
    assert not plain_problems(wire)
    family = SequenceAction if isinstance(record, SequenceAction) else SequenceEvent
    decoded = family.from_wire(json.loads(json.dumps(wire)))
    assert decoded == record and type(decoded) is type(record)


def test_each_game_decodes_only_its_own_record_types() -> None:
    # Records don't name their game (the table's announcement does): a decoder of one
    # game refuses the other game's own types.
    stacks_only = {cls.TYPE for cls in record_types(Action)} - {
        cls.TYPE for cls in record_types(SequenceAction)}
    for tag in stacks_only:
        with pytest.raises(MalformedError, match="unknown"):
            SequenceAction.from_wire({"type": tag, "seat": 0})
    with pytest.raises(MalformedError, match="unknown action type 'place'"):
        Action.from_wire(PlaceChip(0, 1, 2).to_wire())
    with pytest.raises(MalformedError, match="unknown event type 'sequence'"):
        Event.from_wire({"type": "sequence", "team": 0, "cells": [0, 1, 2, 3, 4]})


def test_every_record_type_has_a_distinct_tag_in_its_family() -> None:
    for family in FAMILIES:
        tags = [cls.TYPE for cls in record_types(family)]
        assert len(tags) == len(set(tags))
    assert len(record_types(SequenceAction)) == 5
    assert len(record_types(SequenceEvent)) == 13


def test_default_rules_round_trip() -> None:
    config = SequenceConfig()
    wire = config.to_wire()
    assert wire["no_play"] == 0 and wire["teams"] is None
    assert SequenceConfig.from_wire(json.loads(json.dumps(wire))) == config


def test_house_rules_round_trip_and_accept_enum_names() -> None:
    config = SequenceConfig(teams=3, no_play=NoPlay.PASS, choose_sequences=True, dealer=2,
                            sequences_to_win=3, dead_cards_per_turn=2, max_turns=99)
    assert SequenceConfig.from_wire(config.to_wire()) == config
    assert SequenceConfig.from_wire({"no_play": "pass"}).no_play is NoPlay.PASS


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"board": "spiral"}, "board must be one of"),
        ({"teams": 4}, "teams must be 2 or 3"),
        ({"teams": "two"}, "whole number"),
        ({"no_play": "shout"}, "discard, pass"),
        ({"colour": 1}, "unknown rule setting"),
        ({"choose_sequences": 1}, "true or false"),
        ({"max_turns": 0}, "max_turns"),
        ([], "must be a map"),
    ],
)
def test_damaged_rules_raise_config_error_in_words(data: object, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        SequenceConfig.from_wire(data)


@FUZZ
@given(data=st.dictionaries(st.sampled_from([*SequenceConfig().to_wire(), "x"]), JUNK,
                            max_size=4))
def test_decoding_fuzzed_rules_raises_only_config_error(data: dict[str, Any]) -> None:
    try:
        config = SequenceConfig.from_wire(data)
    except ConfigError:
        return
    assert SequenceConfig.from_wire(config.to_wire()) == config


def _midgame() -> SequenceGame:
    game = SequenceGame.new(4, b"mid")
    for _ in range(20):
        game.act(game.legal_actions(game.state.current)[-1])
    return game


def test_damaged_snapshots_raise_malformed_error() -> None:
    wire = state_to_wire(view_for(_midgame().state, 1))
    for key in list(wire):
        broken = dict(wire)
        del broken[key]
        with pytest.raises(MalformedError):
            state_from_wire(broken)
    for key, junk in [("chips", [0] * 99), ("chips", [5] * 100), ("hands", [[1], [2]]),
                      ("sequences", [[0, [0, 1, 2, 3, 5]]]), ("played", 1), ("draw_pile", [999])]:
        with pytest.raises(MalformedError):
            state_from_wire(wire | {key: junk})
    with pytest.raises(MalformedError, match="game 'sequence'"):
        state_from_wire(stacks_state_to_wire(Game.new(2, b"s").state))


def test_a_forged_event_leaves_the_state_as_it_was() -> None:
    game = _midgame()
    state = game.state
    taken = next(c for c, owner in enumerate(state.chips) if owner != -1)
    card = state.hands[state.current][0]
    before = public_hash(state)
    with pytest.raises(InvalidEventError):
        apply_checked(state, ChipPlaced(state.current, card, taken))
    assert public_hash(state) == before


def test_the_registry_dispatches_both_games_through_one_definition() -> None:
    assert set(GAMES) == {"stacks", "sequence"}
    for game, players, config in ((STACKS, 3, RulesConfig()), (SEQUENCE, 4, SequenceConfig())):
        table = game.new_game(players, b"registry", config, None)
        state = table.state
        seat = state.current
        view = game.view_for(state, seat)
        assert game.public_hash(view) == game.public_hash(state)
        action = game.legal_actions(view, seat)[0]
        assert game.action_from_wire(action.to_wire()) == action
        events = table.act(action)
        for event in events:
            game.apply_checked(view, game.event_from_wire(event.redacted_for(seat).to_wire()))
        assert game.public_hash(view) == game.public_hash(state)
        assert game.check_invariants(game.state_from_wire(game.state_to_wire(view))) == []
        assert game.config_from_wire(game.config_to_wire(config)) == config
        assert game.outcome(state) is None
    assert public_hash(SequenceGame.new(2, b"x").state) != stacks_hash(Game.new(2, b"x").state)


def test_the_registry_names_the_choices_for_an_unknown_game() -> None:
    assert game_def("sequence") is SEQUENCE
    with pytest.raises(ConfigError, match="stacks, sequence"):
        game_def("chess")
    with pytest.raises(ConfigError, match="Sequence is for 2, 3, 4, 6, 8, 9, 10 or 12 players"):
        SEQUENCE.check_players(5)
    STACKS.check_players(5)


def test_wire_actions_name_cells_and_claims() -> None:
    action = PlaceChip(0, 17, parse_cell("E5"), (3, 7))
    assert action.to_wire() == {"type": "place", "seat": 0, "card": 17, "cell": 44,
                                 "claim": [3, 7]}

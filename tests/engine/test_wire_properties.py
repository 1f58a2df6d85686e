"""Wire forms under fuzzing: untrusted plain data becomes a record or a typed error, never a crash.

Covers ``Action.from_wire`` / ``Event.from_wire`` (and each record type's own), the table
rules (``RulesConfig``) and state snapshots (``engine.snapshot``). Whatever a decoder takes
must be exactly what its encoder gives back.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Callable
from enum import IntEnum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action
from engine.classic.actions import SequenceAction
from engine.classic.events import SequenceEvent
from engine.config import RulesConfig
from engine.errors import ConfigError, MalformedError
from engine.events import Event
from engine.invariants import check_invariants
from engine.rng import Rng, derive_seed
from engine.snapshot import state_from_wire, state_to_wire
from engine.state import State
from engine.wire import Record, prepare_codecs
from tests.engine.gameplay import (
    Table,
    any_record,
    choose,
    forget_codecs,
    new_game,
    plain_problems,
    play,
    random_config,
    record_types,
)

FUZZ = settings(
    max_examples=600,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
SOAK_FUZZ = settings(FUZZ, max_examples=6000)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**31, -(2**31) - 1, 2**63, -(10**100), 10**100]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=4),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.text(max_size=6), st.integers()), inner, max_size=4),
    ),
    max_leaves=10,
)
"""Any plain-ish value: what a hostile or buggy peer could put in a decoded frame."""

ALL_FAMILIES: list[type[Record]] = [Action, Event, SequenceAction, SequenceEvent]
"""Every family of wire records, in both games."""

TAGS = [cls.TYPE for cls in [*record_types(Action), *record_types(Event)]]
EDITS = ["drop", "add", "junk", "retag", "bool", "huge", "float", "text", "tuple"]


@st.composite
def mangled(draw: st.DrawFn, base: dict[str, Any]) -> dict[str, Any]:
    """``base`` (a valid wire map) with one to three edits: fields dropped, added, retyped."""
    wire = dict(base)
    for edit in draw(st.lists(st.sampled_from(EDITS), min_size=1, max_size=3)):
        keys = sorted(wire, key=str)
        key = draw(st.sampled_from(keys)) if keys else "type"
        if edit == "drop" and keys:
            del wire[key]
        elif edit == "add":
            wire[draw(st.one_of(st.text(max_size=8), st.sampled_from(keys or ["x"])))] = draw(JUNK)
        elif edit == "junk":
            wire[key] = draw(JUNK)
        elif edit == "retag":
            wire["type"] = draw(st.one_of(st.sampled_from(TAGS), JUNK))
        elif edit == "bool":
            wire[key] = draw(st.booleans())
        elif edit == "huge":
            wire[key] = draw(st.sampled_from([2**31, -(2**31) - 1, 2**64, -(10**30)]))
        elif edit == "float":
            wire[key] = float(wire[key]) if type(wire.get(key)) is int else draw(st.floats())
        elif edit == "text":
            wire[key] = str(wire.get(key))
        elif edit == "tuple" and isinstance(wire.get(key), list):
            wire[key] = tuple(wire[key])
    return wire


def mangled_record(family: type[Record]) -> st.SearchStrategy[dict[str, Any]]:
    return any_record(family).map(lambda r: r.to_wire()).flatmap(mangled)


def check_decoders(data: object) -> None:
    """Every decoder either raises MalformedError or returns what re-encodes to ``data``."""
    decoders: list[type[Record]] = [Action, Event, *record_types(Action), *record_types(Event)]
    for decoder in decoders:
        try:
            record = decoder.from_wire(data)
        except MalformedError:
            continue
        assert isinstance(record, decoder)
        wire = record.to_wire()
        assert not plain_problems(wire)
        assert wire == json.loads(json.dumps(data)), f"{decoder.__name__} took {data!r}"
        assert type(record).from_wire(wire) == record


# -- actions and events ---------------------------------------------------------------------------


@FUZZ
@given(data=JUNK)
def test_decoding_junk_raises_only_malformed_error(data: object) -> None:
    check_decoders(data)


@FUZZ
@given(data=st.one_of(mangled_record(Action), mangled_record(Event)))
def test_decoding_damaged_records_raises_only_malformed_error(data: dict[str, Any]) -> None:
    check_decoders(data)


@pytest.mark.slow
@SOAK_FUZZ
@given(data=st.one_of(JUNK, mangled_record(Action), mangled_record(Event)))
def test_decoding_junk_and_damaged_records_soak(data: object) -> None:
    check_decoders(data)


@FUZZ
@given(record=st.one_of(any_record(Action), any_record(Event)))
def test_every_record_round_trips(record: Action | Event) -> None:
    wire = record.to_wire()
    assert not plain_problems(wire)
    family = Action if isinstance(record, Action) else Event
    other = Event if family is Action else Action
    for decoded in (type(record).from_wire(wire), family.from_wire(json.loads(json.dumps(wire)))):
        assert decoded == record and type(decoded) is type(record)
    with pytest.raises(MalformedError):
        other.from_wire(wire)
    for cls in record_types(family):
        if cls is not type(record):
            with pytest.raises(MalformedError):
                cls.from_wire(wire)


def value_by_value(record: Record) -> dict[str, object]:
    """The wire form as the fields' values make it, one type test per value: the map the
    precomputed per-type encoders of ``to_wire`` must give, key order included (the
    order is part of the signed bytes)."""
    out: dict[str, object] = {"type": record.TYPE}
    for field in dataclasses.fields(typing.cast(Any, record)):
        value = getattr(record, field.name)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, IntEnum):
            value = int(value)
        out[field.name] = value
    return out


@FUZZ
@given(record=st.one_of(*(any_record(family) for family in ALL_FAMILIES)))
def test_to_wire_is_each_value_as_plain_data_in_field_order(record: Record) -> None:
    wire = record.to_wire()
    expected = value_by_value(record)
    assert list(wire) == list(expected)
    assert [(type(v), v) for v in wire.values()] == [(type(v), v) for v in expected.values()]


@FUZZ
@given(record=st.one_of(*(any_record(family) for family in ALL_FAMILIES)))
def test_from_wire_gives_each_field_its_declared_type(record: Record) -> None:
    # ``==`` can't tell an enum member from its int: compare the types too.
    family = next(f for f in ALL_FAMILIES if isinstance(record, f))
    decoded = family.from_wire(json.loads(json.dumps(record.to_wire())))
    for field in dataclasses.fields(typing.cast(Any, record)):
        mine, theirs = getattr(record, field.name), getattr(decoded, field.name)
        assert type(theirs) is type(mine) and theirs == mine, field.name


def test_every_record_type_has_a_distinct_tag() -> None:
    assert len(TAGS) == len(set(TAGS))
    assert len(record_types(Action)) == 10
    assert len(record_types(Event)) >= 18


# -- table rules --------------------------------------------------------------------------------


def test_the_default_rules_round_trip() -> None:
    wire = RulesConfig().to_wire()
    assert not plain_problems(wire)
    assert RulesConfig.from_wire(wire) == RulesConfig()
    assert RulesConfig.from_wire(json.loads(json.dumps(wire))) == RulesConfig()
    assert RulesConfig.from_wire({}) == RulesConfig()


@st.composite
def configs(draw: st.DrawFn) -> RulesConfig:
    seed = draw(st.integers(0, 2**32))
    players = draw(st.integers(2, 6))
    return random_config(Rng(derive_seed(seed, label="wire-config")), players)


@FUZZ
@given(config=configs())
def test_house_rules_round_trip(config: RulesConfig) -> None:
    wire = config.to_wire()
    assert not plain_problems(wire)
    assert RulesConfig.from_wire(json.loads(json.dumps(wire))) == config


@FUZZ
@given(data=st.one_of(JUNK, configs().map(lambda c: c.to_wire()).flatmap(mangled)))
def test_decoding_damaged_rules_raises_only_config_error(data: object) -> None:
    try:
        config = RulesConfig.from_wire(data)
    except ConfigError:
        return
    assert RulesConfig.from_wire(config.to_wire()) == config


# -- state snapshots ------------------------------------------------------------------------------

_SNAPSHOTS: list[dict[str, Any]] = []


def snapshots() -> list[dict[str, Any]]:
    """Snapshots of host states and views at every decision point of a few games."""
    if not _SNAPSHOTS:
        for seed, players in ((0, 2), (1, 3), (5, 6)):
            table, rng = new_game(seed, players, views=True)

            def keep(t: Table) -> None:
                assert t.spectator is not None
                for state in (t.state, *t.views, t.spectator):
                    _SNAPSHOTS.append(state_to_wire(state))

            play(table, rng, on_state=keep)
    return _SNAPSHOTS


def check_snapshot_round_trip(state: State) -> None:
    wire = state_to_wire(state)
    assert not plain_problems(wire)
    assert state_from_wire(json.loads(json.dumps(wire))) == state


@pytest.mark.parametrize("players", range(2, 7))
def test_snapshots_of_every_view_round_trip(players: int) -> None:
    table, rng = new_game(players, players, views=True)

    def check(t: Table) -> None:
        assert t.spectator is not None
        for state in (t.state, *t.views, t.spectator):
            check_snapshot_round_trip(state)

    play(table, rng, on_state=check)


@st.composite
def damaged_snapshots(draw: st.DrawFn) -> object:
    """A real snapshot with one value somewhere inside it replaced by junk."""
    base = draw(st.sampled_from(snapshots()))
    wire: Any = json.loads(json.dumps(base))
    path_parent: Any = wire
    key: Any = draw(st.sampled_from(sorted(wire)))
    for _ in range(draw(st.integers(0, 3))):
        child = path_parent[key]
        if isinstance(child, dict) and child:
            path_parent, key = child, draw(st.sampled_from(sorted(child)))
        elif isinstance(child, list) and child:
            path_parent, key = child, draw(st.integers(0, len(child) - 1))
        else:
            break
    if draw(st.booleans()) and isinstance(path_parent, dict):
        del path_parent[key]
    else:
        path_parent[key] = draw(JUNK)
    return wire


@FUZZ
@given(data=st.one_of(JUNK, damaged_snapshots()))
def test_decoding_damaged_snapshots_raises_only_malformed_error(data: object) -> None:
    try:
        state = state_from_wire(data)
    except MalformedError:
        return
    assert state_from_wire(state_to_wire(state)) == state


@pytest.mark.slow
@SOAK_FUZZ
@given(data=st.one_of(JUNK, damaged_snapshots()))
def test_decoding_damaged_snapshots_soak(data: object) -> None:
    try:
        state = state_from_wire(data)
    except MalformedError:
        return
    assert state_from_wire(state_to_wire(state)) == state


def a_view_snapshot() -> dict[str, Any]:
    """Seat 1's view, mid-game, as plain data."""
    table, rng = new_game(0, 3, views=True, default_config=True)
    while len(table.actions) < 20 and not table.over:
        table.act(choose(table, rng, 80))
    return state_to_wire(table.views[1])


def own_hand_hidden(wire: dict[str, Any]) -> None:
    wire["hands"][1][0] = -1


def card_lost(wire: dict[str, Any]) -> None:
    wire["discards"][0] = wire["discards"][0][:-1] if wire["discards"][0] else []
    wire["hands"][1].pop()


def over_without_outcome(wire: dict[str, Any]) -> None:
    wire["phase"] = 3


@pytest.mark.parametrize("damage", [own_hand_hidden, card_lost, over_without_outcome])
def test_state_from_wire_rejects_snapshots_that_break_the_invariants(
    damage: Callable[[dict[str, Any]], None],
) -> None:
    wire = a_view_snapshot()
    assert not check_invariants(state_from_wire(wire))
    damage(wire)
    with pytest.raises(MalformedError):
        state_from_wire(wire)


def test_every_codec_is_made_at_once_before_any_record_needs_it() -> None:
    types = forget_codecs()
    assert prepare_codecs() == len(types)
    assert all(t._codec is not None for t in types)
    assert prepare_codecs() == 0  # made once
    # The codecs made ahead are the ones records use.
    assert Event.from_wire({"type": "turn_ended", "seat": 1}).to_wire() == \
        {"type": "turn_ended", "seat": 1}

"""The state's own machinery: ``State.copy``, which every view, trial and batch relies on."""

from __future__ import annotations

import dataclasses

from engine.events import PileCompleted
from engine.state import BlockWindow, Pile, State
from tests.engine.gameplay import Table, new_game, play

MUTABLE = (list, set, dict, Pile, BlockWindow)


def mutable_parts(value: object) -> list[object]:
    """Every mutable object reachable from ``value`` (a field's value)."""
    if isinstance(value, dict):
        return [value, *(part for item in value.values() for part in mutable_parts(item))]
    if isinstance(value, list | set | tuple):
        parts = [part for item in value for part in mutable_parts(item)]
        return [value, *parts] if isinstance(value, MUTABLE) else parts
    if isinstance(value, Pile | BlockWindow):
        fields = dataclasses.fields(value)
        return [value, *(p for f in fields for p in mutable_parts(getattr(value, f.name)))]
    return []


def check_copy(state: State) -> None:
    copy = state.copy()
    assert copy == state and type(copy) is State
    for field in dataclasses.fields(State):
        mine, theirs = getattr(state, field.name), getattr(copy, field.name)
        assert type(theirs) is type(mine), field.name
        shared = {id(p) for p in mutable_parts(mine)} & {id(p) for p in mutable_parts(theirs)}
        assert not shared, f"the copy shares {field.name} with the original"


def test_a_copy_equals_its_state_and_shares_no_mutable_zone() -> None:
    windows = 0
    for seed, players in ((1, 2), (2, 4), (3, 6), (9, 5)):
        table, rng = new_game(seed, players, views=True)

        def check(t: Table) -> None:
            if len(t.actions) % 5 == 0 or t.state.window is not None:
                for state in (t.state, *t.views):
                    check_copy(state)

        play(table, rng, on_state=check)
        windows += sum(isinstance(event, PileCompleted) for event in table.events)
    assert windows, "the games checked should open a Block window"

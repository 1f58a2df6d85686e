"""A fixed set of finished games (records), made once per test process."""

from __future__ import annotations

import copy
import functools
import time
from typing import Any

from engine.classic.config import SequenceConfig
from tests.netplay.harness import SHORT, Table, identity_for

PEOPLE = ("ann", "bob", "cy")
"""The same three people sit at every table (the same keys), with bots beside them."""


def _table(players: int, bots: tuple[str, ...], seed: int, **settings: Any) -> Table:
    table = Table(players, bots=bots, seed=seed, join=False, **settings)
    for name in PEOPLE[: players - len(bots)]:
        table.add_player(name, identity=identity_for(0, name))
    table.pump()
    return table


@functools.cache
def _records() -> tuple[tuple[dict[str, Any], ...], dict[str, Any]]:
    """The five Sequence Stacks games and the classic one, all played before any is given
    its end: they end a second apart from then, in that order (a record's end time must be
    after its players' signed moves, and not far in the future), whichever a test asks
    for first."""
    stacks = []
    for index, (players, bots) in enumerate([(3, ("medium",)), (3, ("easy",)),
                                             (4, ("medium", "medium")), (2, ()),
                                             (3, ("easy",))]):
        table = _table(players, bots, 70 + index, rules=SHORT)
        table.run_to_end()
        stacks.append(table.host.record())
    table = _table(4, ("easy", "medium"), 36, game="sequence", rules=SequenceConfig())
    table.run_to_end()
    sequence = table.host.record()
    made_at = float(int(time.time()))
    for index, record in enumerate(stacks):
        record["ended_at"] = made_at + 1 + index
    sequence["ended_at"] = made_at + 10
    return tuple(stacks), sequence


def stacks_records() -> list[dict[str, Any]]:
    """Five Sequence Stacks games, in the order they ended (2-4 players, bots of two
    levels, two medium bots at one table)."""
    return copy.deepcopy(list(_records()[0]))


def sequence_record() -> dict[str, Any]:
    """A classic Sequence game of 4 in 2 teams (2 people, an easy and a medium bot)."""
    return copy.deepcopy(_records()[1])

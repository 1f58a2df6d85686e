"""The seeded games the engine's property tests play (tests/engine/test_properties_*.py).

Each property test plays games chosen by ``(seed, players)`` (see :mod:`tests.engine.gameplay`):
a third of the seeds play the DEFAULT rules, the others random house rules; actions are
random legal ones, more or less eager to keep playing, with any seat answering a Block
window and the host closing windows early now and then. Checks run after every event
(the events of a step are replayed one by one on a shadow state and on every view) or at
every decision point. A failure names the seed and players that reproduce it.

Every test has a ``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.events import (
    CardPlayed,
    Event,
)
from engine.state import SPECTATOR, Audience, State
from tests.engine.gameplay import (
    Table,
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


def audiences(table: Table) -> list[tuple[Audience, State]]:
    assert table.spectator is not None
    return [*enumerate(table.views), (SPECTATOR, table.spectator)]


def at(table: Table, event: Event) -> str:
    return f"{table.where()} at {event}"

"""What a classic Sequence bot is to the code that uses one: a policy for one seat.

Its own module so that the search (``engine.classic.search``), which plays the opponents'
and the playouts' moves with medium's policy, and the bots (``engine.classic.bots``),
which build the search, both depend on it and not on each other.
"""

from __future__ import annotations

from typing import Protocol

from engine.classic.actions import SequenceAction
from engine.classic.state import SequenceState
from engine.state import Seat


class SequenceBot(Protocol):
    """Decides for one seat. ``view`` is that seat's view; ``legal`` is never empty."""

    name: str

    def choose(
        self, view: SequenceState, seat: Seat, legal: list[SequenceAction]
    ) -> SequenceAction: ...

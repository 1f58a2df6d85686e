"""Table rules of classic Sequence: every ``[cfg]`` of RULES.md §3, frozen, with its DEFAULT.

``None`` in a setting means "as the rules say for this many players" (hand sizes, teams,
sequences to win); :func:`engine.classic.state.SequenceState.new` resolves it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import IntEnum
from typing import Any, Final

from engine.classic.board import BOARDS
from engine.config import _coerce, _plain
from engine.errors import ConfigError

PLAYER_COUNTS: Final[tuple[int, ...]] = (2, 3, 4, 6, 8, 9, 10, 12)
"""§3.2: divisible by 2 or 3, at most 12 (JAX3)."""

HAND_SIZES: Final[dict[int, int]] = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}
"""§3.2: cards each by player count (DE, JSX, JOP)."""

MAX_TEAMS: Final = 3


class NoPlay(IntEnum):
    """§3.6: what a player with no legal play at all does."""

    DISCARD = 0
    """Discard one card of choice with no effect, then draw (DEFAULT)."""
    PASS = 1
    """Pass: nothing is discarded, nothing drawn."""


@dataclass(frozen=True, slots=True)
class SequenceConfig:
    """House rules of a classic Sequence table. Defaults are the decisions of RULES.md §3."""

    board: str = "standard"
    """§3.7: the layout, by name (``engine.classic.board.BOARDS``)."""
    teams: int | None = None
    """§3.2: number of sides. ``None``: 2 or 3 players play alone; 4, 8 and 10 players
    play in 2 teams, 9 in 3; 6 and 12 (either is allowed) default to 2 teams."""
    hand_size: int | None = None
    """§3.2: ``None`` = the hand-size table (7, 6, 6, 5, 4, 4, 3, 3)."""
    sequences_to_win: int | None = None
    """§3.2: ``None`` = 2 with two sides, 1 with three."""
    dead_cards_per_turn: int = 1
    """§3.3.1: dead-card exchanges allowed in one turn (0 = none)."""
    no_play: NoPlay = NoPlay.DISCARD
    """§3.6: the turn of a player who can play nothing."""
    choose_sequences: bool = False
    """§3.4: let the player pick which five of a longer run make the sequence (else the
    engine's DEFAULT choice: least overlap, then lowest start)."""
    dealer: int | None = None
    """§3.2: the dealing seat; ``None`` = cut for the deal with the seeded generator."""
    max_turns: int = 2000
    """§3.6 non-termination guard: reaching it ends the game as a draw."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.board not in BOARDS:
            problems.append(f"board must be one of {', '.join(BOARDS)}, not {self.board!r}")
        if self.teams is not None and self.teams not in (2, MAX_TEAMS):
            problems.append(f"teams must be 2 or 3 (or unset), not {self.teams}")
        if self.hand_size is not None and not 1 <= self.hand_size <= 7:
            problems.append(f"hand_size must be 1..7 (or unset), not {self.hand_size}")
        if self.sequences_to_win is not None and not 1 <= self.sequences_to_win <= 4:
            problems.append(
                f"sequences_to_win must be 1..4 (or unset), not {self.sequences_to_win}"
            )
        if not 0 <= self.dead_cards_per_turn <= 7:
            problems.append(f"dead_cards_per_turn must be 0..7, not {self.dead_cards_per_turn}")
        if self.dealer is not None and not 0 <= self.dealer < max(PLAYER_COUNTS):
            problems.append(f"dealer must be a seat 0..11 (or unset), not {self.dealer}")
        if not 1 <= self.max_turns <= 1_000_000:
            problems.append(f"max_turns must be 1..1000000, not {self.max_turns}")
        if problems:
            raise ConfigError("; ".join(problems))

    def to_wire(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_wire(cls, data: object) -> SequenceConfig:
        """Build from untrusted data; unknown keys or wrong types raise :class:`ConfigError`."""
        if not isinstance(data, dict):
            raise ConfigError("rules config must be a map")
        defaults = cls()
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in _FIELDS:
                raise ConfigError(f"unknown rule setting {key!r}")
            if key == "board":
                if not isinstance(value, str):
                    raise ConfigError(f"board must be a layout name, not {value!r}")
                kwargs[key] = value
            elif value is None and key in _NULLABLE:
                kwargs[key] = None
            else:
                default = getattr(defaults, key)
                kwargs[key] = _coerce(key, 0 if default is None else default, value)
        return cls(**kwargs)

    def with_changes(self, **changes: Any) -> SequenceConfig:
        return replace(self, **changes)


_FIELDS: Final = frozenset(f.name for f in fields(SequenceConfig))
_NULLABLE: Final = frozenset({"teams", "hand_size", "sequences_to_win", "dealer"})

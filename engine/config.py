"""Table rules: every ``[cfg]`` of RULES.md §1-2, frozen, with its DEFAULT."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import IntEnum
from typing import Any

from engine.cards import TwoPlayerDeck
from engine.errors import ConfigError


class StealChipWin(IntEnum):
    """A5: how "Steal a Chip cannot be used to win" is read."""

    ILLEGAL = 0
    """(a) the card is illegal when the steal would meet the win condition (DEFAULT)."""
    NO_WIN_CHECK = 1
    """(b) the steal is legal; wins are only checked after a completion."""


class SkipStacking(IntEnum):
    """A13: several skip effects in one turn."""

    STACK = 0
    """(a) each skips the next not-yet-skipped other player (DEFAULT)."""
    REDUNDANT = 1
    """(b) only one skip applies, however many were played."""
    NEXT_LOSES_K = 2
    """(c) the next player loses k turns."""


class SkipTiming(IntEnum):
    """A14: in which direction the skipped player is found."""

    FINAL_DIRECTION = 0
    """(a) the direction at the end of the turn (DEFAULT)."""
    AT_PLAY = 1
    """(b) the direction at the moment each skip effect was played."""


class StalemateResult(IntEnum):
    """§1.11: how a stalemate ends."""

    DRAW = 0
    MOST_CHIPS = 1


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """House rules of a table. Defaults are the decisions of RULES.md."""

    two_player_deck: TwoPlayerDeck = TwoPlayerDeck.GH
    """A1: which cards leave a 2-player deck."""
    first_player: int | None = None
    """§1.2.6: the starting seat; ``None`` = the seat left of the dealer (A26: the dealer
    is drawn from the game's seed and passes to the left in a rematch)."""
    hand_size: int = 5
    """§1.2.4 / §1.5.4: cards dealt and drawn up to."""
    max_open_piles_per_colour: int = 2
    """§1.4.3 / A7: ``0`` means no limit."""
    forced_play: bool = False
    """A6: when true, the turn can't end while a number or wild can go onto a pile."""
    unlimited_chips: bool = False
    """A16: when true, a completion always pays a chip even if the supply is empty."""
    chips_per_colour: int = 20
    """§1.1: chips in each colour's supply."""
    reshuffle_includes_action_cards: bool = False
    """A8: played action cards join the reshuffle pool."""
    steal_card_from_hand: bool = True
    """A9: Steal a Card may take a random hand card (else only the discard top)."""
    block_from_discard: bool = False
    """A10: a Block may also be played from the blocker's personal discard top."""
    win_chips: int = 5
    """A4: chips needed to win."""
    win_min_each_colour: int = 2
    """A4: of which at least this many of each colour (0 = the S0/S1 reading)."""
    steal_chip_win: StealChipWin = StealChipWin.ILLEGAL
    """A5."""
    skip_stacking: SkipStacking = SkipStacking.STACK
    """A13."""
    skip_timing: SkipTiming = SkipTiming.FINAL_DIRECTION
    """A14."""
    hand_limit: int | None = None
    """A21: ``None`` = no limit. With a limit, Steal a Card is illegal at or above it."""
    stalemate_result: StalemateResult = StalemateResult.DRAW
    """§1.11 / A17."""
    max_turns: int = 2000
    """§1.11 hard cap: reaching it ends the game as a draw."""
    max_plays_per_turn: int = 500
    """Engine safeguard (not in any source): past this many plays only ending the turn is legal."""

    def __post_init__(self) -> None:
        problems: list[str] = []
        if self.first_player is not None and not 0 <= self.first_player < 6:
            problems.append(f"first_player must be a seat 0..5, not {self.first_player}")
        if not 1 <= self.hand_size <= 20:
            problems.append(f"hand_size must be 1..20, not {self.hand_size}")
        if self.max_open_piles_per_colour < 0:
            problems.append("max_open_piles_per_colour must be >= 0 (0 = no limit)")
        if not 1 <= self.chips_per_colour <= 1000:
            problems.append(f"chips_per_colour must be 1..1000, not {self.chips_per_colour}")
        if not 1 <= self.win_chips <= 1000:
            problems.append(f"win_chips must be 1..1000, not {self.win_chips}")
        if not 0 <= 2 * self.win_min_each_colour <= self.win_chips:
            problems.append(
                "win_min_each_colour must be >= 0 and at most half of win_chips "
                f"({self.win_min_each_colour} of {self.win_chips})"
            )
        if self.hand_limit is not None and self.hand_limit < self.hand_size:
            problems.append(f"hand_limit must be >= hand_size ({self.hand_size}) or unset")
        if not 1 <= self.max_turns <= 1_000_000:
            problems.append(f"max_turns must be 1..1000000, not {self.max_turns}")
        if not 1 <= self.max_plays_per_turn <= 100_000:
            problems.append("max_plays_per_turn must be 1..100000")
        if problems:
            raise ConfigError("; ".join(problems))

    def to_wire(self) -> dict[str, Any]:
        """Plain values only (enums as ints)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_wire(cls, data: object) -> RulesConfig:
        """Build from untrusted data; unknown keys or wrong types raise :class:`ConfigError`."""
        if not isinstance(data, dict):
            raise ConfigError("rules config must be a map")
        known = {f.name: f for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise ConfigError(f"unknown rule setting {key!r}")
            kwargs[key] = _coerce(key, getattr(cls(), key), value)
        return cls(**kwargs)

    def with_changes(self, **changes: Any) -> RulesConfig:
        """A copy with some settings changed (validated)."""
        return replace(self, **changes)


_NULLABLE = {"first_player", "hand_limit"}


def _plain(value: object) -> object:
    return int(value) if isinstance(value, IntEnum) else value


def _coerce(key: str, default: object, value: object) -> object:
    if value is None and key in _NULLABLE:
        return None
    if isinstance(default, IntEnum):
        enum_type = type(default)
        if isinstance(value, str):
            try:
                return enum_type[value.upper()]
            except KeyError:
                pass
        elif isinstance(value, int) and not isinstance(value, bool):
            try:
                return enum_type(value)
            except ValueError:
                pass
        names = ", ".join(m.name.lower() for m in enum_type)
        raise ConfigError(f"{key} must be one of {names}, not {value!r}")
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key} must be true or false, not {value!r}")
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ConfigError(f"{key} must be a whole number, not {value!r}")

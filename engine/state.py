"""The game state: every zone of RULES.md §1.3, the phase, and the outcome.

One type serves the host (which knows every card) and every peer's *view* (which holds
:data:`~engine.cards.HIDDEN` wherever a card is not visible to it). The state is changed
only by :func:`engine.reducer.apply`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import IntEnum
from operator import attrgetter
from typing import Final

from engine.cards import CardId, Colour, deck_for
from engine.config import RulesConfig
from engine.errors import ConfigError

Seat = int
"""A seat at the table, ``0..players-1``; play goes to higher seats first ("left")."""

PileId = int
"""A sequence pile. Ids count up from 0 and are never reused, so a stale action can't
hit a newer pile."""

Audience = int
"""Who a view or an event is for: a seat, :data:`SPECTATOR` or :data:`HOST`."""

SPECTATOR: Final[Audience] = -1
HOST: Final[Audience] = -2

NEW_PILE: Final[PileId] = -1
"""Pile id in a play that opens a new pile."""

PILE_NAMES: Final = "acdfhjkmorsuvwyz"
"""The letters piles are named by (none is another key of the table's interface).

A pile gets its name when it opens and keeps it until it goes out of play, on every
peer: the host, each player, a spectator, a replay. Names are chosen in turn (pile id
modulo the alphabet), skipping any a pile still open holds, so a name comes back only
long after the last pile that had it has gone."""

MIN_PLAYERS: Final = 2
MAX_PLAYERS: Final = 6


class Phase(IntEnum):
    SETUP = 0
    """Before the deal."""
    PLAY = 1
    """The current player plays cards, then discards."""
    BLOCK_WINDOW = 2
    """A pile has just completed; opponents may Block (§1.6)."""
    GAME_OVER = 3


class Zone(IntEnum):
    """Where a player takes a card from."""

    HAND = 0
    DISCARD = 1
    """The top of the player's personal discard pile."""


class Termination(IntEnum):
    WIN = 0
    STALEMATE = 1
    """§1.11: no draws left and a full round without a play."""
    MAX_TURNS = 2
    """§1.11: the hard cap on turns."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended. ``winner`` is ``None`` for a draw."""

    termination: Termination
    winner: Seat | None


@dataclass(slots=True)
class Pile:
    id: PileId
    colour: Colour
    cards: list[CardId] = field(default_factory=list)
    name: str = ""
    """Its letter (:data:`PILE_NAMES`), given by :meth:`State.name_for_new_pile`."""

    @property
    def height(self) -> int:
        """The pile's value: the rank its top card stands for (0..5)."""
        return len(self.cards)

    def label(self) -> str:
        """``Red pile b``: how people (and refusals) call this pile."""
        return f"{self.colour.title} pile {self.name or default_pile_name(self.id)}"

    def copy(self) -> Pile:
        return Pile(self.id, self.colour, list(self.cards), self.name)


def pile_name(pile_id: PileId, taken: set[str]) -> str:
    """The name pile ``pile_id`` gets when it opens while the piles ``taken`` are open."""
    size = len(PILE_NAMES)
    start = pile_id % size
    for step in range(size):
        name = PILE_NAMES[(start + step) % size]
        if name not in taken:
            return name
    # More open piles than letters (only without a pile limit): a longer name.
    return f"{PILE_NAMES[start]}{pile_id}"


def default_pile_name(pile_id: PileId) -> str:
    """The name pile ``pile_id`` gets when no open pile holds it already."""
    return PILE_NAMES[pile_id % len(PILE_NAMES)]


@dataclass(slots=True)
class BlockWindow:
    """An open Block window: ``pile`` was completed by ``seat``."""

    pile: Pile
    seat: Seat
    refill: bool
    """The completing play emptied the hand: refill once the window closes (A15)."""
    eligible: tuple[Seat, ...]
    """Opponents who might hold a Block by public information."""
    passed: set[Seat] = field(default_factory=set)

    def copy(self) -> BlockWindow:
        return BlockWindow(
            self.pile.copy(), self.seat, self.refill, self.eligible, set(self.passed)
        )


@dataclass(slots=True)
class State:
    """A table's state, the host's (``audience == HOST``) or a view of it."""

    config: RulesConfig
    players: int
    deck: tuple[CardId, ...]
    audience: Audience = HOST
    draw_pile: list[CardId] = field(default_factory=list)
    """Face down; the top is the end of the list."""
    hands: list[list[CardId]] = field(default_factory=list)
    discards: list[list[CardId]] = field(default_factory=list)
    """Personal discard piles, face up; the top is the end of the list."""
    chips: list[list[int]] = field(default_factory=list)
    """``chips[seat][colour]``."""
    supply: list[int] = field(default_factory=list)
    skip_tokens: list[int] = field(default_factory=list)
    piles: list[Pile] = field(default_factory=list)
    """Open sequence piles, oldest first."""
    next_pile_id: PileId = 0
    out_of_play: list[CardId] = field(default_factory=list)
    """Completed and blocked piles: the reshuffle pool."""
    special_discard: list[CardId] = field(default_factory=list)
    """Played action cards."""
    direction: int = 1
    current: Seat = 0
    dealer: Seat = 0
    """A26: the seat right of the one that started (set when the first turn starts)."""
    phase: Phase = Phase.SETUP
    turn: int = 0
    """Turns started or skipped so far."""
    plays_this_turn: int = 0
    """Cards played to piles and action cards played in the current turn."""
    skips_this_turn: list[int] = field(default_factory=list)
    """The direction in force when each skip effect of this turn was played (A13, A14)."""
    idle_turns: int = 0
    """Consecutive turns with nothing to draw and nothing played (§1.11)."""
    dry_at_start: bool = False
    """Nothing was left to draw when the current turn began (§1.11)."""
    window: BlockWindow | None = None
    outcome: Outcome | None = None

    @classmethod
    def new(cls, config: RulesConfig, players: int) -> State:
        """A table before the deal: the deck in id order, empty hands, full supply."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ConfigError(
                f"Sequence Stacks is for {MIN_PLAYERS}-{MAX_PLAYERS} players, not {players}"
            )
        if config.first_player is not None and config.first_player >= players:
            raise ConfigError(
                f"first_player {config.first_player} is not a seat at {players} players"
            )
        deck = deck_for(players, config.two_player_deck)
        return cls(
            config=config,
            players=players,
            deck=deck,
            draw_pile=list(deck),
            hands=[[] for _ in range(players)],
            discards=[[] for _ in range(players)],
            chips=[[0, 0] for _ in range(players)],
            supply=[config.chips_per_colour, config.chips_per_colour],
            skip_tokens=[0] * players,
        )

    # -- queries -------------------------------------------------------------------------

    def pile(self, pile_id: PileId) -> Pile | None:
        for pile in self.piles:
            if pile.id == pile_id:
                return pile
        return None

    def name_for_new_pile(self) -> str:
        """The name the next pile to open gets (see :data:`PILE_NAMES`)."""
        taken = {p.name for p in self.piles}
        if self.window is not None:
            taken.add(self.window.pile.name)
        return pile_name(self.next_pile_id, taken)

    def open_piles(self, colour: Colour) -> int:
        return sum(1 for pile in self.piles if pile.colour == colour)

    def can_open_pile(self, colour: Colour) -> bool:
        limit = self.config.max_open_piles_per_colour
        return limit == 0 or self.open_piles(colour) < limit

    def discard_top(self, seat: Seat) -> CardId | None:
        pile = self.discards[seat]
        return pile[-1] if pile else None

    def reshuffle_pool(self) -> list[CardId]:
        """The cards a reshuffle would turn into the new draw pile (§1.8, A8)."""
        if self.config.reshuffle_includes_action_cards:
            return self.out_of_play + self.special_discard
        return list(self.out_of_play)

    def has_reshuffle_pool(self) -> bool:
        return bool(self.out_of_play) or (
            self.config.reshuffle_includes_action_cards and bool(self.special_discard)
        )

    def meets_win(self, red: int, blue: int) -> bool:
        """Whether a chip count meets the win condition (§1.10, A4)."""
        cfg = self.config
        need = cfg.win_min_each_colour
        return red + blue >= cfg.win_chips and red >= need and blue >= need

    def next_seat(self, seat: Seat, direction: int | None = None) -> Seat:
        return (seat + (self.direction if direction is None else direction)) % self.players

    def copy(self) -> State:
        """A copy that shares no mutable zone with this state (the reducer changes the
        zones in place; the config, the deck and the outcome are immutable)."""
        # Every field as it is, positionally (the peers copy their view once per batch,
        # and 25 keyword arguments cost twice the rest of the copy), then fresh zones.
        clone = State(*_every_field(self))
        clone.draw_pile = list(self.draw_pile)
        clone.hands = list(map(list, self.hands))
        clone.discards = list(map(list, self.discards))
        clone.chips = list(map(list, self.chips))
        clone.supply = list(self.supply)
        clone.skip_tokens = list(self.skip_tokens)
        clone.piles = list(map(Pile.copy, self.piles))
        clone.out_of_play = list(self.out_of_play)
        clone.special_discard = list(self.special_discard)
        clone.skips_this_turn = list(self.skips_this_turn)
        clone.window = None if self.window is None else self.window.copy()
        return clone


_every_field = attrgetter(*(f.name for f in fields(State)))
"""The values of all of a state's fields, in the order ``State(...)`` takes them."""


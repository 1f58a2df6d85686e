"""The state of a classic Sequence table: board chips, sequences, hands, piles, phase.

One type serves the host (every card known) and each peer's view (:data:`HIDDEN` where a
card is not visible to it). It is changed only by :func:`engine.classic.reducer.apply`.
Seats, audiences and outcomes are the engine's (:mod:`engine.state`): a seat plays for the
team ``seat % teams``, so seats alternate between teams, and the ``winner`` of an
:class:`~engine.state.Outcome` of this game is a **team**, numbered by its first seat.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from engine.classic.board import BOARDS, CELLS, CORNERS, Board, Cell
from engine.classic.cards import DECK, CardId
from engine.classic.config import HAND_SIZES, MAX_TEAMS, PLAYER_COUNTS, SequenceConfig
from engine.errors import ConfigError
from engine.state import HOST, Audience, Outcome, Seat

Team = int
"""A side: ``0..teams-1``; seat ``s`` plays for team ``s % teams``."""

EMPTY: Final[Team] = -1
"""A cell without a chip."""

TEAM_COLOURS: Final[tuple[str, ...]] = ("Blue", "Green", "Red")
"""JAX3: blue and green with two sides, red only for a third."""
TEAM_LETTERS: Final[tuple[str, ...]] = ("B", "G", "R")


class Phase(IntEnum):
    """Numbered as Sequence Stacks' phases (:class:`engine.state.Phase`), so table code
    that asks "is it play, is it over" reads either game alike; there is no 2 (Stacks'
    Block window) here."""

    SETUP = 0
    """Before the deal."""
    PLAY = 1
    """The current player may exchange a dead card, then plays one card."""
    GAME_OVER = 3


def default_teams(players: int) -> int:
    """§3.2: up to 3 play alone; more play in 2 teams, or 3 when 2 can't divide them."""
    if players <= MAX_TEAMS:
        return players
    return 2 if players % 2 == 0 else 3


def team_name(team: Team) -> str:
    return TEAM_COLOURS[team] if 0 <= team < len(TEAM_COLOURS) else f"team {team}"


@dataclass(frozen=True, slots=True)
class Sequence:
    """A completed sequence: five cells of one window, held by ``team`` for good."""

    team: Team
    cells: tuple[Cell, ...]


@dataclass(slots=True)
class SequenceState:
    """A classic table's state, the host's (``audience == HOST``) or a view of it."""

    config: SequenceConfig
    players: int
    teams: int
    hand_size: int
    to_win: int
    """Sequences a team needs."""
    board: Board
    audience: Audience = HOST
    deck: tuple[CardId, ...] = DECK
    draw_pile: list[CardId] = field(default_factory=list)
    """Face down; the top is the end of the list."""
    hands: list[list[CardId]] = field(default_factory=list)
    discards: list[list[CardId]] = field(default_factory=list)
    """Each player's face-up discard pile; the top is the end of the list."""
    chips: list[Team] = field(default_factory=list)
    """``chips[cell]``: the team whose chip is there, or :data:`EMPTY`."""
    locked: list[bool] = field(default_factory=list)
    """``locked[cell]``: part of a completed sequence, so no jack can remove it."""
    sequences: list[Sequence] = field(default_factory=list)
    dealer: Seat = 0
    current: Seat = 0
    phase: Phase = Phase.SETUP
    turn: int = 0
    """Turns started so far."""
    exchanges: int = 0
    """Dead cards exchanged in the current turn."""
    played: bool = False
    """The current player has played (or passed) this turn."""
    outcome: Outcome | None = None

    @classmethod
    def new(cls, config: SequenceConfig, players: int) -> SequenceState:
        """A table before the deal, with teams, hand size and target resolved."""
        if players not in PLAYER_COUNTS:
            counts = ", ".join(map(str, PLAYER_COUNTS[:-1])) + f" or {PLAYER_COUNTS[-1]}"
            raise ConfigError(f"Sequence is for {counts} players, not {players}")
        teams = config.teams or default_teams(players)
        if players <= MAX_TEAMS and config.teams not in (None, players):
            raise ConfigError(f"{players} players play alone: {players} sides, not {teams}")
        if players % teams:
            raise ConfigError(f"{players} players can't form {teams} teams of the same size")
        hand_size = config.hand_size or HAND_SIZES[players]
        if config.dealer is not None and config.dealer >= players:
            raise ConfigError(f"dealer {config.dealer} is not a seat at {players} players")
        return cls(
            config=config,
            players=players,
            teams=teams,
            hand_size=hand_size,
            to_win=config.sequences_to_win or (2 if teams == 2 else 1),
            board=BOARDS[config.board],
            draw_pile=list(DECK),
            hands=[[] for _ in range(players)],
            discards=[[] for _ in range(players)],
            chips=[EMPTY] * CELLS,
            locked=[False] * CELLS,
        )

    # -- queries -------------------------------------------------------------------------

    def team_of(self, seat: Seat) -> Team:
        return seat % self.teams

    def members(self, team: Team) -> tuple[Seat, ...]:
        return tuple(range(team, self.players, self.teams))

    def sequence_count(self, team: Team) -> int:
        return sum(1 for s in self.sequences if s.team == team)

    def is_dead(self, code: str) -> bool:
        """Both spaces of a non-jack card are covered (§3.3.1)."""
        first, second = self.board.spaces[code]
        return self.chips[first] != EMPTY and self.chips[second] != EMPTY

    def owns(self, cell: Cell, team: Team) -> bool:
        """The cell counts for ``team``: its chip, or a corner (every colour)."""
        return cell in CORNERS or self.chips[cell] == team

    def next_seat(self, seat: Seat) -> Seat:
        """Clockwise: the seat on the left."""
        return (seat + 1) % self.players

    def copy(self) -> SequenceState:
        return SequenceState(
            config=self.config,
            players=self.players,
            teams=self.teams,
            hand_size=self.hand_size,
            to_win=self.to_win,
            board=self.board,
            audience=self.audience,
            deck=self.deck,
            draw_pile=list(self.draw_pile),
            hands=[list(h) for h in self.hands],
            discards=[list(d) for d in self.discards],
            chips=list(self.chips),
            locked=list(self.locked),
            sequences=list(self.sequences),
            dealer=self.dealer,
            current=self.current,
            phase=self.phase,
            turn=self.turn,
            exchanges=self.exchanges,
            played=self.played,
            outcome=self.outcome,
        )

"""The table's settings (:class:`HostSettings`): what ``stacks host`` and the ssh server's
tables are opened with, checked in words, and journaled so that a resumed host is the same
table."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from engine.bots import canonical
from engine.config import RulesConfig
from engine.games import DEFAULT_GAME, STACKS, GameDef, game_def


@dataclass(frozen=True)
class HostSettings:
    table: str
    players: int
    bots: tuple[str, ...] = ()
    """Strategies of the host's own bots; they take the last seats."""
    rules: Any = field(default_factory=RulesConfig)
    """The table rules: the config type of ``game`` (a default ``RulesConfig`` given for
    another game becomes that game's default config)."""
    block_window: float = 3.0
    password: str | None = None
    title: str = ""
    bot_delay: float = 0.0
    """Seconds a bot of the host waits before it acts (pacing for people watching)."""
    grace: float = 20.0
    """Seconds an away player's turn waits before a stand-in bot plays it."""
    away_after: float = 10.0
    """Seconds without a heartbeat after which a player the table waits for counts as away
    (such a seat beats every 4 s: ``netplay.player.HEARTBEAT``), counted from the later of
    its last frame and the moment the table began to wait for it."""
    idle_away_after: float = 20.0
    """Seconds without a heartbeat after which a player the table does not wait for (not
    its turn, no Block window it may answer) counts as away: such a seat beats every 8 s
    (``netplay.player.IDLE_HEARTBEAT``, protocol 8)."""
    heartbeat: float = 2.0
    """The longest the host stays silent to its peers: it beats when nothing went to
    every peer (a batch, a frame on ``table``) for this long, jittered up to a fifth
    sooner (see :meth:`HostSession._beat`). Until issue #28 it beat on a 1 s grid and
    skipped a beat after a batch: as silent, at most ~2 s, with twice the beats."""
    turn_clock: float = 0.0
    spectator_delay: float = 0.0
    """Seconds the public stream reaches spectators late (players' own streams are not)."""
    """Seconds a seated player has for a turn before the stand-in bot plays it (0: off)."""
    race_settle: float = 0.25
    """Seconds after a Block window closes during which late presses are still listed."""
    standin: str = "medium"
    """The level of the bot that plays the turn of a player who is away."""
    dealer: int | None = None
    """A26: the dealer of this game (a rematch passes the deal left); ``None`` = drawn
    from the game's seed."""
    game: str = DEFAULT_GAME
    """Which game the table plays (``engine.games.GAMES``): ``stacks`` or ``sequence``."""
    plain_window: float | None = None
    """Seconds the Block window is lengthened to, before the deal, when a seat that plays
    in plain mode (a screen reader) joins (``None``: left as it is)."""

    @property
    def definition(self) -> GameDef[Any, Any, Any, Any]:
        return game_def(self.game)

    def __post_init__(self) -> None:
        if not 0 <= self.spectator_delay <= 3600:
            raise ValueError("the spectator delay must be 0 to 3600 seconds")
        if not 0 <= self.turn_clock <= 3600:
            raise ValueError("the turn clock must be 0 (off) to 3600 seconds")
        definition = self.definition
        default = definition.config_type()
        if type(self.rules) is not type(default):
            if self.rules != RulesConfig():
                raise ValueError(f"{definition.title} takes its own rules, not {self.rules!r}")
            object.__setattr__(self, "rules", default)
        definition.check_players(self.players)
        if definition is not STACKS:
            definition.new_state(self.rules, self.players)  # teams, dealer: in words
        if len(self.bots) > self.players:
            raise ValueError(f"{len(self.bots)} bots don't fit at {self.players} seats")
        check_block_window(self.block_window)
        if self.plain_window is not None:
            check_block_window(self.plain_window, "the plain mode's block window")
        first = getattr(self.rules, "first_player", None)
        if first is not None and first >= self.players:
            raise ValueError(f"first_player {first} is not a seat at {self.players} players")
        for level in self.bots:
            bot_level(self, level)  # raises ValueError for a bot name the game has none of
        canonical(self.standin)  # a level; a game without it stands in with its default
        if self.dealer is not None and not 0 <= self.dealer < self.players:
            raise ValueError(f"dealer {self.dealer} is not a seat at {self.players} players")

    def to_wire(self) -> dict[str, Any]:
        """Plain data for the journal (every field; the rules as their wire form)."""
        wire = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        wire["rules"] = self.rules.to_wire()
        wire["bots"] = list(self.bots)
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> HostSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in wire.items() if k in known}
        values["rules"] = game_def(values.get("game", DEFAULT_GAME)).config_from_wire(
            wire.get("rules", {}))
        values["bots"] = tuple(wire.get("bots", ()))
        return cls(**values)


MAX_BLOCK_WINDOW = 60.0
"""The longest Block window a table may have, in seconds."""


def check_block_window(seconds: float, what: str = "the block window") -> None:
    """``ValueError`` in words unless ``seconds`` is more than 0 and at most
    :data:`MAX_BLOCK_WINDOW`."""
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
            or not 0 < seconds <= MAX_BLOCK_WINDOW:
        raise ValueError(f"{what} must be more than 0 and at most "
                         f"{MAX_BLOCK_WINDOW:g} seconds")


def bot_level(settings: HostSettings, name: str) -> str:
    """A host bot's name as shown (Stacks' level for an alias); ``ValueError`` for a name
    the table's game has no bot of."""
    definition = settings.definition
    if definition is STACKS:
        return canonical(name)
    if name not in definition.bot_names:
        raise ValueError(f"{definition.title} has no {name!r} bot; choose from "
                         f"{', '.join(definition.bot_names)}")
    return name

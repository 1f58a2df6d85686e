"""What the user asked to do: play against bots, host, join or watch a table.

A launch is plain data: the command line builds one, the menu builds one, tests build
one. :class:`tui.session.TableSession` turns it into running peers.
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Literal

from engine.config import RulesConfig

DEFAULT_BROKER = "mqtt://127.0.0.1:1883"
DEFAULT_TABLE = "stacks"
MEMORY = "memory"
"""A broker value meaning: an in-process memory broker (tests and benchmarks)."""

Role = Literal["play", "host", "join", "watch"]


@dataclass(frozen=True)
class Launch:
    """One table session as the user asked for it."""

    role: Role
    table: str = DEFAULT_TABLE
    name: str = ""
    """The user's name at the table (default: the OS user name)."""
    profile: str | None = None
    """The identity profile (default: derived from the OS user name)."""
    broker: str | None = None
    """``mqtt://...``; ``None`` to start the embedded broker (play, host); ``memory``."""
    password: str | None = None
    # -- the host's settings (play, host) --
    players: int = 4
    bots: int = 3
    bot_levels: tuple[str, ...] = ()
    """The level of each bot seat (easy, medium, hard), cycled; empty = all medium."""
    standin: str = "medium"
    """The level of the bot that plays for a player who is away."""
    bot_delay: float = 0.6
    block_window: float = 3.0
    plain_window: float | None = None
    """The Block window a seat in plain mode (a screen reader) gets, if it joins before the
    deal (``stacks host --plain-window``; ``None``: off)."""
    turn_clock: float = 60.0
    """Seconds per turn before the stand-in plays it (0: off); never on in ``play``."""
    spectator_delay: float = 0.0
    variant: str = "stacks"
    """Which game a host deals (``engine.games.GAMES``): ``stacks`` (Sequence Stacks) or
    ``sequence`` (classic Sequence). Joining and watching follow the table's."""
    rules: Any = field(default_factory=RulesConfig)
    """The table rules: a ``RulesConfig``, or a ``SequenceConfig`` for classic Sequence
    (a default ``RulesConfig`` stands for the default rules of either game)."""
    seed: int | None = None
    """Makes the deal reproducible (the host's secret and every seat's entropy)."""
    bind: str = "127.0.0.1"
    port: int = 0
    """Where the embedded broker listens (port 0: any free port)."""
    advertise: bool = True
    """A host that starts its own broker announces it on the LAN (mDNS)."""
    record: Path | None = None
    """Where the host writes the game record (``None``: no record, unless
    ``default_record``)."""
    default_record: bool = False
    """A host with no ``record``: the record goes to the records folder, named after the
    game and the table when the table opens (``netplay.journal.default_record_path``;
    the host form may change both before that)."""
    verify_wait: float = 5.0
    table_open: bool = True
    """False: a host first chooses the settings in the lobby."""
    game: int = 0
    """Counts rematches, so that a seeded rematch deals a new game."""
    resume: Path | None = None
    """A host: bring back the unfinished table of this journal (``stacks host --resume``)."""
    new_table: bool = False
    """A host: abandon an unfinished table of the same name instead of refusing."""
    held: bool = False
    """A table held by the ssh server (`stacks serve`): the host form asks the server to
    open it, and from then on this program is a player at it (its creator: it may fill
    the empty seats with bots and close the lobby)."""
    host_pin: str | None = None
    """The key the ssh server says hosts the table (its ``info``, ``open``): followed at
    once, as if pinned (no wait for a rogue's announcement: the server that runs this
    program holds the table, or its community does)."""
    ssh: str = ""
    """How players reach the ssh server this program runs under (``ssh -t -p 2222
    HOST``), so that the lobby can show the command that joins its table."""
    dealer: int | None = None
    """A26: who deals (a rematch passes the deal left); ``None`` = drawn from the seed."""
    engines: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Outside programs seated at our own table (play, host), each as a peer of its own
    that plays through the engine protocol: (name, command line)."""
    engine_budget: float = 2.0
    """Seconds an engine has per decision before the stand-in plays it."""
    engine_choices: tuple[str, ...] = ()
    """The engines the ssh server offers as opponents (the host form lists them); a held
    table's chosen ones go in ``engines`` with no command: the server knows it."""

    @property
    def hosting(self) -> bool:
        return self.role in ("play", "host")

    def bot_level(self, index: int) -> str:
        """The level of the ``index``-th bot seat."""
        levels = self.bot_levels or ("medium",)
        return levels[index % len(levels)]

    def display_name(self) -> str:
        return self.name or default_name()

    def with_seats_filled(self, count: int) -> Launch:
        """This table once ``count`` empty seats were filled with bots (Ctrl+B in the
        lobby): its next game (a rematch) seats them again, as bots of the table's own.
        They sat before the table's bots (which take the last seats), at the first level,
        as the lobby seats them: their levels go first."""
        if count <= 0:
            return self
        levels = (self.bot_level(0),) * count + tuple(
            self.bot_level(i) for i in range(self.bots))
        return replace(self, bots=self.bots + count, bot_levels=levels)

    def rematch(self, dealer: int | None = None) -> Launch:
        """The next game; the deal passes to the left of ``dealer``, the last game's (A26)."""
        passed = None if dealer is None else (dealer + 1) % self.players
        return replace(self, game=self.game + 1, dealer=passed)


def as_held(launch: Launch, settings: dict[str, Any]) -> Launch:
    """``launch`` (a `join TABLE`) as the creator's of the table the ssh server holds, with
    the table's own settings (the ``settings`` of the server's ``info`` reply): a rematch
    then opens the same table again, not one with the defaults of a join. A field the
    server did not send, or sent wrong, keeps the launch's."""
    from engine.errors import EngineError
    from engine.games import game_def

    changes: dict[str, Any] = {"held": True}
    for key in ("players", "bots"):
        value = settings.get(key)
        if type(value) is int and value >= 0:
            changes[key] = value
    for key in ("block_window", "bot_delay", "turn_clock", "spectator_delay"):
        seconds = settings.get(key)
        if isinstance(seconds, int | float) and not isinstance(seconds, bool) \
                and 0 <= seconds < float("inf"):
            changes[key] = float(seconds)
    password = settings.get("password")
    if password is None or isinstance(password, str):
        changes["password"] = password or None
    engines = settings.get("engines")
    if isinstance(engines, list) and all(isinstance(name, str) for name in engines):
        changes["engines"] = tuple((name, ()) for name in engines)  # the server's own
    game = settings.get("game")
    if isinstance(game, str):
        try:
            definition = game_def(game)
            changes["rules"] = definition.config_from_wire(settings.get("rules") or {})
            changes["variant"] = definition.name
        except (EngineError, ValueError, TypeError, KeyError):
            pass
    return replace(launch, **changes)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    return (name or "player")[:24]


LOCK_FILE = "in-use.lock"
_PROFILE_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def default_profile() -> str:
    """A profile name from the OS user name, valid for ``load_profile``."""
    name = _PROFILE_SAFE.sub("-", default_name()).lstrip("-._") or "player"
    return name[:32]


class ProfileLock:
    """Keeps a profile to one running process.

    Two terminals of one OS user would otherwise share an identity, and a host takes a
    second join with the same key for the first player coming back. The second process
    gets ``NAME-2`` (then ``-3``...) instead.
    """

    def __init__(self, base: Path) -> None:
        self.base = base
        self._handle: IO[str] | None = None
        self.name: str | None = None

    def acquire(self, wanted: str, *, exact: bool) -> str:
        """Lock ``wanted`` (or the first free ``wanted-N`` unless ``exact``); its name."""
        candidates = [wanted] if exact else [wanted] + [
            f"{wanted[:29]}-{n}" for n in range(2, 10)
        ]
        for name in candidates:
            folder = self.base / name
            try:
                folder.mkdir(parents=True, exist_ok=True)
                # "a+", not "w": opening must not wipe the holder's pid before we know.
                handle = open(folder / LOCK_FILE, "a+")  # noqa: SIM115 - held until release
            except OSError:
                continue
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            handle.seek(0)
            handle.truncate()
            handle.write(f"{os.getpid()}\n")
            handle.flush()
            self._handle, self.name = handle, name
            return name
        return wanted  # every lock failed (read-only home?): share the identity

    @property
    def held(self) -> bool:
        return self._handle is not None

    def holder(self, name: str) -> str | None:
        """The pid written by the process that holds profile ``name``, if it says."""
        try:
            text = (self.base / name / LOCK_FILE).read_text().strip()
        except OSError:
            return None
        return text if text.isdigit() else None

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(handle, fcntl.LOCK_UN)
            handle.close()

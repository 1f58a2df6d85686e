"""The games this engine plays, as definitions that table code can dispatch on.

A :class:`GameDef` bundles one game's pure functions (deal, step, apply, legality,
views, hash, wire forms, snapshots, invariants) under a name, in the manner of
boardgame.io's game objects: the host, the players, ``stacks verify`` and the
interface can hold a ``GameDef`` and never import a game's modules by hand.

``GAMES["stacks"]`` is Sequence Stacks (the default everywhere); ``GAMES["sequence"]``
is classic Sequence (:mod:`engine.classic`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, Protocol, TypeVar

from engine import classic
from engine.actions import Action
from engine.bots import BOT_NAMES, make_bot
from engine.classic import invariants as classic_invariants
from engine.classic import snapshot as classic_snapshot
from engine.classic.actions import SequenceAction
from engine.classic.bots import SEQUENCE_BOT_NAMES, make_sequence_bot
from engine.classic.events import SequenceEvent
from engine.config import RulesConfig
from engine.errors import ConfigError
from engine.events import Event
from engine.game import Game
from engine.invariants import check_invariants
from engine.reducer import apply, apply_checked
from engine.rules import legal_actions
from engine.snapshot import state_from_wire, state_to_wire
from engine.state import MAX_PLAYERS, MIN_PLAYERS, Outcome, Phase, Seat, State
from engine.views import public_hash, view_for

AnyAction = Action | SequenceAction
"""An action of any game (each game decodes only its own)."""
AnyEvent = Event | SequenceEvent


class TableGame(Protocol):
    """What :class:`engine.game.Game` and :class:`engine.classic.SequenceGame` share: a
    dealt table that table code (host, verifier) steps without knowing the game."""

    state: Any
    log: list[Any]
    keep_log: bool

    def act(self, action: Any) -> list[Any]: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def over(self) -> bool: ...


class TableBot(Protocol):
    """What every game's bots share: a choice from a seat's view and its legal actions."""

    name: str

    def choose(self, view: Any, seat: Seat, legal: list[Any]) -> Any: ...


def searches(bot: object) -> bool:
    """Whether ``bot`` thinks for a time budget (a search bot): a peer runs its decisions
    off the event loop. The others decide in well under a millisecond, inline (handing
    hundreds of seats' decisions to a thread pool costs more than it saves)."""
    return bool(getattr(bot, "SEARCHES", False))


S = TypeVar("S")
"""The game's state type (host state and views alike)."""
A = TypeVar("A")
E = TypeVar("E")
C = TypeVar("C")


@dataclass(frozen=True, slots=True)
class GameDef(Generic[S, A, E, C]):
    """One game's rules as plain functions (all pure, all standard library)."""

    name: str
    """The wire and command-line name: ``stacks`` or ``sequence``."""
    title: str
    player_counts: tuple[int, ...]
    config_type: Callable[[], C]
    """Builds the default config."""
    config_from_wire: Callable[[object], C]
    config_to_wire: Callable[[C], dict[str, Any]]
    new_game: Callable[[int, bytes, C, Seat | None], TableGame]
    """``new_game(players, seed, config, dealer)``: a dealt table (``dealer`` ``None`` =
    drawn from the seed; a rematch passes it on) with ``state``, ``rng``,
    ``log``, ``act(action)``, ``legal_actions(seat)``, ``view(seat)``, ``over``."""
    apply: Callable[[S, E], None]
    apply_checked: Callable[[S, E], None]
    legal_actions: Callable[[S, Seat], list[A]]
    view_for: Callable[[S, int], S]
    public_hash: Callable[[S], str]
    action_from_wire: Callable[[object], A]
    event_from_wire: Callable[[object], E]
    state_to_wire: Callable[[S], dict[str, Any]]
    state_from_wire: Callable[[object], S]
    check_invariants: Callable[[S], list[str]]
    outcome: Callable[[S], Outcome | None]
    new_state: Callable[[C, int], S]
    """A table before the deal (a peer's starting view comes from it)."""
    to_move: Callable[[S], list[Seat]]
    """The seats whose decision the game waits for now (none once it is over)."""
    bot_names: tuple[str, ...]
    default_bot: str
    """The bot that plays when none is named, and the stand-in for an away player."""
    make_bot: Callable[[str, bytes | None], TableBot]
    """``make_bot(name, seed)`` (``seed`` ``None``: from the OS, unpredictable);
    ``ValueError`` naming the choices for an unknown name.
    The bot has ``choose(view, seat, legal) -> action``."""

    def bot(self, name: str | None, seed: bytes | None = None) -> TableBot:
        """The named bot, or this game's default when the name is not one of its own (a
        Stacks strategy named for a classic table, say)."""
        return self.make_bot(name if name in self.bot_names else self.default_bot, seed)

    def check_players(self, players: int) -> None:
        """Raise :class:`ConfigError` in words when the game is not for ``players``."""
        if players not in self.player_counts:
            raise ConfigError(f"{self.title} is for {self.counts_words()} players, not {players}")

    def counts_words(self) -> str:
        """``2-6``, or ``2, 3, 4, 6, 8, 9, 10 or 12``."""
        counts = self.player_counts
        if list(counts) == list(range(counts[0], counts[-1] + 1)):
            return f"{counts[0]}-{counts[-1]}"
        return ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"


def _stacks_to_move(state: State) -> list[Seat]:
    if state.outcome is not None or state.phase == Phase.SETUP:
        return []
    if state.phase == Phase.BLOCK_WINDOW:
        window = state.window
        assert window is not None
        return [s for s in window.eligible if s not in window.passed]
    return [state.current]


def _sequence_to_move(state: classic.SequenceState) -> list[Seat]:
    return [state.current] if state.phase == classic.Phase.PLAY else []


def _stacks_game(players: int, seed: bytes, config: RulesConfig, dealer: Seat | None) -> Game:
    return Game.new(players, seed, config, keep_log=True, dealer=dealer)


def _sequence_game(
    players: int, seed: bytes, config: classic.SequenceConfig, dealer: Seat | None
) -> classic.SequenceGame:
    return classic.SequenceGame.new(players, seed, config, keep_log=True, dealer=dealer)


STACKS: Final[GameDef[Any, Action, Event, RulesConfig]] = GameDef(
    name="stacks",
    title="Sequence Stacks",
    player_counts=tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
    config_type=RulesConfig,
    config_from_wire=RulesConfig.from_wire,
    config_to_wire=RulesConfig.to_wire,
    new_game=_stacks_game,
    apply=apply,
    apply_checked=apply_checked,
    legal_actions=legal_actions,
    view_for=view_for,
    public_hash=public_hash,
    action_from_wire=Action.from_wire,
    event_from_wire=Event.from_wire,
    state_to_wire=state_to_wire,
    state_from_wire=state_from_wire,
    check_invariants=check_invariants,
    outcome=lambda state: state.outcome,
    new_state=State.new,
    to_move=_stacks_to_move,
    bot_names=BOT_NAMES,
    default_bot="medium",
    make_bot=make_bot,
)

SEQUENCE: Final[GameDef[Any, SequenceAction, SequenceEvent, classic.SequenceConfig]] = GameDef(
    name="sequence",
    title="Sequence",
    player_counts=classic.PLAYER_COUNTS,
    config_type=classic.SequenceConfig,
    config_from_wire=classic.SequenceConfig.from_wire,
    config_to_wire=classic.SequenceConfig.to_wire,
    new_game=_sequence_game,
    apply=classic.apply,
    apply_checked=classic.apply_checked,
    legal_actions=classic.legal_actions,
    view_for=classic.view_for,
    public_hash=classic.public_hash,
    action_from_wire=SequenceAction.from_wire,
    event_from_wire=SequenceEvent.from_wire,
    state_to_wire=classic_snapshot.state_to_wire,
    state_from_wire=classic_snapshot.state_from_wire,
    check_invariants=classic_invariants.check_invariants,
    outcome=lambda state: state.outcome,
    new_state=classic.SequenceState.new,
    to_move=_sequence_to_move,
    bot_names=SEQUENCE_BOT_NAMES,
    default_bot="medium",
    make_bot=make_sequence_bot,
)

GAMES: Final[dict[str, GameDef[Any, Any, Any, Any]]] = {
    STACKS.name: STACKS,
    SEQUENCE.name: SEQUENCE,
}
DEFAULT_GAME: Final = STACKS.name


def game_def(name: str) -> GameDef[Any, Any, Any, Any]:
    """The game called ``name``; :class:`ConfigError` naming the choices otherwise."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown game {name!r}; choose from {', '.join(GAMES)}") from None

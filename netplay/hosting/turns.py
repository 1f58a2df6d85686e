"""Who plays the turn when no person does (:class:`Turns`): the host's own bots (paced by
``bot_delay``, their search made off the driver's loop with ``offload``), the stand-in bot
for a player who stays away past the grace period, and the turn clock, whose timeout has
the stand-in play that one turn. And whom the table waits for, with how long
(:meth:`Turns.waits`, told in the heartbeats).

No I/O: a decision is played through the table (:class:`TurnTable`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

from engine.games import AnyAction, GameDef, TableBot, TableGame, searches
from engine.state import Seat
from netplay.clock import TurnClock, Wait
from netplay.hosting.presence import Presence
from netplay.hosting.race import BlockRace
from netplay.hosting.seats import Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState

log = logging.getLogger("netplay.host")


@dataclass(eq=False)
class BotTurn:
    """A decision of one of the host's bots, for the driver to make off its loop (see
    :attr:`Turns.offload`): ``bot.choose(view, seat, legal)``, then
    ``HostSession.bot_decided``."""

    seat: Seat
    bot: TableBot
    view: Any
    legal: list[Any]
    standin: bool
    at: int
    """How many batches the table had published when it was asked."""


class TurnTable(Protocol):
    now: float
    settings: HostSettings
    definition: GameDef[Any, Any, Any, Any]
    seating: Seating
    state: TableState
    game: TableGame | None
    presence: Presence
    block_race: BlockRace

    @property
    def batch_count(self) -> int: ...
    def deciders(self) -> list[Seat]: ...
    def in_window(self) -> bool: ...
    def step(self, action: AnyAction, proof: bytes | None, key: bytes | None, *,
             standin: bool = False) -> bool: ...
    def announce(self) -> None: ...


class Turns:
    """The host's bots, the stand-ins and the turn clock."""

    def __init__(self, table: TurnTable, settings: HostSettings) -> None:
        self.table = table
        self.clock = TurnClock(settings.turn_clock)
        self.timed_out: tuple[int, Seat] | None = None
        """The turn whose clock ran out: the stand-in bot plays it for the seat."""
        self._clock_bot: TableBot | None = None
        self.bot_at: float | None = None
        """When a host's bot (or a stand-in) plays next."""
        self.offload = False
        """Set by a driver that makes the host bots' decisions itself, off its loop (a
        search bot thinks for up to its budget, and the table must keep answering): a due
        decision then waits in :meth:`take_bot_turn` instead of being made in :meth:`tick`."""
        self._bot_turn: BotTurn | None = None
        self.thinking: BotTurn | None = None
        """The decision the driver is making (handed out, not yet answered)."""

    def next_deadline(self, now: float) -> float | None:
        times = [t for t in (self.bot_at, self.standin_due()) if t is not None]
        clock = self.clock.due()
        if clock is not None and self.clock.turn != self.timed_out:
            times.append(clock)
        return min(times) if times else None

    def tick(self, now: float) -> None:
        if self.bot_at is not None and now >= self.bot_at:
            self.bot_at = None
            self._run_bot()
        due = self.standin_due()
        if due is not None and now >= due:
            self._run_standin()
        self.clock_tick(now)
        self.schedule()

    def clock_tick(self, now: float) -> None:
        """The turn clock runs out: the stand-in bot plays this turn."""
        self.sync_clock()
        clock = self.clock.due()
        if clock is not None and now >= clock and self.clock.turn != self.timed_out:
            self.timed_out = self.clock.turn
            log.info("seat %s ran out of time: the stand-in bot plays this turn",
                     self.clock.turn[1] if self.clock.turn else "?")

    def host_bot(self, seat: Seat) -> TableBot | None:
        """The bot that plays ``seat`` now (the host's own, a stand-in, or the turn clock's),
        if any."""
        table = self.table
        info = table.seating.seats[seat]
        if info is None:
            return None
        bot = info.bot or info.standin
        if bot is None and self.timed_out is not None and self.timed_out == self.clock.turn \
                and self.timed_out[1] == seat and not table.in_window():
            if self._clock_bot is None:
                self._clock_bot = table.definition.bot(table.settings.standin, None)
            bot = self._clock_bot
        return bot

    def sync_clock(self) -> None:
        table = self.table
        game = table.game
        if not self.clock.on:
            return
        if game is None or table.state.over:
            self.clock.sync(None, False, table.now)
            return
        state = game.state
        seat: Seat = state.current
        info = table.seating.seats[seat]
        window = table.in_window()
        human = info is not None and not info.is_bot
        turn = None if window else (int(state.turn), seat)
        running = human and not window and (info is None or info.standin is None)
        self.clock.sync(turn, running, table.now)

    def waits(self) -> list[Wait]:
        """The seated players the table waits for now, with how long (for everyone)."""
        table = self.table
        if not table.state.started or table.state.over:
            return []
        self.sync_clock()
        now = table.now
        out: list[Wait] = []
        for seat in table.deciders():
            info = table.seating.seats[seat]
            if info is None or info.is_bot:
                continue
            away = now - info.last_seen if table.presence.away(info) else None
            if table.in_window():
                out.append(Wait(seat, away, None, table.block_race.left(now)))
                continue
            dues = []
            if info.standin is not None or (
                    self.timed_out is not None and self.timed_out == self.clock.turn):
                dues.append(now)
            standin = self.standin_due()
            if standin is not None and away is not None:
                dues.append(standin)
            clock = self.clock.due()
            if clock is not None:
                dues.append(clock)
            bot_in = max(0.0, min(dues) - now) if dues else None
            out.append(Wait(seat, away, bot_in, self.clock.remaining(now)))
        return out

    def schedule(self) -> None:
        """A bot decides next (after ``bot_delay``) if one plays a seat the game waits for."""
        if self.bot_at is not None or self.thinking is not None:
            return
        if any(self.host_bot(seat) is not None for seat in self.table.deciders()):
            self.bot_at = self.table.now + self.table.settings.bot_delay

    def _run_bot(self) -> None:
        for seat in self.table.deciders():
            bot = self.host_bot(seat)
            if bot is not None:
                self._bot_act(seat, bot)
                return

    def _bot_act(self, seat: Seat, bot: TableBot) -> None:
        table = self.table
        assert table.game is not None
        info = table.seating.seats[seat]
        view = table.definition.view_for(table.game.state, seat)
        legal = table.definition.legal_actions(view, seat)
        if legal:
            standin = info is not None and not info.is_bot
            if self.offload and searches(bot):
                self._bot_turn = self.thinking = BotTurn(
                    seat, bot, view, legal, standin, table.batch_count)
                return
            table.step(bot.choose(view, seat, legal), None, None, standin=standin)

    def take_bot_turn(self) -> BotTurn | None:
        """The host bot's decision the driver is to make now (with :attr:`offload`), once."""
        turn, self._bot_turn = self._bot_turn, None
        return turn

    def bot_decided(self, turn: BotTurn, action: Any) -> bool:
        """The driver's answer to :meth:`take_bot_turn`. Played if the table is still
        where it was when the bot was asked (nothing was published since, and the same bot
        still plays that seat); else dropped, and the bot is asked again. ``action`` is
        ``None`` when the bot failed: the seat's first legal action is played instead."""
        if turn is not self.thinking:
            return False
        self.thinking = None
        played = False
        table = self.table
        if table.state.started and not table.state.over and table.batch_count == turn.at \
                and turn.seat in table.deciders() and self.host_bot(turn.seat) is turn.bot:
            played = table.step(turn.legal[0] if action is None else action, None, None,
                                standin=turn.standin)
        self.schedule()
        return played

    def standin_due(self) -> float | None:
        """When a stand-in bot takes the current player's turn, if that player stays away."""
        table = self.table
        game = table.game
        if game is None or table.state.over or table.in_window():
            return None
        current: Seat = game.state.current
        info = table.seating.seats[current]
        if info is None or info.is_bot or info.standin is not None:
            return None
        away_from = table.presence.away_from(info)
        if not info.online and info.offline_at is not None:
            away_from = min(away_from, info.offline_at)
        return away_from + table.settings.grace

    def _run_standin(self) -> None:
        table = self.table
        assert table.game is not None
        seat = table.game.state.current
        info = table.seating.seats[seat]
        if info is None or info.is_bot or not table.presence.away(info):
            return
        log.info("%s is away: a bot plays seat %d until they are back", info.name, seat)
        info.standin = table.definition.bot(table.settings.standin, None)
        table.announce()

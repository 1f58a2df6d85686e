"""The asyncio player peers: ``Player``, ``Spectator`` and ``BotPeer``.

Thin drivers around ``netplay.player.PlayerSession`` (the loop they share with the host is
``netplay.peer.Peer``): they hand the table's notices to the user, or to a bot that plays.
No protocol rule lives here.

    async with Player(identity, "table", "Ana", broker=url) as me:
        async for notice in me.notices():
            ...
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Self

from engine.actions import Action
from engine.games import AnyAction, TableBot, searches
from engine.state import State
from netplay.hosts import matches, split_pin
from netplay.identity import Identity
from netplay.known import KnownHosts
from netplay.peer import Broker, Peer, make_transport
from netplay.player import PlayerSession
from netplay.playing.notices import (
    Applied,
    GameEnded,
    GameStarted,
    Joined,
    Notice,
    Rejected,
    Verified,
)
from netplay.transport import KEEPALIVE, BrokerAddress


class Player(Peer):
    """A seated player (or, with ``watch``, a spectator). Read :meth:`notices`; call :meth:`act`."""

    def __init__(
        self,
        identity: Identity,
        table: str,
        name: str,
        *,
        broker: Broker,
        password: str | None = None,
        watch: bool = False,
        pin: str | None = None,
        chat: bool = True,
        known: KnownHosts | None = None,
    ) -> None:
        super().__init__()
        self.identity = identity
        self.known = known
        """The profile's remembered hosts (``netplay.known``): the host that welcomes this
        peer is remembered until the game ends, and a remembered one followed as if pinned."""
        remembered = None
        table_name, pinned = split_pin(table)
        pin = pin or pinned
        if known is not None:
            remembered = known.get(table_name)
            if remembered is not None and pin is not None and not matches(remembered, pin):
                known.forget(table_name)  # the user pinned another host: that one it is
                remembered = None
        self.player = PlayerSession(identity, table, name, 0.0, watch=watch, password=password,
                                    pin=pin, remembered=remembered)
        self.broker_url = _plain_url(broker)
        """The broker's URL without credentials (``None``: an in-process broker), for the
        known hosts."""
        self.player.reads_chat = chat
        self.session = self.player
        self.transport = transport = make_transport(
            broker, self.player.subscriptions(), name=f"{'watch' if watch else 'player'}-{name}",
            will=self.player.last_will, username=identity.peer_id, password=password,
            keepalive=KEEPALIVE,
        )
        transport.on_connect = self._connected
        self._notices: asyncio.Queue[Notice | None] = asyncio.Queue()
        self.ended = asyncio.Event()
        self.verified = asyncio.Event()

    async def __aenter__(self) -> Self:
        peer = await super().__aenter__()
        self.player.start(self.loop_time)
        self.poke()
        return peer

    @property
    def view(self) -> State | None:
        return self.player.view

    @property
    def seat(self) -> int | None:
        return self.player.seat

    def act(self, action: AnyAction) -> None:
        self.player.act(action)
        self.poke()

    def chat(self, text: str) -> None:
        self.player.chat(text)
        self.poke()

    def follow(self, key: bytes) -> None:
        """Follow one of the host keys that claim the table, and it only (the user's answer
        to :class:`~netplay.playing.notices.HostsDisagree`)."""
        self.player.follow(key)
        self.poke()

    def _before_close(self) -> None:
        self.player.leave()

    def _after_input(self) -> None:
        for notice in self.player.take_notices():
            if isinstance(notice, GameEnded):
                self.ended.set()
            elif isinstance(notice, Verified):
                self.verified.set()
            self._remember(notice)
            self._notices.put_nowait(notice)
            self._on_notice(notice)

    def _remember(self, notice: Notice) -> None:
        """Keep the profile's known host of this table: from the welcome (or a new game's
        start) until this peer's verdict on the game."""
        known, host = self.known, self.player.host_key
        if known is None:
            return
        if isinstance(notice, Joined | GameStarted) and host is not None:
            known.remember(self.player.table, host, broker=self.broker_url,
                           seated=self.player.seat is not None)
        elif isinstance(notice, Verified):
            known.forget(self.player.table)

    def _on_notice(self, notice: Notice) -> None:
        """Hook for subclasses."""

    async def notices(self) -> AsyncIterator[Notice]:
        """What happens at the table, in order, until the peer closes."""
        while True:
            notice = await self._notices.get()
            if notice is None:
                return
            yield notice

    async def close(self) -> None:
        await super().close()
        self._notices.put_nowait(None)


def _plain_url(broker: Broker) -> str | None:
    """``broker``'s ``mqtt://host:port`` (no user name or password), if it has one."""
    if isinstance(broker, BrokerAddress):
        return broker.url
    if isinstance(broker, str):
        try:
            return BrokerAddress.parse(broker).url
        except ValueError:
            return None
    return None


class Spectator(Player):
    """Watches the public stream; sees no hand, not even its owner's other seat."""

    def __init__(self, identity: Identity, table: str, name: str, *, broker: Broker,
                 known: KnownHosts | None = None) -> None:
        super().__init__(identity, table, name, broker=broker, watch=True, known=known)


class BotPeer(Player):
    """A bot that joins a table as a peer of its own and plays to the end."""

    def __init__(
        self,
        identity: Identity,
        table: str,
        *,
        broker: Broker,
        strategy: str = "greedy",
        name: str | None = None,
        password: str | None = None,
        think: float = 0.0,
        known: KnownHosts | None = None,
        pin: str | None = None,
    ) -> None:
        super().__init__(
            identity, table, name or f"{strategy}-bot", broker=broker, password=password,
            chat=False, known=known, pin=pin,
        )
        self.strategy = strategy
        self._bots: dict[str, TableBot] = {}
        self.think = think
        self._in_flight: float | None = None
        self._decide_at: float | None = None
        self._thinking: asyncio.Task[None] | None = None
        self._legal_in: tuple[Any, list[Any]] | None = None

    @property
    def bot(self) -> TableBot:
        """The bot for the table's game: the named strategy, or the game's own default
        when the name is another game's (``greedy`` at a classic Sequence table)."""
        definition = self.player.definition
        bot = self._bots.get(definition.name)
        if bot is None:
            # Seeded from the OS, not from the (public) key: nobody can predict its choices.
            bot = definition.bot(self.strategy)
            self._bots[definition.name] = bot
        return bot

    def _on_notice(self, notice: Notice) -> None:
        if isinstance(notice, Applied | Rejected):
            self._in_flight = None

    def _deadline(self) -> float:
        times = [float("inf")]
        if self._decide_at is not None:
            times.append(self._decide_at)
        if self._in_flight is not None:
            times.append(self._in_flight + 2.0)
        return min(times)

    def _after_input(self) -> None:
        super()._after_input()
        view, seat = self.player.view, self.player.seat
        if view is None or seat is None or view.outcome is not None:
            return
        now = self.loop_time
        if self._in_flight is not None and now - self._in_flight < 2.0:
            return  # wait for the answer to the last action (resend after 2 s)
        if self.player.follower.ahead:
            return  # catching up: decide on the latest view only
        if self._thinking is not None:
            return  # deciding already
        legal = self._legal(view, seat)
        if not legal:
            self._decide_at = None
            return
        if self._decide_at is None:
            self._decide_at = now + self._think_time()
        if now < self._decide_at:
            return
        self._decide_at = None
        self._in_flight = now
        if not searches(self.bot):  # decided in well under a millisecond
            self._play(self.bot.choose(view, seat, legal))
            return
        # The bot thinks on a copy of the view, in a worker thread: the loop goes on
        # receiving (and the session updating its view) meanwhile.
        self._thinking = asyncio.create_task(
            self._think(view.copy(), seat, legal, self.player.applied), name="bot-think")

    def _legal(self, view: Any, seat: int) -> list[Any]:
        """The seat's legal actions in ``view``, worked out once per view (the session
        replaces its view with every batch; this runs after every message, heartbeats
        included)."""
        known = self._legal_in
        if known is not None and known[0] is view:
            return known[1]
        legal = self.player.definition.legal_actions(view, seat)
        self._legal_in = (view, legal)
        return legal

    async def _think(self, view: Any, seat: int, legal: list[Any], applied: int) -> None:
        try:
            action = await asyncio.to_thread(self.bot.choose, view, seat, legal)
        finally:
            self._thinking = None
        if self.player.applied != applied or self.player.view is None:
            self._in_flight = None  # the table moved on meanwhile: decide again
        else:
            self._play(action)
        self.poke()

    def _play(self, action: Any) -> None:
        # Its answer is awaited from now, not from the start of a long decision (an
        # engine's, a search's): no second decision while the first is on its way.
        self._in_flight = self.loop_time
        self._acted(action)
        self.player.act(action)

    async def close(self) -> None:
        thinking, self._thinking = self._thinking, None
        if thinking is not None:
            thinking.cancel()
        await super().close()

    def _think_time(self) -> float:
        """Seconds to wait before the next decision: ``think``; a subclass may vary it."""
        return self.think

    def _acted(self, action: Action) -> None:
        """Hook for subclasses: an action is about to be sent."""

"""The host's own search bot thinks off the host's loop: the table keeps answering meanwhile.

A ``hard`` bot searches for up to its budget (0.5 s); inside the host's loop that would
hold every other peer's messages, heartbeats and Block presses for as long. Here the bot's
clock holds its search open until the test has seen the host answer: the assertion is on
the order of events (the host's heartbeat reached the player while the search was still
running), not on any duration.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time

import pytest

from engine.actions import Action
from engine.bots import GreedyBot, SearchBot
from engine.rules import legal_actions
from engine.state import Seat, State
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.memory import AsyncMemoryBroker
from netplay.player_peer import Player
from netplay.playing.notices import Applied
from tests.support import wait_until_async

pytestmark = pytest.mark.asyncio

FALLBACK = 10.0
"""Seconds after which the held search gives up by itself (so that a host that thinks
inside its loop fails the test instead of hanging it)."""


class HeldSearch:
    """A real search bot whose clock stands still until ``release`` is set."""

    name = "hard"
    SEARCHES = SearchBot.SEARCHES

    def __init__(self) -> None:
        self.release = threading.Event()
        self.searching = threading.Event()
        """Set once a search with a real choice has started iterating."""
        self.in_search = False
        self.moves = 0
        self._since: float | None = None
        self.bot = SearchBot(b"held-search-bot", clock=self._clock)

    def _clock(self) -> float:
        if self.bot.stats.choices > 1 and self.in_search:
            self.searching.set()
            if self._since is None:
                self._since = time.monotonic()
        if self.release.is_set():
            return math.inf
        if self._since is not None and time.monotonic() - self._since > FALLBACK:
            return math.inf
        return 0.0

    def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
        self.in_search = True
        try:
            return self.bot.choose(view, seat, legal)
        finally:
            self.in_search = False
            self.moves += 1


async def test_the_host_answers_while_its_hard_bot_searches() -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="thinking", players=2, bots=("hard",), heartbeat=0.05,
                            block_window=0.2)
    held = HeldSearch()
    async with Host(settings, broker=broker) as host:
        bot_seat = 1
        info = host.host.seats[bot_seat]
        assert info is not None and info.is_bot
        info.bot = held
        ana = GreedyBot(b"ana")
        async with Player(Identity.generate(), "thinking", "Ana", broker=broker) as me:
            bot_moves: list[int] = []

            async def play() -> None:
                async for notice in me.notices():
                    if isinstance(notice, Applied) and getattr(notice.action, "seat", None) \
                            == bot_seat:
                        bot_moves.append(notice.n)
                    view, seat = me.view, me.seat
                    if view is None or seat is None or view.outcome is not None:
                        continue
                    legal = legal_actions(view, seat)
                    if legal and not me.player.follower.ahead:
                        me.act(ana.choose(view, seat, legal))

            player = asyncio.create_task(play())
            try:
                await wait_until_async(held.searching.is_set, "the host's bot to search", 60,
                                       interval=0.01)
                mark = me.player.waits[0]
                moves_before = len(bot_moves)
                await wait_until_async(lambda: me.player.waits[0] > mark,
                                       "a heartbeat from the host", 60, interval=0.01)
                # The host answered while its bot was still searching: nothing of the
                # bot's was published in between, and its search was still running.
                assert held.in_search, "the heartbeat came only after the search had ended"
                assert len(bot_moves) == moves_before
                held.release.set()
                await wait_until_async(lambda: len(bot_moves) > moves_before, "the bot's move",
                                       60, interval=0.01)
                assert held.moves >= 1
            finally:
                held.release.set()
                player.cancel()
                with_cancel = asyncio.gather(player, return_exceptions=True)
                await with_cancel

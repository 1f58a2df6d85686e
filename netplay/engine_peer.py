"""An outside program seated at a table as a peer of its own (``stacks bot --engine``).

A :class:`~netplay.player_peer.BotPeer` whose bot is an :class:`~netplay.engines.EngineBot`:
the peer keeps the view from its seat's redacted events, as every bot's does, and the
program is told that view at each decision, the game's start and end, and (optionally) the
table's chat. What goes wrong with the program is said in words (``say``) and, once a
game is on, at the table too, so the other players know why a move came from the
stand-in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from engine.games import TableBot
from netplay.engines import EngineBot
from netplay.player_peer import BotPeer
from netplay.playing.notices import ChatLine, GameEnded, GameStarted, Notice

CHAT_AT_MOST = 5
"""Chat lines a program may send in a game, so that it can't talk over the table."""


class EnginePeer(BotPeer):
    """Plays one seat with ``engine``; its other arguments are :class:`BotPeer`'s."""

    def __init__(self, engine: EngineBot, *args: Any,
                 say: Callable[[str], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.engine = engine
        self._say = say or (lambda text: None)
        self._chatted = 0
        self.player.reads_chat = True
        engine.say = self._from_thread(self._told)
        engine.on_chat = self._from_thread(self._engine_chat)

    @property
    def bot(self) -> TableBot:
        return self.engine

    def _from_thread(self, call: Callable[[str], None]) -> Callable[[str], None]:
        """``call`` run on this peer's loop, from whichever thread the engine speaks."""
        loop = asyncio.get_running_loop()

        def run(text: str) -> None:
            try:
                if asyncio.get_running_loop() is loop:
                    call(text)
                    return
            except RuntimeError:
                pass
            loop.call_soon_threadsafe(call, text)

        return run

    def _told(self, text: str) -> None:
        self._say(text)
        if self.view is not None and self.view.outcome is None and self.seat is not None:
            self.chat(text)

    def _engine_chat(self, text: str) -> None:
        if self._chatted < CHAT_AT_MOST:
            self._chatted += 1
            self.chat(text)

    def _on_notice(self, notice: Notice) -> None:
        super()._on_notice(notice)
        if isinstance(notice, GameStarted):
            self.engine.names = list(notice.names)
            self._chatted = 0
        elif isinstance(notice, GameEnded) and self.seat is not None:
            self.engine.finish(self.seat, notice.outcome, self.view)
        elif isinstance(notice, ChatLine) and notice.name != self.player.name:
            self.engine.heard(notice.name, notice.text)

    async def close(self) -> None:
        await super().close()
        await asyncio.to_thread(self.engine.close)

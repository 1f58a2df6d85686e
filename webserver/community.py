"""The server's games on the web, beside its live tables: the leaderboard of each game,
a player's page, the recent games, a finished game's replay at ``/game/ID``, and the
JSON API (:mod:`webserver.api`), all read from the ratings database.

Pages (relative URLs): ``/leaderboard?game=stacks|sequence``, ``/player/NAME``,
``/games``, ``/game/ID`` (its websocket ``/game/ID/ws``: :mod:`webserver.replay`),
``/api/...``. Without a database the pages say there is none, and the API answers 404.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import web

from webserver import community_pages as html
from webserver import params
from webserver.api import Api, Handler, api_errors
from webserver.community_data import player_data
from webserver.replay import Replays

if TYPE_CHECKING:
    from ratings.store import Store

log = logging.getLogger(__name__)

DEFAULT_MAX_REPLAYS = 8
RETRY_S = 10.0
"""A database that could not be opened is tried again at most this often."""


class CommunityError(Exception):
    """The database can't be opened; the message says why."""


class Community:
    """The database's pages and API on one web server."""

    def __init__(self, database: str | None, *, tables: Handler, command: tuple[str, ...],
                 home: Path, max_replays: int, idle_timeout: float,
                 say: Callable[[str], None], wait_for_database: bool = False) -> None:
        self.database = database
        self.wait_for_database = wait_for_database
        """A database that can't be opened at the start is tried again when a page asks
        (at most every `RETRY_S`), its pages answering 503 meanwhile; else the start fails."""
        self.store: Store | None = None
        self._tables = tables
        self._say = say
        self._opening = asyncio.Lock()
        self._tried = -1e9
        self.replays = Replays(command=command, home=home, max_viewers=max_replays,
                               idle_timeout=idle_timeout, say=say)

    async def open(self) -> None:
        if self.database is None:
            return
        from ratings.store import DatabaseError, shown

        try:
            await self.current()
        except DatabaseError as exc:
            if not self.wait_for_database:
                raise CommunityError(f"database {shown(self.database)}: {exc}") from exc
            self._say(f"web page: the database can't be opened ({exc}); its pages answer "
                      "503 until it can")

    async def current(self) -> Store | None:
        """The database, open (``None``: the server keeps none). `DatabaseError` when it
        can't be opened now."""
        if self.database is None or self.store is not None:
            return self.store
        from ratings.schema import SchemaTooNew
        from ratings.store import DatabaseError, Store

        async with self._opening:
            if self.store is None:
                now = asyncio.get_running_loop().time()
                if now - self._tried < RETRY_S:
                    raise DatabaseError("the database can't be opened just now")
                self._tried = now
                try:
                    self.store = await Store.open(self.database)
                except SchemaTooNew as exc:
                    raise DatabaseError(str(exc)) from exc
        return self.store

    async def close(self) -> None:
        await self.replays.stop()
        if self.store is not None:
            await self.store.close()
            self.store = None

    def install(self, app: web.Application) -> None:
        """Add the pages, the API and the API's JSON errors to ``app`` (not yet started)."""
        app.middlewares.append(api_errors)
        app.add_routes([
            *Api(self.current, tables=self._tables).routes(),
            web.get("/leaderboard", self.leaderboard),
            web.get("/games", self.games),
            web.get("/player/{name}", self.player),
            web.get("/game/{id}", self.game),
            web.get("/game/{id}/ws", self.game_ws),
        ])

    # -- pages --------------------------------------------------------------------------------

    def _no_database(self, prefix: str) -> web.Response:
        return _html(html.notice("No games here", "This server keeps no database of games: "
                                 "no leaderboard, no replays.", prefix), 404)

    async def leaderboard(self, request: web.Request) -> web.StreamResponse:
        store = await self.current()
        if store is None:
            return self._no_database("")
        try:
            kind = params.game_kind(request.query) or "stacks"
            offset, limit = params.paging(request.query)
        except params.BadInput as exc:
            return _html(html.notice("Not a leaderboard", str(exc), ""), 400)
        from ratings.browse import leaderboard_page

        total, rows = await leaderboard_page(store, kind, offset, limit)
        return _html(html.leaderboard(kind, rows, total=total, offset=offset, limit=limit))

    async def games(self, request: web.Request) -> web.StreamResponse:
        store = await self.current()
        if store is None:
            return self._no_database("")
        try:
            kind = params.game_kind(request.query, default=None)
            offset, limit = params.paging(request.query)
        except params.BadInput as exc:
            return _html(html.notice("Not a list of games", str(exc), ""), 400)
        from ratings.browse import recent_games

        total, lines = await recent_games(store, kind, offset, limit)
        return _html(html.games(lines, kind=kind, total=total, offset=offset, limit=limit))

    async def player(self, request: web.Request) -> web.StreamResponse:
        store = await self.current()
        if store is None:
            return self._no_database("../")
        name = request.match_info["name"]
        found = await player_data(store, name)
        if isinstance(found, dict):
            return _html(html.player(found))
        if found:
            return _html(html.several(name, found))
        return _html(html.notice("No such player", f"Nobody called {params.shown(name)} "
                                 "has played a rated game here.", "../"), 404)

    async def game(self, request: web.Request) -> web.StreamResponse:
        store = await self.current()
        if store is None:
            return self._no_database("../")
        try:
            game_id = params.game_id(request.match_info["id"])
        except params.BadInput as exc:
            return _html(html.notice("Not a game", str(exc), "../"), 400)
        from ratings.browse import game_line

        line = await game_line(store, game_id)
        if line is None:
            return _html(html.notice("No such game", f"No game {game_id} is stored here.",
                                     "../"), 404)
        if self.replays.full:
            return web.Response(text=html.notice("Full", self.replays.full_words(), "../"),
                                content_type="text/html", status=503,
                                headers={"Retry-After": "60"})
        font = request.query.get("fontsize", "16")
        size = int(font) if font.isdigit() and 6 <= int(font) <= 64 else 16
        title = f"{params.GAME_TITLES.get(line.kind, line.kind)} at {line.table}"
        return _html(html.replay(game_id, title, font_size=size))

    async def game_ws(self, request: web.Request) -> web.StreamResponse:
        try:
            game_id = params.game_id(request.match_info["id"])
        except params.BadInput as exc:
            raise web.HTTPBadRequest(text=str(exc)) from None

        async def record() -> dict[str, Any] | None:
            store = await self.current()
            return None if store is None else await store.record(game_id)

        return await self.replays.serve(request, game_id, record)


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, content_type="text/html", status=status)

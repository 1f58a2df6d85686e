"""The read-only JSON API beside the pages, for the tools people build: the tables, the
leaderboard of each game, a player, the recent games, a game's record (the file ``stacks
verify`` checks), and the OpenAPI document that describes exactly these, at
``/api/openapi.json``.

Every answer is JSON, an error too: ``{"error": "words"}`` with a 4xx status for what
was asked wrong (a bad parameter 400, an unknown player or game 404), never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from netplay.record import to_json
from webserver import params
from webserver.community_data import player_data

if TYPE_CHECKING:
    from ratings.store import Store

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
StoreSource = Callable[[], Awaitable["Store | None"]]
"""The database, open (``None``: the server keeps none; `DatabaseError`: it can't be read
now)."""
API_VERSION = "1.1.0"


def error(status: int, words: str, **more: Any) -> web.Response:
    return web.json_response({"error": words, **more}, status=status)


@web.middleware
async def api_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Under ``/api/``, every answer is JSON: aiohttp's own refusals (no such path, a
    method not allowed: its ``Allow`` header kept) and anything unforeseen (500, said in
    the log, no traceback to the client)."""
    from ratings.store import DatabaseError

    if not request.path.startswith("/api/"):
        try:
            return await handler(request)
        except DatabaseError as exc:
            log.warning("a page could not read the database: %s", exc)
            return web.Response(text="The database can't be read just now; try again in a "
                                "minute.", status=503, headers={"Retry-After": "60"})
    try:
        return await handler(request)
    except params.BadInput as exc:
        return error(400, str(exc))
    except DatabaseError as exc:
        log.warning("the API could not read the database: %s", exc)
        reply = error(503, "the database can't be read just now; try again in a minute")
        reply.headers["Retry-After"] = "60"
        return reply
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        reply = error(exc.status, exc.reason)
        for name in ("Allow", "Retry-After"):
            if name in exc.headers:
                reply.headers[name] = exc.headers[name]
        return reply
    except Exception:
        log.exception("API request %s failed", request.path_qs[:200])
        return error(500, "the server failed to answer this request (its log says why)")


class Api:
    """The API's handlers, over the database (``None``: a server that keeps none)."""

    def __init__(self, store: StoreSource, *, tables: Handler) -> None:
        self._source = store
        self._tables = tables

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/api/openapi.json", self.openapi),
            web.get("/api/tables", self._tables),
            web.get("/api/players", self.players),
            web.get("/api/players/{name}", self.player),
            web.get("/api/games", self.games),
            web.get("/api/games/{id}", self.game),
        ]

    async def _store(self) -> Store:
        store = await self._source()
        if store is None:
            raise web.HTTPNotFound(reason="this server keeps no database of games "
                                          "(start it with a database to have one)")
        return store

    async def openapi(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(openapi_document())

    async def players(self, request: web.Request) -> web.StreamResponse:
        kind = params.game_kind(request.query) or "stacks"
        offset, limit = params.paging(request.query)
        from ratings.browse import leaderboard_page

        total, rows = await leaderboard_page(await self._store(), kind, offset, limit)
        return web.json_response({"game": kind, "total": total, "offset": offset,
                                  "limit": limit, "players": [r.to_json() for r in rows]})

    async def player(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        found = await player_data(await self._store(), name)
        if isinstance(found, list):
            if not found:
                return error(404, f"no player called {params.shown(name)} has played a "
                                  "rated game here")
            return error(409, f"{len(found)} players are called {params.shown(name)}: "
                              "ask for one by its fingerprint", candidates=found)
        return web.json_response(found)

    async def games(self, request: web.Request) -> web.StreamResponse:
        kind = params.game_kind(request.query, default=None)
        offset, limit = params.paging(request.query)
        from ratings.browse import recent_games

        total, rows = await recent_games(await self._store(), kind, offset, limit)
        return web.json_response({"game": kind, "total": total, "offset": offset,
                                  "limit": limit, "games": [r.to_json() for r in rows]})

    async def game(self, request: web.Request) -> web.StreamResponse:
        game_id = params.game_id(request.match_info["id"])
        record = await (await self._store()).record(game_id)
        if record is None:
            return error(404, f"no game {game_id} is stored here")
        return web.json_response(to_json(record))


# -- the OpenAPI document -------------------------------------------------------------------

def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _answers(ok: str, described: str, *errors: int) -> dict[str, Any]:
    words = {400: "A parameter is not what it names (the error says which and why).",
             404: "No such thing here, or no database on this server.",
             409: "The name is several players': ask for one by its fingerprint.",
             503: "The database can't be read just now: try again later."}
    answers: dict[str, Any] = {
        "200": {"description": described,
                "content": {"application/json": {"schema": _ref(ok)}}}}
    for status in errors:
        answers[str(status)] = {"description": words[status],
                                "content": {"application/json": {"schema": _ref("Error")}}}
    return answers


def _integer(least: int, most: int, default: int, words: str, name: str) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": words,
            "schema": {"type": "integer", "minimum": least, "maximum": most,
                       "default": default}}


_GAME_QUERY = {"name": "game", "in": "query", "required": False,
               "description": "The game: stacks (Sequence Stacks) or sequence (classic).",
               "schema": {"type": "string", "enum": list(params.GAMES)}}
_PAGING = [
    _integer(0, params.MAX_OFFSET, 0, "Rows to skip.", "offset"),
    _integer(1, params.MAX_LIMIT, params.DEFAULT_LIMIT, "Rows at most.", "limit"),
]
_INT = {"type": "integer"}
_NUM = {"type": "number"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_LEFT_EARLY = {"type": "integer", "minimum": 0,
               "description": "Rated games the player left before their end, for the "
                              "stand-in bot to finish (every game together)."}


def _object(required: dict[str, Any], **optional: Any) -> dict[str, Any]:
    return {"type": "object", "required": list(required),
            "properties": {**required, **optional}}


_SCHEMAS: dict[str, Any] = {
    "Error": _object({"error": _STR}, candidates={"type": "array", "items": _STR}),
    "Table": _object({"table": _STR, "status": _STR, "players": _INT,
                      "seated": {"type": "array", "items": _STR}, "free": _INT,
                      "password": _BOOL, "watching": _INT}, pinned=_STR),
    "Tables": _object({"tables": {"type": "array", "items": _ref("Table")},
                       "visitors": _INT, "max_visitors": _INT}),
    "Standing": _object({"rank": _INT, "name": _STR, "fingerprint": _STR, "bot": _BOOL,
                         "games": _INT, "wins": _INT, "points": _INT, "provisional": _BOOL,
                         "rating": _NUM, "mu": _NUM, "sigma": _NUM,
                         "left_early": _LEFT_EARLY}, uncertainty=_NUM),
    "Leaderboard": _object({"game": {"type": "string", "enum": list(params.GAMES)},
                            "total": _INT, "offset": _INT, "limit": _INT,
                            "players": {"type": "array", "items": _ref("Standing")}}),
    "Rating": _object({"points": _INT, "provisional": _BOOL, "games": _INT, "wins": _INT,
                       "rating": _NUM, "mu": _NUM, "sigma": _NUM}),
    "PlayedGame": _object({"id": _STR, "game": _STR, "table": _STR, "ended_at": _NUM,
                           "seat": _INT, "won": _BOOL, "draw": _BOOL, "points_before": _INT,
                           "points_after": _INT,
                           "others": {"type": "array", "items": _STR}}),
    "Player": _object({"name": _STR, "fingerprint": _STR, "bot": _BOOL,
                       "ratings": {"type": "object",
                                   "additionalProperties": _ref("Rating")},
                       "left_early": _LEFT_EARLY,
                       "games": {"type": "array", "items": _ref("PlayedGame")}}),
    "Seat": _object({"seat": _INT, "name": _STR, "fingerprint": _STR, "team": _INT,
                     "won": _BOOL, "points_before": _INT, "points_after": _INT,
                     "provisional": _BOOL}),
    "GameLine": _object({"id": _STR, "game": _STR, "table": _STR, "ended_at": _NUM,
                         "length": _INT, "draw": _BOOL,
                         "winners": {"type": "array", "items": _STR},
                         "seats": {"type": "array", "items": _ref("Seat")}}),
    "Games": _object({"game": {"type": "string", "enum": list(params.GAMES),
                               "nullable": True},
                      "total": _INT, "offset": _INT, "limit": _INT,
                      "games": {"type": "array", "items": _ref("GameLine")}}),
    "Record": {"type": "object", "required": ["format", "commit", "batches"],
               "description": "The game's record, as a game record file holds it: save it "
                              "and `stacks verify FILE` replays it from its seed and checks "
                              "every event."},
}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3 document of the API: exactly its operations, their parameters and
    their answers (schemathesis checks the server against it)."""
    name = {"name": "name", "in": "path", "required": True,
            "description": "The player's name (an account's, any case), or its fingerprint.",
            "schema": {"type": "string", "minLength": 1}}
    game_id = {"name": "id", "in": "path", "required": True,
               "description": "The game's id: its commitment, 64 hex digits.",
               "schema": {"type": "string", "pattern": f"^{params.GAME_ID.pattern}$"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Sequence Stacks server", "version": API_VERSION,
                 "description": "Read-only: the tables, the ratings and the stored games of "
                                "one server."},
        "paths": {
            "/api/tables": {"get": {
                "operationId": "tables", "summary": "The tables open now.",
                "responses": _answers("Tables", "The tables.")}},
            "/api/players": {"get": {
                "operationId": "players", "summary": "A game's leaderboard, a page of it.",
                "parameters": [_GAME_QUERY, *_PAGING],
                "responses": _answers("Leaderboard", "A page of the leaderboard.",
                                      400, 404, 503)}},
            "/api/players/{name}": {"get": {
                "operationId": "player",
                "summary": "A player: ratings per game and recent games.",
                "parameters": [name],
                "responses": _answers("Player", "The player.", 404, 409, 503)}},
            "/api/games": {"get": {
                "operationId": "games", "summary": "The games that ended last, newest first.",
                "parameters": [_GAME_QUERY, *_PAGING],
                "responses": _answers("Games", "A page of the games.", 400, 404, 503)}},
            "/api/games/{id}": {"get": {
                "operationId": "game", "summary": "A game's record (`stacks verify` checks it).",
                "parameters": [game_id],
                "responses": _answers("Record", "The record.", 400, 404, 503)}},
            "/api/openapi.json": {"get": {
                "operationId": "openapi", "summary": "This document.",
                "responses": {"200": {"description": "The OpenAPI document.",
                                      "content": {"application/json": {
                                          "schema": {"type": "object"}}}}}}},
        },
        "components": {"schemas": _SCHEMAS},
    }

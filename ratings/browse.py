"""Reading the database page by page, for the web pages and the JSON API: a leaderboard's
page (each player's games left early with it) and its length, the games that ended last,
one game's seats, and the identities a name may mean. Nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from ratings.display import points, provisional
from ratings.models import accounts, game_seats, games, players, ratings
from ratings.moderation import abandons
from ratings.store import Standing

if TYPE_CHECKING:
    from ratings.store import Store


@dataclass(frozen=True)
class BoardLine(Standing):
    """A leaderboard's row, with the games the player left before their end (every game
    kind together, as `stacks ratings` counts them)."""

    left_early: int = 0

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "left_early": self.left_early}


@dataclass(frozen=True)
class SeatLine:
    """One seat of a stored game: who, on which side, and the points before and after."""

    seat: int
    name: str
    fingerprint: str
    team: int
    won: bool
    before: int
    after: int
    provisional: bool
    """The rating was provisional after the game."""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat + 1, "name": self.name, "fingerprint": self.fingerprint,
                "team": self.team, "won": self.won, "points_before": self.before,
                "points_after": self.after, "provisional": self.provisional}


@dataclass(frozen=True)
class GameLine:
    """A stored game as a list shows it."""

    id: str
    kind: str
    table: str
    ended_at: float
    length: int
    draw: bool
    seats: tuple[SeatLine, ...]

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats if s.won)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.kind, "table": self.table,
                "ended_at": self.ended_at, "length": self.length, "draw": self.draw,
                "winners": list(self.winners), "seats": [s.to_json() for s in self.seats]}


async def leaderboard_page(store: Store, kind: str, offset: int, limit: int,
                           ) -> tuple[int, list[BoardLine]]:
    """The leaderboard of ``kind`` from rank ``offset + 1``, at most ``limit`` rows, and
    how many rows it has in all. Ranked as :meth:`Store.leaderboard` ranks."""
    score = ratings.c.mu - 3 * ratings.c.sigma
    left = (select(func.count()).select_from(abandons)
            .where(abandons.c.fingerprint == players.c.fingerprint)
            .correlate(players).scalar_subquery())
    query = (
        select(func.coalesce(accounts.c.name, players.c.name).label("name"),
               players.c.fingerprint, players.c.bot, ratings.c.games, ratings.c.wins,
               ratings.c.mu, ratings.c.sigma, left.label("left_early"))
        .join(players, players.c.fingerprint == ratings.c.fingerprint)
        .outerjoin(accounts, accounts.c.fingerprint == players.c.fingerprint)
        .where(ratings.c.kind == kind)
        .order_by(score.desc(), players.c.fingerprint)
        .offset(offset).limit(limit))
    async with store._read() as conn:
        total = await conn.scalar(select(func.count()).select_from(ratings)
                                  .where(ratings.c.kind == kind))
        rows = (await conn.execute(query)).all()
    return int(total or 0), [
        BoardLine(offset + i + 1, r.name, r.fingerprint, bool(r.bot), r.games, r.wins, r.mu,
                  r.sigma, int(r.left_early or 0)) for i, r in enumerate(rows)]


async def recent_games(store: Store, kind: str | None, offset: int, limit: int,
                       ) -> tuple[int, list[GameLine]]:
    """The games that ended last (of ``kind``, or of every kind), newest first, and how
    many there are in all."""
    where = [] if kind is None else [games.c.kind == kind]
    async with store._read() as conn:
        total = await conn.scalar(select(func.count()).select_from(games).where(*where))
        rows = (await conn.execute(
            select(games.c.id, games.c.kind, games.c.table_name, games.c.ended_at,
                   games.c.added_at, games.c.length, games.c.winner)
            .where(*where)
            .order_by(games.c.ended_at.desc(), games.c.added_at.desc(), games.c.id)
            .offset(offset).limit(limit))).all()
        seats = await _seats(conn, [r.id for r in rows])
    return int(total or 0), [
        GameLine(r.id, r.kind, r.table_name, r.ended_at or r.added_at, r.length,
                 r.winner is None, tuple(seats.get(r.id, ()))) for r in rows]


async def game_line(store: Store, game_id: str) -> GameLine | None:
    async with store._read() as conn:
        row = (await conn.execute(
            select(games.c.id, games.c.kind, games.c.table_name, games.c.ended_at,
                   games.c.added_at, games.c.length, games.c.winner)
            .where(games.c.id == game_id))).first()
        if row is None:
            return None
        seats = await _seats(conn, [row.id])
    return GameLine(row.id, row.kind, row.table_name, row.ended_at or row.added_at,
                    row.length, row.winner is None, tuple(seats.get(row.id, ())))


async def _seats(conn: Any, ids: list[str]) -> dict[str, list[SeatLine]]:
    found: dict[str, list[SeatLine]] = {}
    if not ids:
        return found
    rows = (await conn.execute(
        select(game_seats, func.coalesce(accounts.c.name, game_seats.c.name).label("shown"))
        .outerjoin(accounts, accounts.c.fingerprint == game_seats.c.fingerprint)
        .where(game_seats.c.game_id.in_(ids))
        .order_by(game_seats.c.game_id, game_seats.c.seat))).all()
    for r in rows:
        found.setdefault(r.game_id, []).append(SeatLine(
            r.seat, r.shown, r.fingerprint, r.team, bool(r.won), points(r.mu_before),
            points(r.mu_after), provisional(r.sigma_after)))
    return found


async def identities_named(store: Store, name: str) -> list[str]:
    """The identities ``name`` may mean: the identity with that fingerprint, else the
    account of that name (any case), else every player known by that name, else every
    player who sat at a game under it. Empty: nobody."""
    async with store._read() as conn:
        exact = await conn.scalar(select(players.c.fingerprint)
                                  .where(players.c.fingerprint == name))
        if exact is not None:
            return [exact]
        account = await conn.scalar(select(accounts.c.fingerprint)
                                    .where(accounts.c.name_key == name.casefold()))
        if account is not None:
            return [account]
        taken = select(accounts.c.fingerprint).scalar_subquery()
        named = list((await conn.execute(
            select(players.c.fingerprint)
            .where(players.c.name == name, players.c.fingerprint.not_in(taken))
            .order_by(players.c.fingerprint).limit(20))).scalars())
        if named:
            return named
        # A name a game's seat had (a bot's "Bot 4 (medium)" is bot-medium, whichever seat
        # it sat at): the lists of games show it.
        return list((await conn.execute(
            select(game_seats.c.fingerprint).distinct()
            .where(game_seats.c.name == name, game_seats.c.fingerprint.not_in(taken))
            .order_by(game_seats.c.fingerprint).limit(20))).scalars())

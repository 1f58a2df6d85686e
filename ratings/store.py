"""The ratings database: an async API over SQLAlchemy 2 (SQLite or PostgreSQL).

Every write is one transaction: a game, its seats and its rating update go in together or
not at all. Writers are serialised (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a
transaction-scoped advisory lock), so two processes adding games at the same moment
never rate from the same stale skills. A game already stored (same commitment) is
counted once. Ratings are the history's, in the order games ended (ties by id): a game
that ended before the newest stored one of its kind makes the ratings of that kind be
computed again from the start, so the order records are added in changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import unicodedata
import weakref
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Connection,
    and_,
    bindparam,
    delete,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from netplay.record import from_json
from ratings import schema
from ratings.compute import NEW, Skill, rate
from ratings.models import account_keys, accounts, game_seats, games, players, ratings
from ratings.results import BOT_PREFIX, GameResult, SeatResult, result_of

DATABASE_FILE = "ratings.sqlite"
MAX_ACCOUNT_NAME = 24
_FINGERPRINT_LIKE = re.compile(r"^(?:[0-9a-f]{4}-?){4}$|^[0-9a-f]{16,}$|^ssh-|^bot-|^sha256:",
                               re.IGNORECASE)


class DatabaseError(RuntimeError):
    """The database can't be reached or used; the words say why."""

    def __init__(self, message: str, *, full: bool = False) -> None:
        super().__init__(message)
        self.full = full
        """It is full (its disk, or a size limit): it works again once there is room."""


class Refused(ValueError):
    """A name, key or account change that is refused; the words say why."""


def database_url(url: str | Path) -> str:
    """A user's database URL as SQLAlchemy's async URL: ``sqlite:///PATH`` (or a plain
    path) → aiosqlite, ``postgresql://…`` → psycopg 3. Raises `DatabaseError` for
    anything else."""
    value = str(url)
    if "://" not in value:
        return f"sqlite+aiosqlite:///{Path(value).expanduser().resolve()}"
    try:
        parsed = make_url(value)
    except ArgumentError as exc:
        raise DatabaseError(f"database URL {value!r}: {exc}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return str(parsed.set(drivername="sqlite+aiosqlite").render_as_string(
            hide_password=False))
    if backend in ("postgresql", "postgres"):
        return parsed.set(drivername="postgresql+psycopg").render_as_string(
            hide_password=False)
    raise DatabaseError(f"database URL {value!r}: use sqlite:///PATH or postgresql://…")


def shown(url: str) -> str:
    """A URL as it may be printed (no password)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


@dataclass(frozen=True)
class Added:
    game: GameResult
    already: bool
    """The game was stored before: nothing changed."""


@dataclass(frozen=True)
class Standing:
    rank: int
    name: str
    fingerprint: str
    bot: bool
    games: int
    wins: int
    mu: float
    sigma: float

    @property
    def rating(self) -> float:
        return Skill(self.mu, self.sigma).rating

    def to_json(self) -> dict[str, Any]:
        from ratings.display import points, provisional

        return {"rank": self.rank, "name": self.name, "fingerprint": self.fingerprint,
                "bot": self.bot, "games": self.games, "wins": self.wins,
                "points": points(self.mu), "provisional": provisional(self.sigma),
                "rating": round(self.rating, 3), "mu": round(self.mu, 3),
                "sigma": round(self.sigma, 3), "uncertainty": round(self.sigma, 3)}


@dataclass(frozen=True)
class PlayedGame:
    id: str
    kind: str
    table: str
    ended_at: float
    seat: int
    won: bool
    draw: bool
    before: Skill
    after: Skill
    others: tuple[str, ...]

    @property
    def change(self) -> float:
        return self.after.rating - self.before.rating


@dataclass(frozen=True)
class Card:
    name: str
    fingerprint: str
    kinds: dict[str, Standing]
    """The identity's standing per game kind it has played."""
    favourites: tuple[tuple[str, int], ...]
    """The opponents it met most: (name, games together)."""


@dataclass(frozen=True)
class Account:
    id: int
    name: str
    profile: str
    fingerprint: str
    keys: tuple[str, ...]


def check_account_name(name: str) -> str:
    """A name as an account may have it, or `Refused` with the reason."""
    clean = unicodedata.normalize("NFC", name).strip()
    if not clean:
        raise Refused("a name can't be empty")
    if len(clean) > MAX_ACCOUNT_NAME:
        raise Refused(f"a name is at most {MAX_ACCOUNT_NAME} characters ({len(clean)} given)")
    if any(not ch.isprintable() for ch in clean):
        raise Refused("a name can't hold control characters")
    if _FINGERPRINT_LIKE.match(clean):
        raise Refused(f"{clean!r} looks like an identity fingerprint: choose a name")
    return clean


def _name_key(name: str) -> str:
    return name.casefold()[:MAX_ACCOUNT_NAME]


class Store:
    """One database. Open with :meth:`open`; close with :meth:`close`."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self.engine = engine
        self.url = url
        self.notice: str | None = None
        """What opening did, in words (an upgraded schema), or ``None``."""
        self.postgres = engine.dialect.name == "postgresql"

    @classmethod
    async def open(cls, url: str | Path, *, target: str = "head") -> Store:
        """Open (and create or upgrade) the database at ``url``. Raises `DatabaseError`
        (unreachable, unusable) or `schema.SchemaTooNew`."""
        sa_url = database_url(url)
        parsed = make_url(sa_url)
        if parsed.get_backend_name() == "sqlite" and parsed.database:
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(sa_url, pool_pre_ping=True)
        if engine.dialect.name == "sqlite":
            _sqlite_setup(engine)
        store = cls(engine, sa_url)
        try:
            # One migration at a time: Alembic's `context` is one proxy per process (two
            # at once in one event loop mix their environments up), and on PostgreSQL two
            # processes making a new database's tables at once would collide.
            async with _migrating(), engine.begin() as conn:
                if store.postgres:
                    await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext("
                                            "'stacks-ratings/schema'))"))
                store.notice = await conn.run_sync(schema.upgrade, target)
        except (OperationalError, DBAPIError, OSError) as exc:
            await engine.dispose()
            raise DatabaseError(f"can't open the database {shown(sa_url)}: "
                                f"{_reason(exc)}") from None
        except BaseException:  # SchemaTooNew, or cancelled: let go of the connection
            await asyncio.shield(engine.dispose())
            raise
        return store

    async def close(self) -> None:
        await self.engine.dispose()

    async def _lock(self, conn: AsyncConnection, what: str) -> None:
        if self.postgres:
            await conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:what))"),
                               {"what": f"stacks-ratings/{what}"})

    # -- games -------------------------------------------------------------------------

    async def add_record(self, record: dict[str, Any]) -> Added:
        """Verify the record and rate its game (`ratings.results.RecordRefused` if it does
        not verify; nothing is changed then)."""
        return await self.add(result_of(record))

    async def add(self, game: GameResult) -> Added:
        try:
            async with self.engine.begin() as conn:
                await self._lock(conn, "games")
                if await conn.scalar(select(games.c.id).where(games.c.id == game.id)):
                    return Added(game, already=True)
                newest = (await conn.execute(
                    select(games.c.ended_at, games.c.id).where(games.c.kind == game.kind)
                    .order_by(games.c.ended_at.desc(), games.c.id.desc()).limit(1)
                )).first()
                await self._players(conn, game.seats, game.ended_at)
                await conn.execute(insert(games).values(
                    id=game.id, kind=game.kind, table_name=game.table,
                    ended_at=game.ended_at, players=len(game.seats), winner=game.winner,
                    length=game.length, added_at=time.time(), record=game.record_json,
                ))
                if newest is None or (newest.ended_at, newest.id) < game.order:
                    await self._rate_next(conn, game)
                else:
                    await conn.execute(insert(game_seats), [
                        _seat_row(game.id, s, NEW, NEW) for s in game.seats])
                    await self._rebuild(conn, game.kind)
        except (OperationalError, DBAPIError) as exc:
            raise DatabaseError(f"can't store the game: {_reason(exc)}",
                                full=_full(exc)) from None
        return Added(game, already=False)

    async def _players(self, conn: AsyncConnection, seats: Iterable[SeatResult],
                       when: float) -> None:
        known = set((await conn.execute(select(players.c.fingerprint).where(
            players.c.fingerprint.in_([s.fingerprint for s in seats])))).scalars())
        for seat in seats:
            name = f"Bot ({seat.fingerprint[len(BOT_PREFIX):]})" if seat.bot else seat.name
            if seat.fingerprint in known:
                if not seat.bot:
                    await conn.execute(update(players).where(
                        players.c.fingerprint == seat.fingerprint).values(name=name))
            else:
                await conn.execute(insert(players).values(
                    fingerprint=seat.fingerprint, name=name, bot=seat.bot, key=seat.key,
                    first_seen=when or time.time()))
                known.add(seat.fingerprint)

    async def _rate_next(self, conn: AsyncConnection, game: GameResult) -> None:
        who = sorted({s.fingerprint for s in game.seats})
        rows = (await conn.execute(select(ratings).where(
            ratings.c.kind == game.kind, ratings.c.fingerprint.in_(who)))).all()
        current = {r.fingerprint: Skill(r.mu, r.sigma) for r in rows}
        rated = rate(game, current)
        await conn.execute(insert(game_seats), [
            _seat_row(game.id, s, rated.before[s.seat], rated.after[s.seat])
            for s in game.seats])
        for fp, skill in rated.identities.items():
            won = any(s.won for s in game.seats if s.fingerprint == fp)
            if fp in current:
                await conn.execute(update(ratings).where(
                    ratings.c.kind == game.kind, ratings.c.fingerprint == fp).values(
                    mu=skill.mu, sigma=skill.sigma, games=ratings.c.games + 1,
                    wins=ratings.c.wins + int(won)))
            else:
                await conn.execute(insert(ratings).values(
                    fingerprint=fp, kind=game.kind, mu=skill.mu, sigma=skill.sigma,
                    games=1, wins=int(won)))

    async def _rebuild(self, conn: AsyncConnection, kind: str) -> None:
        """Compute the ratings of ``kind`` again over its whole history, in order."""
        rows = (await conn.execute(
            select(games.c.id, games.c.ended_at, games.c.winner, game_seats.c.seat,
                   game_seats.c.fingerprint, game_seats.c.team, game_seats.c.won)
            .join(game_seats, game_seats.c.game_id == games.c.id)
            .where(games.c.kind == kind)
            .order_by(games.c.ended_at, games.c.id, game_seats.c.seat))).all()
        skills: dict[str, Skill] = {}
        counts: dict[str, list[int]] = {}
        seat_updates: list[dict[str, Any]] = []
        index = 0
        while index < len(rows):
            first = rows[index]
            seats = []
            while index < len(rows) and rows[index].id == first.id:
                r = rows[index]
                seats.append(SeatResult(r.seat, r.fingerprint, "", r.fingerprint.startswith(
                    BOT_PREFIX), None, r.team, bool(r.won)))
                index += 1
            game = GameResult(first.id, kind, "", first.ended_at, tuple(seats), first.winner,
                              0, "")
            rated = rate(game, skills)
            skills.update(rated.identities)
            for seat in seats:
                before, after = rated.before[seat.seat], rated.after[seat.seat]
                seat_updates.append({"g": game.id, "s": seat.seat, "mb": before.mu,
                                     "sb": before.sigma, "ma": after.mu, "sa": after.sigma})
            for fp in {s.fingerprint for s in seats}:
                tally = counts.setdefault(fp, [0, 0])
                tally[0] += 1
                tally[1] += any(s.won for s in seats if s.fingerprint == fp)
        await conn.execute(delete(ratings).where(ratings.c.kind == kind))
        if seat_updates:
            await conn.execute(
                update(game_seats).where(and_(game_seats.c.game_id == bindparam("g"),
                                              game_seats.c.seat == bindparam("s")))
                .values(mu_before=bindparam("mb"), sigma_before=bindparam("sb"),
                        mu_after=bindparam("ma"), sigma_after=bindparam("sa")),
                seat_updates)
        if skills:
            await conn.execute(insert(ratings), [
                {"fingerprint": fp, "kind": kind, "mu": s.mu, "sigma": s.sigma,
                 "games": counts[fp][0], "wins": counts[fp][1]} for fp, s in skills.items()])

    # -- reading -----------------------------------------------------------------------

    async def leaderboard(self, kind: str = "stacks", limit: int | None = None,
                          ) -> list[Standing]:
        score = ratings.c.mu - 3 * ratings.c.sigma
        query = (
            select(func.coalesce(accounts.c.name, players.c.name).label("name"),
                   players.c.fingerprint, players.c.bot, ratings.c.games, ratings.c.wins,
                   ratings.c.mu, ratings.c.sigma)
            .join(players, players.c.fingerprint == ratings.c.fingerprint)
            .outerjoin(accounts, accounts.c.fingerprint == players.c.fingerprint)
            .where(ratings.c.kind == kind)
            .order_by(score.desc(), players.c.fingerprint))
        if limit is not None:
            query = query.limit(limit)
        async with self._read() as conn:
            rows = (await conn.execute(query)).all()
        return [Standing(i + 1, r.name, r.fingerprint, bool(r.bot), r.games, r.wins, r.mu,
                         r.sigma) for i, r in enumerate(rows)]

    async def games_of(self, fingerprint: str, limit: int = 50) -> list[PlayedGame]:
        """The identity's games, newest first, with its result and rating change."""
        me = game_seats.alias("me")
        async with self._read() as conn:
            rows = (await conn.execute(
                select(games.c.id, games.c.kind, games.c.table_name, games.c.ended_at,
                       games.c.added_at, games.c.winner, me.c.seat, me.c.won,
                       me.c.mu_before, me.c.sigma_before, me.c.mu_after, me.c.sigma_after)
                .join(me, me.c.game_id == games.c.id)
                .where(me.c.fingerprint == fingerprint)
                .order_by(games.c.ended_at.desc(), games.c.added_at.desc(), games.c.id)
                .limit(limit))).all()
            ids = [r.id for r in rows]
            others: dict[str, list[str]] = {}
            if ids:
                for o in (await conn.execute(
                        select(game_seats.c.game_id, game_seats.c.name)
                        .where(game_seats.c.game_id.in_(ids),
                               game_seats.c.fingerprint != fingerprint)
                        .order_by(game_seats.c.seat))).all():
                    others.setdefault(o.game_id, []).append(o.name)
        return [PlayedGame(r.id, r.kind, r.table_name, r.ended_at or r.added_at, r.seat,
                           bool(r.won), r.winner is None, Skill(r.mu_before, r.sigma_before),
                           Skill(r.mu_after, r.sigma_after), tuple(others.get(r.id, ())))
                for r in rows]

    async def record(self, game_id: str) -> dict[str, Any] | None:
        async with self._read() as conn:
            found = await conn.scalar(select(games.c.record).where(games.c.id == game_id))
        return None if found is None else dict(from_json(json.loads(found)))

    async def card(self, fingerprint: str) -> Card | None:
        """A player's card: name, standing per game kind, favourite opponents."""
        async with self._read() as conn:
            player = (await conn.execute(
                select(func.coalesce(accounts.c.name, players.c.name).label("name"),
                       players.c.bot)
                .outerjoin(accounts, accounts.c.fingerprint == players.c.fingerprint)
                .where(players.c.fingerprint == fingerprint))).first()
            if player is None:
                return None
            kinds = {r.kind: Standing(0, player.name, fingerprint, bool(player.bot), r.games,
                                      r.wins, r.mu, r.sigma)
                     for r in (await conn.execute(select(ratings).where(
                         ratings.c.fingerprint == fingerprint))).all()}
            me, other = game_seats.alias("me"), game_seats.alias("other")
            together = func.count().label("together")
            favourites = (await conn.execute(
                select(func.coalesce(accounts.c.name, players.c.name).label("name"),
                       together)
                .select_from(me)
                .join(other, and_(other.c.game_id == me.c.game_id,
                                  other.c.fingerprint != me.c.fingerprint))
                .join(players, players.c.fingerprint == other.c.fingerprint)
                .outerjoin(accounts, accounts.c.fingerprint == players.c.fingerprint)
                .where(me.c.fingerprint == fingerprint)
                .group_by(players.c.fingerprint, accounts.c.name, players.c.name)
                .order_by(together.desc(), players.c.fingerprint).limit(3))).all()
        return Card(player.name, fingerprint, kinds,
                    tuple((f.name, int(f.together)) for f in favourites))

    async def game_ids(self) -> set[str]:
        async with self._read() as conn:
            return set((await conn.execute(select(games.c.id))).scalars())

    async def records(self) -> AsyncIterator[dict[str, Any]]:
        """Every stored record, in the order the games ended."""
        async with self._read() as conn:
            result = await conn.stream(select(games.c.record).order_by(games.c.ended_at,
                                                                       games.c.id))
            async for row in result:
                yield dict(from_json(json.loads(row.record)))

    def _read(self) -> Any:
        """A connection for reading only: on SQLite its transaction is a plain ``BEGIN``
        (WAL: it neither waits for a writer nor holds one up), never ``BEGIN IMMEDIATE``."""
        return self.engine.execution_options(**{READ_ONLY: True}).connect()

    # -- accounts ----------------------------------------------------------------------

    async def account_for_key(self, ssh_fingerprint: str) -> Account | None:
        async with self._read() as conn:
            account_id = await conn.scalar(select(account_keys.c.account_id).where(
                account_keys.c.ssh_fingerprint == ssh_fingerprint))
            return None if account_id is None else await _account(conn, account_id)

    async def accounts(self) -> list[Account]:
        async with self._read() as conn:
            ids = (await conn.execute(select(accounts.c.id).order_by(accounts.c.id))).scalars()
            return [await _account(conn, i) for i in list(ids)]

    async def create_account(self, name: str, ssh_fingerprint: str, profile: str,
                             fingerprint: str) -> Account:
        """A new account for a key not yet known; `Refused` for a bad or taken name."""
        clean = check_account_name(name)
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            await self._name_free(conn, clean, None)
            if await conn.scalar(select(account_keys.c.account_id).where(
                    account_keys.c.ssh_fingerprint == ssh_fingerprint)):
                raise Refused("this key already belongs to an account")
            inserted = (await conn.execute(insert(accounts).values(
                name=clean, name_key=_name_key(clean), profile=profile,
                fingerprint=fingerprint, created_at=time.time()))).inserted_primary_key
            assert inserted is not None
            account_id = int(inserted[0])
            await conn.execute(insert(account_keys).values(
                ssh_fingerprint=ssh_fingerprint, account_id=account_id, added_at=time.time()))
            return await _account(conn, account_id)

    async def rename(self, account_id: int, name: str) -> Account:
        clean = check_account_name(name)
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            await self._name_free(conn, clean, account_id)
            await conn.execute(update(accounts).where(accounts.c.id == account_id).values(
                name=clean, name_key=_name_key(clean)))
            return await _account(conn, account_id)

    async def add_key(self, account_id: int, ssh_fingerprint: str) -> Account:
        """Let another ssh key log in to the account; `Refused` if it is another's."""
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            owner = await conn.scalar(select(account_keys.c.account_id).where(
                account_keys.c.ssh_fingerprint == ssh_fingerprint))
            if owner is not None and owner != account_id:
                raise Refused("that key belongs to another player's account")
            if owner is None:
                await conn.execute(insert(account_keys).values(
                    ssh_fingerprint=ssh_fingerprint, account_id=account_id,
                    added_at=time.time()))
            return await _account(conn, account_id)

    async def remove_key(self, account_id: int, ssh_fingerprint: str) -> Account:
        """Stop an ssh key logging in to the account; `Refused` if it is not one of the
        account's keys, or the last one (an account keeps a key to log in with)."""
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            keys = list((await conn.execute(select(account_keys.c.ssh_fingerprint).where(
                account_keys.c.account_id == account_id))).scalars())
            if ssh_fingerprint not in keys:
                raise Refused(f"the key {ssh_fingerprint} is not one of this account's keys")
            if len(keys) == 1:
                raise Refused("that is the account's only key: add another before you "
                              "remove it")
            await conn.execute(delete(account_keys).where(
                account_keys.c.account_id == account_id,
                account_keys.c.ssh_fingerprint == ssh_fingerprint))
            return await _account(conn, account_id)

    async def delete_account(self, name: str) -> bool:
        """Delete an account and its keys (its rated games stay: they are other players'
        games too). Returns whether there was one."""
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            account_id = await conn.scalar(select(accounts.c.id).where(
                accounts.c.name_key == _name_key(name)))
            if account_id is None:
                return False
            await conn.execute(delete(account_keys).where(
                account_keys.c.account_id == account_id))
            await conn.execute(delete(accounts).where(accounts.c.id == account_id))
            return True

    async def import_account(self, data: dict[str, Any]) -> bool:
        """An exported account, unless its name, identity or a key is already here.
        Returns whether it was added."""
        try:
            name = check_account_name(str(data["name"]))
            profile, fingerprint = str(data["profile"]), str(data["fingerprint"])
            keys = [str(k) for k in data["keys"]]
        except (KeyError, TypeError, Refused):
            return False
        async with self.engine.begin() as conn:
            await self._lock(conn, "accounts")
            clash = await conn.scalar(select(func.count()).select_from(accounts).where(
                (accounts.c.name_key == _name_key(name)) | (accounts.c.profile == profile)
                | (accounts.c.fingerprint == fingerprint)))
            taken = await conn.scalar(select(func.count()).select_from(account_keys).where(
                account_keys.c.ssh_fingerprint.in_(keys)))
            if clash or taken or not keys:
                return False
            inserted = (await conn.execute(insert(accounts).values(
                name=name, name_key=_name_key(name), profile=profile,
                fingerprint=fingerprint, created_at=time.time()))).inserted_primary_key
            assert inserted is not None
            await conn.execute(insert(account_keys), [
                {"ssh_fingerprint": k, "account_id": int(inserted[0]), "added_at": time.time()}
                for k in keys])
            return True

    async def _name_free(self, conn: AsyncConnection, name: str, mine: int | None) -> None:
        holder = await conn.scalar(select(accounts.c.id).where(
            accounts.c.name_key == _name_key(name)))
        if holder is not None and holder != mine:
            raise Refused(f"the name {name!r} is taken: choose another")


async def _account(conn: AsyncConnection, account_id: int) -> Account:
    row = (await conn.execute(select(accounts).where(accounts.c.id == account_id))).one()
    keys = (await conn.execute(select(account_keys.c.ssh_fingerprint).where(
        account_keys.c.account_id == account_id).order_by(account_keys.c.added_at))).scalars()
    return Account(row.id, row.name, row.profile, row.fingerprint, tuple(keys))


_MIGRATING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = \
    weakref.WeakKeyDictionary()


def _migrating() -> asyncio.Lock:
    """This event loop's lock around schema migrations (an asyncio lock belongs to one
    loop; tests and commands run several, one after another)."""
    loop = asyncio.get_running_loop()
    lock = _MIGRATING.get(loop)
    if lock is None:
        lock = _MIGRATING[loop] = asyncio.Lock()
    return lock


def _seat_row(game_id: str, seat: SeatResult, before: Skill, after: Skill) -> dict[str, Any]:
    return {"game_id": game_id, "seat": seat.seat, "fingerprint": seat.fingerprint,
            "name": seat.name, "team": seat.team, "won": seat.won,
            "mu_before": before.mu, "sigma_before": before.sigma,
            "mu_after": after.mu, "sigma_after": after.sigma}


SQLITE_FULL = 13
POSTGRES_DISK_FULL = "53100"


def _full(exc: BaseException) -> bool:
    """Did the database refuse for want of room (SQLite's SQLITE_FULL, PostgreSQL's
    disk_full)?"""
    inner = getattr(exc, "orig", None) or exc
    return (getattr(inner, "sqlite_errorcode", None) == SQLITE_FULL
            or getattr(inner, "sqlstate", None) == POSTGRES_DISK_FULL
            or "database or disk is full" in str(inner))


def _reason(exc: BaseException) -> str:
    inner = getattr(exc, "orig", None) or exc
    return str(inner).strip().splitlines()[0] if str(inner).strip() else type(inner).__name__


READ_ONLY = "stacks_read_only"
"""Execution option of the connections :meth:`Store._read` makes."""


def _sqlite_setup(engine: AsyncEngine) -> None:
    """WAL (readers don't wait for the writer), a patient busy wait, foreign keys, and
    ``BEGIN IMMEDIATE``: a writer takes the lock before it reads what it will change.
    A reader's transaction is a deferred ``BEGIN``: it takes no write lock at all."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _begin(conn: Connection) -> None:
        reading = conn.get_execution_options().get(READ_ONLY, False)
        conn.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")


def default_database(base: Path) -> str:
    return f"sqlite:///{base / DATABASE_FILE}"



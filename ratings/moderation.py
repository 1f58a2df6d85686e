"""Moderation's records in the server's database: moderators, mutes and bans, the audit
log, players' reports, and the games players left for the stand-in to finish.

`ModerationStore` works on an open `ratings.store.Store` (the same engine, the same
serialised writers). Every action a moderator takes goes into the audit log (who, what,
when, why) in the same transaction as its effect, so the log is never behind; a running
``stacks serve`` reads the log's new entries to act on what was done elsewhere (``stacks
moderate`` at the server's console).

A sanction is a mute or a ban of an account (by its id, so a rename keeps it) or of one
ssh key, for a time (``until``) or for good (``None``); lifting one keeps it in the
records, marked lifted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    and_,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from ratings.models import accounts, metadata, ratings
from ratings.store import Account, Refused, Store, _account, _in_words, _name_key

MAX_REASON = 300
MAX_LINE = 600

mod_moderators = Table(
    "mod_moderators", metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"),
           primary_key=True),
    Column("added_at", Float, nullable=False),
    Column("added_by", String(64), nullable=False),
)

mod_sanctions = Table(
    "mod_sanctions", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(8), nullable=False),
    Column("account_id", Integer, nullable=True),
    Column("ssh_fingerprint", String(100), nullable=True),
    Column("target", String(100), nullable=False),
    Column("reason", String(300), nullable=False),
    Column("by_name", String(64), nullable=False),
    Column("at", Float, nullable=False),
    Column("until", Float, nullable=True),
    Column("lifted_at", Float, nullable=True),
    Column("lifted_by", String(64), nullable=True),
    Index("ix_mod_sanctions_live", "kind", "lifted_at"),
)

mod_audit = Table(
    "mod_audit", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("by_name", String(64), nullable=False),
    Column("action", String(16), nullable=False),
    Column("target", String(100), nullable=False),
    Column("reason", String(300), nullable=False),
    Column("detail", String(600), nullable=False),
)

mod_reports = Table(
    "mod_reports", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("by_name", String(64), nullable=False),
    Column("target", String(64), nullable=False),
    Column("table_name", String(64), nullable=False),
    Column("line", String(600), nullable=False),
    Column("reason", String(300), nullable=False),
    Column("handled_at", Float, nullable=True),
    Column("handled_by", String(64), nullable=True),
)

abandons = Table(
    "abandons", metadata,
    Column("fingerprint", String(40), primary_key=True),
    Column("table_name", String(64), primary_key=True),
    Column("at", Float, primary_key=True),
    Column("name", String(64), nullable=False),
    Index("ix_abandons_fingerprint", "fingerprint"),
)


@dataclass(frozen=True)
class Sanction:
    """A mute or a ban in force (or lifted, in the records)."""

    id: int
    kind: str
    """``mute`` or ``ban``."""
    account_id: int | None
    ssh_fingerprint: str | None
    target: str
    """Whom it was given to, as the moderator named them."""
    reason: str
    by: str
    at: float
    until: float | None
    """When it ends by itself; ``None``: for good."""

    def in_force(self, now: float) -> bool:
        return self.until is None or now < self.until

    def words(self, now: float | None = None) -> str:
        """``for good`` or ``for 9 more minutes``: how long it lasts."""
        if self.until is None:
            return "for good"
        left = self.until - (time.time() if now is None else now)
        return f"for {span_words(max(left, 0.0))} more"


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: float
    by: str
    action: str
    target: str
    reason: str
    detail: str

    def line(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.at))
        why = f" — {self.reason}" if self.reason else ""
        more = f" ({self.detail})" if self.detail else ""
        return f"#{self.id} {when} UTC {self.by}: {self.action} {self.target}{more}{why}"


@dataclass(frozen=True)
class Report:
    id: int
    at: float
    by: str
    target: str
    table: str
    line: str
    """The reported chat line(s), or empty for a report of the player."""
    reason: str
    handled: bool

    def words(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(self.at))
        said = f" said {self.line!r}" if self.line else ""
        where = f" at {self.table}" if self.table else ""
        why = f": {self.reason}" if self.reason else ""
        done = " [handled]" if self.handled else ""
        return f"#{self.id} {when} UTC {self.by} reports {self.target}{where}{said}{why}{done}"


@dataclass(frozen=True)
class Abandonment:
    """A player's games left before the end (the stand-in finished them) against the
    games they were rated in."""

    left: int
    games: int

    @property
    def rate(self) -> float:
        return self.left / self.games if self.games else 0.0

    def words(self) -> str:
        if not self.left:
            return "never left a game before its end"
        return (f"left {self.left} of {self.games} game{'s' if self.games != 1 else ''} "
                f"before the end ({self.rate:.0%})")


def span_words(seconds: float) -> str:
    """``3 minutes``, ``2 hours``, ``1 day``: a span in round words."""
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = round(seconds / size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    count = max(1, round(seconds))
    return f"{count} second{'s' if count != 1 else ''}"


def _clip(text: str, size: int) -> str:
    return " ".join(text.split())[:size]


class ModerationStore:
    """Moderation's reads and writes on an open store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- the audit log -------------------------------------------------------------------

    async def _audit(self, conn: AsyncConnection, by: str, action: str, target: str,
                     reason: str, detail: str = "") -> int:
        inserted = (await conn.execute(insert(mod_audit).values(
            at=time.time(), by_name=_clip(by, 64), action=action[:16],
            target=_clip(target, 100), reason=_clip(reason, MAX_REASON),
            detail=_clip(detail, MAX_LINE)))).inserted_primary_key
        assert inserted is not None
        return int(inserted[0])

    @_in_words
    async def log(self, by: str, action: str, target: str, reason: str = "",
                  detail: str = "") -> int:
        """An action with no record of its own (a table closed, a line to everyone): the
        audit entry's id."""
        async with self.store.engine.begin() as conn:
            return await self._audit(conn, by, action, target, reason, detail)

    @_in_words
    async def audit(self, limit: int = 50, after: int = 0) -> list[AuditEntry]:
        """The log, newest first (``after``: only entries with a greater id, oldest
        first: what a running server has not seen yet)."""
        query = select(mod_audit).where(mod_audit.c.id > after)
        query = query.order_by(mod_audit.c.id if after else mod_audit.c.id.desc()).limit(limit)
        async with self.store._read() as conn:
            rows = (await conn.execute(query)).all()
        return [AuditEntry(r.id, r.at, r.by_name, r.action, r.target, r.reason, r.detail)
                for r in rows]

    @_in_words
    async def last_audit_id(self) -> int:
        async with self.store._read() as conn:
            return int(await conn.scalar(select(func.coalesce(func.max(mod_audit.c.id), 0)))
                       or 0)

    # -- moderators ----------------------------------------------------------------------

    @_in_words
    async def set_moderator(self, name: str, by: str, *, on: bool) -> Account:
        """Make the account named ``name`` a moderator (or no longer one)."""
        async with self.store.engine.begin() as conn:
            account = await _named(conn, name)
            await conn.execute(delete(mod_moderators).where(
                mod_moderators.c.account_id == account.id))
            if on:
                await conn.execute(insert(mod_moderators).values(
                    account_id=account.id, added_at=time.time(), added_by=_clip(by, 64)))
            await self._audit(conn, by, "moderator" if on else "unmoderator", account.name,
                              "")
            return account

    @_in_words
    async def moderators(self) -> set[int]:
        """The ids of the accounts the database names moderators."""
        async with self.store._read() as conn:
            return set((await conn.execute(select(mod_moderators.c.account_id))).scalars())

    # -- mutes and bans ------------------------------------------------------------------

    @_in_words
    async def sanction(self, kind: str, target: str, by: str, reason: str,
                       seconds: float | None) -> Sanction:
        """Mute or ban the account named ``target`` (or the key ``SHA256:…``), for
        ``seconds`` or for good; one in force already is replaced."""
        assert kind in ("mute", "ban")
        now = time.time()
        async with self.store.engine.begin() as conn:
            await self.store._lock(conn, "moderation")
            account_id, key, shown = await _target(conn, target)
            await conn.execute(update(mod_sanctions).where(
                _same(kind, account_id, key), mod_sanctions.c.lifted_at.is_(None)).values(
                lifted_at=now, lifted_by=_clip(by, 64)))
            until = None if seconds is None else now + seconds
            inserted = (await conn.execute(insert(mod_sanctions).values(
                kind=kind, account_id=account_id, ssh_fingerprint=key, target=shown,
                reason=_clip(reason, MAX_REASON), by_name=_clip(by, 64), at=now,
                until=until))).inserted_primary_key
            assert inserted is not None
            length = "for good" if seconds is None else f"for {span_words(seconds)}"
            await self._audit(conn, by, kind, shown, reason, length)
            return Sanction(int(inserted[0]), kind, account_id, key, shown,
                            _clip(reason, MAX_REASON), by, now, until)

    @_in_words
    async def lift(self, kind: str, target: str, by: str, reason: str) -> int:
        """Lift the ``kind`` in force on ``target``; how many were (`Refused` if none)."""
        now = time.time()
        async with self.store.engine.begin() as conn:
            await self.store._lock(conn, "moderation")
            account_id, key, shown = await _target(conn, target)
            lifted = (await conn.execute(update(mod_sanctions).where(
                _same(kind, account_id, key), mod_sanctions.c.lifted_at.is_(None),
                or_(mod_sanctions.c.until.is_(None), mod_sanctions.c.until > now)).values(
                lifted_at=now, lifted_by=_clip(by, 64)))).rowcount
            if not lifted:
                raise Refused(f"{shown} is not {'muted' if kind == 'mute' else 'banned'}")
            await self._audit(conn, by, f"un{kind}", shown, reason)
            return int(lifted)

    @_in_words
    async def in_force(self, now: float | None = None) -> list[Sanction]:
        """Every mute and ban in force now."""
        moment = time.time() if now is None else now
        async with self.store._read() as conn:
            rows = (await conn.execute(select(mod_sanctions).where(
                mod_sanctions.c.lifted_at.is_(None),
                or_(mod_sanctions.c.until.is_(None), mod_sanctions.c.until > moment))
                .order_by(mod_sanctions.c.id))).all()
        return [Sanction(r.id, r.kind, r.account_id, r.ssh_fingerprint, r.target, r.reason,
                         r.by_name, r.at, r.until) for r in rows]

    @_in_words
    async def accounts_by_id(self, ids: set[int]) -> dict[int, Account]:
        """The accounts of these ids (those that still exist)."""
        if not ids:
            return {}
        async with self.store._read() as conn:
            found = (await conn.execute(select(accounts.c.id).where(
                accounts.c.id.in_(sorted(ids))))).scalars().all()
            return {i: await _account(conn, i) for i in found}

    # -- renaming ------------------------------------------------------------------------

    @_in_words
    async def rename(self, name: str, new: str, by: str, reason: str) -> Account:
        """Rename the account named ``name`` (its name offends): `Refused` if the new
        name is not one an account may have or is taken."""
        from ratings.store import check_account_name

        clean = check_account_name(new)
        async with self.store.engine.begin() as conn:
            await self.store._lock(conn, "accounts")
            account = await _named(conn, name)
            holder = await conn.scalar(select(accounts.c.id).where(
                accounts.c.name_key == _name_key(clean)))
            if holder is not None and holder != account.id:
                raise Refused(f"the name {clean!r} is taken: choose another")
            await conn.execute(update(accounts).where(accounts.c.id == account.id).values(
                name=clean, name_key=_name_key(clean)))
            await self._audit(conn, by, "rename", account.name, reason, f"now {clean}")
            return await _account(conn, account.id)

    # -- reports -------------------------------------------------------------------------

    @_in_words
    async def report(self, by: str, target: str, table: str, line: str, reason: str) -> int:
        """A player's report of another (or of their chat line): its id."""
        async with self.store.engine.begin() as conn:
            inserted = (await conn.execute(insert(mod_reports).values(
                at=time.time(), by_name=_clip(by, 64), target=_clip(target, 64),
                table_name=_clip(table, 64), line=_clip(line, MAX_LINE),
                reason=_clip(reason, MAX_REASON)))).inserted_primary_key
            assert inserted is not None
            return int(inserted[0])

    @_in_words
    async def reports(self, limit: int = 30, *, handled: bool = False) -> list[Report]:
        """The reports not handled yet (``handled``: every report), newest first."""
        query = select(mod_reports)
        if not handled:
            query = query.where(mod_reports.c.handled_at.is_(None))
        async with self.store._read() as conn:
            rows = (await conn.execute(query.order_by(mod_reports.c.id.desc())
                                       .limit(limit))).all()
        return [Report(r.id, r.at, r.by_name, r.target, r.table_name, r.line, r.reason,
                       r.handled_at is not None) for r in rows]

    @_in_words
    async def handle_report(self, report_id: int, by: str, reason: str) -> None:
        async with self.store.engine.begin() as conn:
            done = (await conn.execute(update(mod_reports).where(
                mod_reports.c.id == report_id, mod_reports.c.handled_at.is_(None)).values(
                handled_at=time.time(), handled_by=_clip(by, 64)))).rowcount
            if not done:
                raise Refused(f"there is no open report #{report_id}")
            await self._audit(conn, by, "handled", f"report #{report_id}", reason)

    # -- abandonment ---------------------------------------------------------------------

    @_in_words
    async def note_abandons(self, table: str, at: float,
                            left: list[tuple[str, str]]) -> None:
        """The players (identity fingerprint, name) whose game at ``table``, ended at
        ``at``, the stand-in finished for them. A game noted twice counts once."""
        if not left:
            return
        async with self.store.engine.begin() as conn:
            for fingerprint, name in left:
                known = await conn.scalar(select(func.count()).select_from(abandons).where(
                    abandons.c.fingerprint == fingerprint, abandons.c.table_name == table,
                    abandons.c.at == at))
                if not known:
                    await conn.execute(insert(abandons).values(
                        fingerprint=fingerprint, table_name=_clip(table, 64), at=at,
                        name=_clip(name, 64)))

    @_in_words
    async def abandoners(self) -> dict[str, Abandonment]:
        """Every identity that ever left a game before its end, with its count."""
        async with self.store._read() as conn:
            who = list((await conn.execute(
                select(abandons.c.fingerprint).distinct())).scalars())
        return await self.abandonment(who)

    @_in_words
    async def abandonment(self, fingerprints: list[str]) -> dict[str, Abandonment]:
        """Each identity's games left before the end against its rated games (every
        game kind together)."""
        if not fingerprints:
            return {}
        async with self.store._read() as conn:
            left = {r[0]: int(r[1]) for r in (await conn.execute(
                select(abandons.c.fingerprint, func.count())
                .where(abandons.c.fingerprint.in_(fingerprints))
                .group_by(abandons.c.fingerprint))).all()}
            played = {r[0]: int(r[1] or 0) for r in (await conn.execute(
                select(ratings.c.fingerprint, func.sum(ratings.c.games))
                .where(ratings.c.fingerprint.in_(fingerprints))
                .group_by(ratings.c.fingerprint))).all()}
        return {fp: Abandonment(left.get(fp, 0), max(played.get(fp, 0), left.get(fp, 0)))
                for fp in fingerprints}


async def _named(conn: AsyncConnection, name: str) -> Account:
    account_id = await conn.scalar(select(accounts.c.id).where(
        accounts.c.name_key == _name_key(name.strip())))
    if account_id is None:
        raise Refused(f"there is no account named {name.strip()!r}")
    return await _account(conn, account_id)


def is_key(target: str) -> bool:
    """Does ``target`` name an ssh key (``SHA256:…``) rather than an account?"""
    return target.strip().upper().startswith("SHA256:") and " " not in target.strip()


async def _target(conn: AsyncConnection, target: str) -> tuple[int | None, str | None, str]:
    """An account's id, or a key: (account id, key, as shown)."""
    if is_key(target):
        key = "SHA256:" + target.strip()[len("SHA256:"):]
        return None, key, key
    account = await _named(conn, target)
    return account.id, None, account.name


def _same(kind: str, account_id: int | None, key: str | None) -> ColumnElement[bool]:
    if account_id is not None:
        return and_(mod_sanctions.c.kind == kind, mod_sanctions.c.account_id == account_id)
    return and_(mod_sanctions.c.kind == kind, mod_sanctions.c.ssh_fingerprint == key)

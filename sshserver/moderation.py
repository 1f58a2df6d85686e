"""Moderation at a running ``stacks serve``: what the server does about mutes, bans,
renames, closed tables and lines to everyone, wherever they were decided.

The decisions are in the database (`ratings.moderation`), written by a moderator in the
ssh menu (the program asks over its link: op ``moderate``) or at the server's console
(``stacks moderate``, another process). The server reads the audit log's new entries
every :attr:`ModerationSettings.poll` seconds (at once after a command of its own
menu) and acts:

- a ban: every session of that account or key is closed with "this account is banned:
  REASON", and the next login is refused in the same words;
- a mute: the account's chat lines are refused (each line a player sends goes through
  the server: op ``chat``, which also masks the ``--word-filter`` words); the muted
  player is told;
- a rename: the sessions of the account take the new name (the next table shows it);
- a table closed: the server ends it, its game too;
- a line to everyone: every session shows it (the programs ask for the server's lines:
  op ``notices``).

A player reports a player or a chat line from the table (op ``report``): it lands in the
moderators' list and the moderators on the server are told. Players who left rated
games for the stand-in to finish are counted (`sshserver.tables.TableKeeper.left_early`);
with ``--max-abandon-rate`` such a player is refused a seat at the server's tables, in
words. The sessions' list (``who``) is written to the data directory for the console.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import deque
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from netplay.hosts import fingerprint as identity_fingerprint
from ratings.moderation import Abandonment, AuditEntry, ModerationStore, Sanction
from ratings.schema import SchemaTooNew
from ratings.store import DatabaseError, Refused
from sshserver.modcommands import Context, run_command, words_of
from sshserver.wordfilter import WordFilter, WordFilterError

if TYPE_CHECKING:
    from ratings.archive import Archive
    from sshserver.accounts import Login
    from sshserver.status import Status
    from sshserver.tables import TableKeeper

log = logging.getLogger(__name__)

MODERATION_OPS = frozenset({"chat", "report", "moderate", "notices"})
WHO_FILE = "serve-who.json"
"""The sessions of the running server, for ``stacks moderate who`` (in the data dir)."""
WHO_STALE = 30.0
"""Seconds after which the sessions' file is an old server's, not a running one's."""
ABANDON_EVERY = 30.0
MAX_NOTICES = 256
MAX_REPORT = 300


@dataclass(frozen=True)
class ModerationSettings:
    moderators: frozenset[str] = frozenset()
    """Account names (case-blind) that moderate, beside those the database names."""
    word_filter: Path | None = None
    """The chat's word filter (`sshserver.wordfilter`); ``None``: none."""
    max_abandon_rate: float | None = None
    """Refuse a seat at the server's (rated) tables to a player who left more than this
    share of their games before the end; ``None``: never."""
    min_games: int = 5
    """The games a player has played before their rate counts."""
    poll: float = 2.0
    """Seconds between two looks at the audit log for what was done elsewhere."""


class ModeratedSession(Protocol):
    """What moderation uses of a session."""

    name: str
    profile: str
    login: Login | None
    at_table: str

    @property
    def where(self) -> str: ...

    def end(self, reason: str | None) -> None: ...


class ModeratedServer(Protocol):
    """What moderation uses of the server."""

    @property
    def sessions(self) -> Collection[ModeratedSession]: ...

    @property
    def tables(self) -> TableKeeper: ...

    @property
    def archive(self) -> Archive: ...

    @property
    def status(self) -> Status: ...


def banned_words(sanction: Sanction) -> str:
    reason = sanction.reason or "no reason given"
    last = "" if sanction.until is None else f" (until {_when(sanction.until)})"
    return f"this account is banned: {reason}{last}"


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(at))


class Moderation:
    """The server's moderation: its checks, its link requests and its watch of the log."""

    def __init__(self, server: ModeratedServer, settings: ModerationSettings,
                 who_file: Path | None = None) -> None:
        self.server = server
        self.settings = settings
        self.filter = WordFilter([])
        self.who_file = who_file
        self.sanctions: list[Sanction] = []
        """The mutes and bans in force, as last read."""
        self.db_moderators: set[int] = set()
        self.banned_identities: dict[str, Sanction] = {}
        """The identity fingerprints of banned accounts (refused a seat at a table)."""
        self.banned_keys: dict[str, Sanction] = {}
        """The ssh keys banned, or of banned accounts (refused before anything else)."""
        self.abandoners: dict[str, Abandonment] = {}
        self.notices: deque[tuple[int, str | None, str]] = deque(maxlen=MAX_NOTICES)
        self._seq = 0
        self._seen = 0
        self._task: asyncio.Task[None] | None = None
        self._poke = asyncio.Event()
        self._abandons_at = 0.0
        self._down = False

    # -- the server's life ---------------------------------------------------------------

    async def start(self) -> None:
        """Load the word filter (`WordFilterError` in words), read what is in force,
        and watch the log."""
        if self.settings.word_filter is not None:
            self.filter = WordFilter.load(self.settings.word_filter)
            self.server.status.event(f"chat word filter: {len(self.filter)} words from "
                                     f"{self.settings.word_filter}")
        try:
            mods = await self._mods()
            self._seen = await mods.last_audit_id()
            await self._refresh(mods)
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            self.server.status.event(f"moderation can't read the database yet: {exc}")
        self._task = asyncio.create_task(self._watch(), name="moderation")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self.who_file is not None:
            with contextlib.suppress(OSError):
                self.who_file.unlink()

    def poke(self) -> None:
        """Look at the log now (a command of the ssh menu was just written)."""
        self._poke.set()

    async def _mods(self) -> ModerationStore:
        return ModerationStore(await self.server.archive.store_handle())

    async def _watch(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), self.settings.poll)
            self._poke.clear()
            try:
                await self.look()
                if self._down:
                    self._down = False
                    self.server.status.event("moderation reads the database again")
            except (DatabaseError, SchemaTooNew, OSError) as exc:
                if not self._down:
                    self._down = True
                    self.server.status.event(f"moderation can't read the database: {exc}")
            except Exception:  # moderation must never stop the server
                log.exception("moderation failed on a look at the log")
            self._write_who()

    async def look(self) -> None:
        """Read what is in force and the log's new entries, and act on them."""
        mods = await self._mods()
        await self._refresh(mods)
        for entry in await mods.audit(limit=200, after=self._seen):
            self._seen = max(self._seen, entry.id)
            await self._apply(entry)
        self._enforce_bans()

    async def _refresh(self, mods: ModerationStore) -> None:
        self.sanctions = await mods.in_force()
        self.db_moderators = await mods.moderators()
        banned_accounts = {s.account_id for s in self.sanctions
                           if s.kind == "ban" and s.account_id is not None}
        found = await mods.accounts_by_id(banned_accounts)
        bans = [(found[s.account_id], s) for s in self.sanctions
                if s.kind == "ban" and s.account_id in found]
        self.banned_identities = {account.fingerprint: s for account, s in bans}
        self.banned_keys = {key: s for account, s in bans for key in account.keys}
        self.banned_keys.update((s.ssh_fingerprint, s) for s in self.sanctions
                                if s.kind == "ban" and s.ssh_fingerprint is not None)
        now = time.monotonic()
        if self.settings.max_abandon_rate is not None and \
                now - self._abandons_at >= ABANDON_EVERY:
            self._abandons_at = now
            self.abandoners = await mods.abandoners()

    async def _apply(self, entry: AuditEntry) -> None:
        """Act on one entry of the log (written here or at the console)."""
        action, target = entry.action, entry.target
        why = f": {entry.reason}" if entry.reason else ""
        if action != "say":
            self.server.status.event(f"moderation: {entry.by} {action} {target}"
                                     + (f" ({entry.detail})" if entry.detail else "") + why)
        if action == "say":
            self.server.status.event(f"moderation: {entry.by} says to everyone: "
                                     f"{entry.detail}")
            self._notice(None, f"From the server: {entry.detail}")
        elif action == "close":
            closed = await self.server.tables.close_for(
                target, f"closed by a moderator{why}")
            if not closed:
                self.server.status.event(f"moderation: no table {target} to close")
        elif action in ("mute", "unmute"):
            for session in self._sessions_of(target):
                self._notice(session.profile, (
                    f"A moderator muted you {entry.detail}{why}: your chat lines reach "
                    "nobody meanwhile.") if action == "mute" else
                    "A moderator lifted your mute: you may talk again.")
        elif action == "rename" and entry.detail.startswith("now "):
            new = entry.detail[len("now "):]
            for session in self._sessions_of(target):
                session.name = new
                if session.login is not None:
                    session.login.name = new
                    if session.login.account is not None:
                        session.login.account = replace(session.login.account, name=new)
                self._notice(session.profile, f"A moderator renamed your account to {new}"
                             f"{why}. Your next table shows it.")

    def _sessions_of(self, target: str) -> list[ModeratedSession]:
        """The sessions of the account named ``target`` (or the key ``SHA256:…``)."""
        name = target.casefold()
        return [s for s in self.server.sessions if s.login is not None and (
            s.login.ssh_fingerprint == target or s.name.casefold() == name)]

    def _enforce_bans(self) -> None:
        for session in list(self.server.sessions):
            if session.login is not None:
                sanction = self.ban_of(session.login)
                if sanction is not None:
                    session.end(banned_words(sanction))

    def _notice(self, profile: str | None, text: str) -> None:
        self._seq += 1
        self.notices.append((self._seq, profile, text))

    # -- the checks ----------------------------------------------------------------------

    def _sanction(self, kind: str, login: Login) -> Sanction | None:
        now = time.time()
        account = login.account.id if login.account is not None else None
        for sanction in reversed(self.sanctions):
            if sanction.kind == kind and sanction.in_force(now) and (
                    (account is not None and sanction.account_id == account)
                    or sanction.ssh_fingerprint == login.ssh_fingerprint):
                return sanction
        return None

    def ban_of(self, login: Login) -> Sanction | None:
        """The ban on this login's account or key, if one is in force."""
        return self._sanction("ban", login)

    def banned(self, login: Login) -> str | None:
        """Why this login is refused (``this account is banned: REASON``), or ``None``."""
        sanction = self.ban_of(login)
        return None if sanction is None else banned_words(sanction)

    def banned_key(self, ssh_fingerprint: str) -> str | None:
        """Why this key is refused (it, or its account, is banned), or ``None``."""
        sanction = self.banned_keys.get(ssh_fingerprint)
        if sanction is None or not sanction.in_force(time.time()):
            return None
        return banned_words(sanction)

    def mute_of(self, login: Login) -> Sanction | None:
        return self._sanction("mute", login)

    def is_moderator(self, login: Login | None) -> bool:
        if login is None or login.account is None or self.ban_of(login) is not None:
            return False
        return (login.account.id in self.db_moderators
                or login.account.name.casefold() in self.settings.moderators)

    def _abandon_refusal(self, identity: str) -> str | None:
        limit = self.settings.max_abandon_rate
        record = self.abandoners.get(identity)
        if limit is None or record is None or record.games < self.settings.min_games \
                or record.rate <= limit:
            return None
        return (f"this server's rated tables are closed to players who leave games "
                f"before the end: you {record.words()}, more than {limit:.0%}")

    def admit(self, key: bytes) -> str | None:
        """A seat at one of the server's tables for the player of ``key``: why not, or
        ``None`` (the tables' lobbies ask, `netplay.hosting.lobby.Lobby.admit`)."""
        identity = identity_fingerprint(key)
        sanction = self.banned_identities.get(identity)
        if sanction is not None:
            return banned_words(sanction)
        return self._abandon_refusal(identity)

    def refuse_table(self, login: Login | None) -> str | None:
        """Why this login may not open a (rated) table, or ``None``."""
        if login is None or login.account is None:
            return None
        return self._abandon_refusal(login.account.fingerprint)

    async def left_early(self, table: str, seats: list[tuple[bytes, str]]) -> None:
        """The players of ``table`` the stand-in was playing for at the game's end."""
        left = [(identity_fingerprint(key), name) for key, name in seats]
        names = ", ".join(name for _, name in left)
        try:
            mods = await self._mods()
            await mods.note_abandons(table, time.time(), left)
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            self.server.status.event(f"table {table}: left before the end by {names}, not "
                                     f"counted (the database can't be used: {exc})")
            return
        self.server.status.event(f"table {table}: left before the end by {names}")
        self._abandons_at = 0.0  # read again at the next look

    # -- who is on -----------------------------------------------------------------------

    def who_lines(self) -> list[str]:
        lines = []
        for session in sorted(self.server.sessions, key=lambda s: s.name.casefold()):
            flags = []
            if session.login is not None and self.mute_of(session.login) is not None:
                flags.append("muted")
            if self.is_moderator(session.login):
                flags.append("moderator")
            extra = f" [{', '.join(flags)}]" if flags else ""
            lines.append(f"{session.name}: {session.where}{extra}")
        return lines

    def _write_who(self) -> None:
        if self.who_file is None:
            return
        try:
            self.who_file.parent.mkdir(parents=True, exist_ok=True)
            part = self.who_file.with_suffix(".part")
            part.write_text(json.dumps({"at": time.time(), "pid": os.getpid(),
                                        "lines": self.who_lines()}))
            part.replace(self.who_file)
        except OSError as exc:
            log.warning("can't write %s: %s", self.who_file, exc)

    # -- the sessions' requests ----------------------------------------------------------

    async def request(self, session: ModeratedSession,
                      request: Mapping[str, Any]) -> dict[str, Any]:
        """One moderation request of a session's program."""
        op = request.get("op")
        try:
            if op == "chat":
                return self._chat(session, request)
            if op == "notices":
                return self._notices(session, request)
            if op == "report":
                return await self._report(session, request)
            if op == "moderate":
                return await self._moderate(session, request)
        except Refused as exc:
            return {"ok": False, "error": str(exc)}
        except (DatabaseError, SchemaTooNew, OSError) as exc:
            return {"ok": False, "error": f"the server's database can't be used now ({exc})"}
        return {"ok": False, "error": f"unknown request {op!r}"}

    def _chat(self, session: ModeratedSession, request: Mapping[str, Any]) -> dict[str, Any]:
        text = request.get("text")
        if not isinstance(text, str):
            return {"ok": False, "error": "a chat line, please"}
        if session.login is not None:
            mute = self.mute_of(session.login)
            if mute is not None:
                why = f" ({mute.reason})" if mute.reason else ""
                return {"ok": False, "error": f"you are muted {mute.words()}{why}: your "
                                              "line was not sent"}
        return {"ok": True, "text": self.filter.mask(text)}

    def _notices(self, session: ModeratedSession,
                 request: Mapping[str, Any]) -> dict[str, Any]:
        after = request.get("after")
        if not isinstance(after, int) or isinstance(after, bool):
            return {"ok": True, "last": self._seq, "lines": []}  # from now on
        lines = [text for seq, profile, text in self.notices
                 if seq > after and profile in (None, session.profile)]
        return {"ok": True, "last": self._seq, "lines": lines}

    async def _report(self, session: ModeratedSession,
                      request: Mapping[str, Any]) -> dict[str, Any]:
        target, reason = request.get("target"), request.get("reason", "")
        table, line = request.get("table", ""), request.get("line", "")
        if not isinstance(target, str) or not target.strip():
            raise Refused("whom do you report? !NAME and why")
        if not all(isinstance(v, str) for v in (reason, table, line)):
            raise Refused("a report is words: !NAME and why")
        mods = await self._mods()
        number = await mods.report(session.name, target.strip(), str(table)[:64],
                                   str(line)[:600], str(reason)[:MAX_REPORT])
        self.server.status.event(f"report #{number}: {session.name} reports {target.strip()}"
                                 + (f" at {table}" if table else "")
                                 + (f": {reason}" if reason else ""))
        for other in self.server.sessions:
            if self.is_moderator(other.login):
                self._notice(other.profile, f"New report #{number}: {session.name} reports "
                             f"{target.strip()} (Moderate, `reports`).")
        return {"ok": True, "note": f"Your report (#{number}) reached the moderators."}

    async def _moderate(self, session: ModeratedSession,
                        request: Mapping[str, Any]) -> dict[str, Any]:
        if not self.is_moderator(session.login):
            return {"ok": False, "error": "only the server's moderators can do that"}
        line = request.get("line")
        if not isinstance(line, str):
            return {"ok": False, "error": "a command line, please (`help` lists them)"}
        ctx = Context(by=session.name, who=self.who_lines,
                      tables=lambda: self.server.tables.tables)
        _, reply = await run_command(words_of(line), await self._mods(), ctx)
        await self.look()  # act on it now, not at the next look
        return {"ok": True, "text": reply}


def read_who(path: Path, now: float | None = None) -> list[str] | None:
    """The running server's sessions, as it last wrote them (``None``: no server is
    running here, or its file is old)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    at = data.get("at") if isinstance(data, dict) else None
    lines = data.get("lines") if isinstance(data, dict) else None
    if not isinstance(at, int | float) or not isinstance(lines, list):
        return None
    if (time.time() if now is None else now) - at > WHO_STALE:
        return None
    return [str(line) for line in lines]


def check_filter(path: Path) -> str | None:
    """Why the word filter at ``path`` can't be used, or ``None``."""
    try:
        WordFilter.load(path)
    except WordFilterError as exc:
        return str(exc)
    return None

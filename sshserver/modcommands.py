"""The moderators' commands, the same at the server's console (``stacks moderate ...``)
and in the ssh menu's Moderate screen: a line of words in, a reply in words out.

Every command that changes something is written to the database with its audit entry
(`ratings.moderation`); the running server reads the new entries and acts on them (a
banned player's session is closed, a table is closed, a line is shown to everyone:
`sshserver.moderation`), whichever of the two places the command came from.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Collection
from dataclasses import dataclass

from ratings.moderation import ModerationStore, span_words
from ratings.store import DatabaseError, Refused

HELP = """\
who                               who is on, and at which table
mute NAME [FOR] [REASON...]       no chat from NAME (FOR: 30s, 10m, 2h, 3d; none: for good)
unmute NAME [REASON...]
rename NAME NEWNAME [REASON...]   an account whose name offends
ban NAME|SHA256:KEY [FOR] [REASON...]   refused at login ("this account is banned: ...")
unban NAME|SHA256:KEY [REASON...]
close TABLE [REASON...]           end a table the server holds, its game too
say TEXT...                       a line to everyone on the server
audit [N]                         the last N actions (who, what, when, why)
reports [all] [N]                 players' reports not handled yet (all: every one)
handled ID [REASON...]            a report dealt with
mutes                             the mutes and bans in force"""
CONSOLE_HELP = """\
moderator add|remove NAME         name an account a moderator (or no longer)"""

_SPAN = re.compile(r"^(\d+(?:\.\d+)?)([smhdw])$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
MAX_SPAN = 10 * 365 * 86400.0
MAX_SAY = 300


class CommandError(ValueError):
    """A command that can't be done as typed; the words say why."""


@dataclass(frozen=True)
class Context:
    """Who runs a command and what it may see of the running server."""

    by: str
    """The moderator's name, as the audit log keeps it (``console`` at the console)."""
    who: Callable[[], list[str]]
    """The lines of ``who``: the sessions on the server."""
    console: bool = False
    """At the server's console (it may name moderators)."""
    tables: Callable[[], Collection[str]] | None = None
    """The tables the server holds, when it can say (a ``close`` of another is refused)."""


def words_of(line: str) -> list[str]:
    """A typed line's words (quotes group them, as in a shell)."""
    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def span(word: str) -> float | None:
    """``10m`` → 600.0; ``None`` if ``word`` is not a span."""
    found = _SPAN.match(word)
    if found is None:
        return None
    return min(float(found.group(1)) * _UNITS[found.group(2).lower()], MAX_SPAN)


async def run_command(words: list[str], mods: ModerationStore,
                      ctx: Context) -> tuple[bool, str]:
    """Do one command: whether it was done, and the reply in words (why not, if not)."""
    try:
        return True, await _run(words, mods, ctx)
    except CommandError as exc:
        return False, f"{exc}"
    except Refused as exc:
        return False, f"refused: {exc}"
    except DatabaseError as exc:
        return False, f"the database can't be used now: {exc}"


async def _run(words: list[str], mods: ModerationStore, ctx: Context) -> str:
    if not words or words[0] in ("help", "?"):
        return HELP + ("\n" + CONSOLE_HELP if ctx.console else "")
    verb, rest = words[0].lower(), words[1:]
    if verb == "who":
        lines = ctx.who()
        return "\n".join(lines) if lines else "nobody is on the server"
    if verb in ("mute", "ban"):
        target = _needs(rest, 1, f"{verb} NAME [FOR] [REASON...]")[0]
        seconds = span(rest[1]) if len(rest) > 1 else None
        reason = " ".join(rest[2:] if seconds is not None else rest[1:])
        given = await mods.sanction(verb, target, ctx.by, reason, seconds)
        length = "for good" if seconds is None else f"for {span_words(seconds)}"
        return f"{given.target} is {verb}{'d' if verb == 'mute' else 'ned'} {length}" + \
            (f": {reason}" if reason else "")
    if verb in ("unmute", "unban"):
        target = _needs(rest, 1, f"{verb} NAME [REASON...]")[0]
        await mods.lift(verb[2:], target, ctx.by, " ".join(rest[1:]))
        return f"{target}: {verb[2:]} lifted"
    if verb == "rename":
        old, new = _needs(rest, 2, "rename NAME NEWNAME [REASON...]")[:2]
        account = await mods.rename(old, new, ctx.by, " ".join(rest[2:]))
        return f"{old} is now called {account.name}"
    if verb == "close":
        table = _needs(rest, 1, "close TABLE [REASON...]")[0]
        if ctx.tables is not None and table not in ctx.tables():
            raise CommandError(f"this server holds no table named {table!r}")
        await mods.log(ctx.by, "close", table, " ".join(rest[1:]))
        return f"table {table} is closed" + ("" if ctx.tables is not None else
                                              " (by the server, within seconds)")
    if verb == "say":
        text = " ".join(_needs(rest, 1, "say TEXT..."))[:MAX_SAY]
        await mods.log(ctx.by, "say", "everyone", "", text)
        return f"said to everyone: {text}"
    if verb == "audit":
        entries = await mods.audit(_count(rest, 20))
        return "\n".join(e.line() for e in entries) if entries else "nothing in the audit log"
    if verb == "reports":
        every = bool(rest) and rest[0].lower() == "all"
        reports = await mods.reports(_count(rest[1:] if every else rest, 20), handled=every)
        return "\n".join(r.words() for r in reports) if reports else "no reports waiting"
    if verb == "handled":
        number = _needs(rest, 1, "handled ID [REASON...]")[0].lstrip("#")
        if not number.isdigit():
            raise CommandError("handled ID: the report's number, as `reports` lists it")
        await mods.handle_report(int(number), ctx.by, " ".join(rest[1:]))
        return f"report #{number} handled"
    if verb == "mutes":
        live = await mods.in_force()
        return "\n".join(f"{s.kind} {s.target} {s.words()} (by {s.by}"
                         + (f": {s.reason})" if s.reason else ")") for s in live) \
            or "no mutes or bans in force"
    if verb in ("moderator", "moderators") and ctx.console:
        how, name = _needs(rest, 2, "moderator add|remove NAME")[:2]
        if how not in ("add", "remove"):
            raise CommandError("moderator add NAME, or moderator remove NAME")
        account = await mods.set_moderator(name, ctx.by, on=how == "add")
        return f"{account.name} is {'now' if how == 'add' else 'no longer'} a moderator"
    raise CommandError(f"unknown command {words[0]!r}: `help` lists them")


def _needs(rest: list[str], count: int, usage: str) -> list[str]:
    if len(rest) < count:
        raise CommandError(f"usage: {usage}")
    return rest


def _count(rest: list[str], default: int) -> int:
    if not rest:
        return default
    if not rest[0].isdigit() or not 0 < int(rest[0]) <= 1000:
        raise CommandError("a number of lines, 1-1000")
    return int(rest[0])

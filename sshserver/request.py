"""What an ssh connection asks for, and what its program runs as.

Decided without a connection (`sshserver.session` applies it): the request of an ssh
command line (the menu, or ``join``/``watch`` a table), the profile bound to a key, the
player name an ssh user name makes, and the command line and environment of the
session's ``stacks``.
"""

from __future__ import annotations

import hashlib
import re
import shlex
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

PROFILE_PREFIX = "ssh-"
MAX_NAME = 24
DEFAULT_TERM = "xterm-256color"

#: Variables of the server's own environment that describe the server's terminal or
#: session, not the player's (and the server's ssh agent is nobody else's business).
_ENV_DROP = frozenset({
    "TMUX", "TMUX_PANE", "STY", "WINDOW", "COLUMNS", "LINES", "COLORTERM", "TERM",
    "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "TERM_SESSION_ID", "WINDOWID", "KITTY_WINDOW_ID",
    "KITTY_PID", "VTE_VERSION", "WT_SESSION", "ITERM_SESSION_ID", "KONSOLE_VERSION",
    "SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY",
    "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
})
#: What a client may set in its session's environment (OpenSSH sends LANG and LC_*).
_ENV_FROM_CLIENT = frozenset({"LANG", "COLORTERM", "NO_COLOR"})
#: What such a value (and the terminal type) may look like: a name, not a path or a story.
_SAFE_ENV = re.compile(r"[A-Za-z0-9._+@-]{0,64}")
"""Used with ``fullmatch``: ``$`` would also take a value ending in a newline."""


# -- what a connection asks for ---------------------------------------------------------------


class RequestError(ValueError):
    """The remote command is not one this server runs; the message says what is."""


@dataclass(frozen=True)
class Request:
    """What the player asked for: the menu, or a table to join or watch."""

    kind: Literal["menu", "join", "watch"]
    table: str | None = None
    ask_password: bool = False
    """``join TABLE --password``: the interface asks for the table's password."""

    def describe(self) -> str:
        return self.kind if self.table is None else f"{self.kind} {self.table}"


def parse_request(command: str | None) -> Request:
    """The request of an ssh command line: nothing (menu), ``join [TABLE] [--password]``,
    ``watch TABLE``; a leading ``stacks`` is allowed. Raises `RequestError`."""
    from netplay.topics import check_table_name

    try:
        words = shlex.split(command or "")
    except ValueError as exc:
        raise RequestError(f"can't read the command {command!r}: {exc}") from None
    if words[:1] in (["stacks"], ["sequence-stacks"]):
        words = words[1:]
    if not words or words == ["menu"]:
        return Request("menu")
    verb, rest = words[0], words[1:]
    if verb not in ("join", "watch"):
        raise RequestError(f"{verb!r} is not something this server runs")
    ask_password = False
    if verb == "join" and "--password" in rest:
        rest = [word for word in rest if word != "--password"]
        ask_password = True
    if any(word.startswith("-") for word in rest) or len(rest) > 1:
        raise RequestError(f"{verb} takes a table name and nothing else: {command!r}")
    if not rest and verb == "watch":
        raise RequestError("watch needs a table name: watch TABLE")
    table = None
    if rest:
        try:
            table = check_table_name(rest[0])
        except ValueError as exc:
            raise RequestError(str(exc)) from None
    return Request("join" if verb == "join" else "watch", table, ask_password)


def profile_for_key(key_blob: bytes) -> str:
    """The profile bound to an ssh public key (its wire-format blob)."""
    return PROFILE_PREFIX + hashlib.sha256(key_blob).hexdigest()[:16]


def player_name(username: str) -> str:
    """The ssh user name as a player name: printable, trimmed, at most 24 characters."""
    text = "".join(
        ch for ch in username if not unicodedata.category(ch).startswith(("C", "Z")) or ch == " "
    )
    text = " ".join(text.split())[:MAX_NAME].strip()
    return text or "player"


def session_argv(
    command: Sequence[str], request: Request, *, name: str, profile: str, broker: str | None
) -> list[str]:
    """The command line of one connection's ``stacks``."""
    if request.kind == "menu":
        argv = [*command, "--profile", profile, "--name", name]
        return argv + (["--broker", broker] if broker is not None else [])
    argv = [*command, request.kind]
    if request.table is not None:
        argv.append(request.table)
    if request.ask_password:
        argv.append("--password")
    argv += ["--profile", profile, "--name", name]
    if broker is not None:
        argv += ["--broker", broker]
    return argv


def session_env(
    base: Mapping[str, str], *, term: str | None, client: Mapping[str, str], user: str
) -> dict[str, str]:
    """The environment of one connection's program: the server's, minus what describes
    the server's own terminal, plus the client's terminal type and locale."""
    env = {key: value for key, value in base.items() if key not in _ENV_DROP}
    for key, value in client.items():
        if (key in _ENV_FROM_CLIENT or key.startswith("LC_")) and _SAFE_ENV.fullmatch(value):
            env[key] = value
    env["TERM"] = term if term and _SAFE_ENV.fullmatch(term) else DEFAULT_TERM
    env["STACKS_SSH_USER"] = user
    locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    if not re.search(r"utf-?8", locale, re.IGNORECASE):
        env.pop("LC_ALL", None)
        env["LC_CTYPE"] = "C.UTF-8"  # ssh clients are UTF-8 terminals; Textual needs it
    return env


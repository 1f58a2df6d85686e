"""``stacks serve``'s settings: what the parsed options make, and where the server keeps
its files."""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from sshserver.moderation import ModerationSettings
from sshserver.modoptions import moderation_settings
from sshserver.options import (
    DEFAULT_GRACE_S,
    DEFAULT_IDLE_MINUTES,
    DEFAULT_LOBBY_MINUTES,
    DEFAULT_MAX_SESSIONS,
    DEFAULT_SSH_PORT,
    DEFAULT_WEB_SPECTATORS,
    broker_list,
)
from sshserver.tables import KeeperSettings

AUTHORIZED_KEYS_FILE = "authorized_keys"


def config_dir() -> Path:
    """The stacks config directory (``STACKS_HOME`` overrides the platform's)."""
    from netplay.identity import profiles_dir

    return profiles_dir().parent


def default_command() -> tuple[str, ...]:
    return (sys.executable, "-m", "stacks.cli")


def entry_command(entry: str) -> tuple[str, ...]:
    """The command line that runs ``entry`` (``MODULE:FUNCTION``) as a program of its own:
    a session's when it can't be forked (`sshserver.zygote` ``--run``)."""
    return (sys.executable, "-m", "sshserver.zygote", "--run", entry)


#: What `default_command` runs, as the fork server's entry (`sshserver.zygote`).
DEFAULT_ENTRY = "stacks.cli:main"
#: What the fork server imports for `DEFAULT_ENTRY`: its packages (every module) and the
#: modules it imports only when it runs.
PRELOAD = ("tui", "netplay", "engine", "stacks.commands.ui", "textual.scrollbar")
#: What the fork server does once before its first fork (`sshserver.warm`).
DEFAULT_WARM = "sshserver.warm:menu"


@dataclass(frozen=True)
class ServeSettings:
    bind: str = "0.0.0.0"
    port: int = DEFAULT_SSH_PORT
    broker: str | None = None
    brokers: tuple[str, ...] = ()
    """Every ``--broker`` given, in order (``broker`` is the first): the server uses the
    first that answers."""
    node: str | None = None
    """This server's name in a community of several (``--node``); ``None``: on its own."""
    open: bool = False
    authorized_keys: Path | None = None
    """``None``: ``authorized_keys`` in the config dir (unless ``open``)."""
    idle_timeout: float = DEFAULT_IDLE_MINUTES * 60
    """Seconds without a key press before a session is hung up; 0: never."""
    grace: float = DEFAULT_GRACE_S
    """Seconds between SIGHUP and SIGKILL."""
    max_sessions: int = DEFAULT_MAX_SESSIONS
    command: tuple[str, ...] = field(default_factory=default_command)
    config: Path | None = None
    """``None``: `config_dir()`."""
    public_host: str | None = None
    """The host name players reach the server by, for the join commands shown to them;
    ``None``: the address each connection came to."""
    tables: KeeperSettings = field(default_factory=KeeperSettings)
    """When the tables opened from the menu end (`sshserver.tables`)."""
    database: str | None = None
    """Where finished held tables and ratings are stored; ``None``: SQLite in the data
    directory."""
    web_port: int | None = None
    """Also serve the held tables' web page (`webserver`) on this port; ``None``: no page."""
    web_bind: str = "127.0.0.1"
    web_max_spectators: int = DEFAULT_WEB_SPECTATORS
    metrics_port: int | None = None
    """Serve the metrics and the health check (`sshserver.health`) on this port;
    ``None``: not at all."""
    metrics_bind: str = "127.0.0.1"
    log_format: str = "text"
    """``text`` (lines for a person) or ``json`` (one object a line, `sshserver.logformat`)."""
    moderation: ModerationSettings = field(default_factory=ModerationSettings)
    """Moderators, the chat's word filter, the abandonment limit
    (`sshserver.moderation`)."""
    fork: bool = True
    """Fork each session's ``stacks`` from a warm, pre-imported fork server
    (`sshserver.zygote`) instead of starting a new interpreter; only for the default
    command (``--session-command`` is always spawned) and ``entry``."""
    entry: str | None = None
    """``--session-entry MODULE:FUNCTION``: what each connection runs in place of
    ``stacks`` (`entry_command`), forked from the fork server when it can."""

    @property
    def fork_entry(self) -> str | None:
        """The fork server's entry for the sessions' program (``None``: spawn them)."""
        if not self.fork:
            return None
        if self.entry is not None:
            return self.entry
        return DEFAULT_ENTRY if self.command == default_command() else None

    @property
    def config_path(self) -> Path:
        return self.config or config_dir()

    @property
    def keys_path(self) -> Path:
        return self.authorized_keys or self.config_path / AUTHORIZED_KEYS_FILE


class ServeError(Exception):
    """The server can't start; the message says why and what to do."""


def settings_from(args: argparse.Namespace) -> ServeSettings:
    command = default_command()
    entry = getattr(args, "session_entry", None)
    if getattr(args, "session_command", None):
        command = tuple(shlex.split(args.session_command))
    elif entry:
        command = entry_command(entry)
    keys = getattr(args, "authorized_keys", None)
    given = args.broker
    brokers = broker_list([given] if isinstance(given, str) else given)
    return ServeSettings(
        bind=args.bind, port=args.ssh_port, broker=brokers[0] if brokers else None,
        brokers=brokers, node=getattr(args, "node", None), open=args.open,
        authorized_keys=Path(keys).expanduser() if keys else None,
        idle_timeout=args.idle_timeout * 60, max_sessions=args.max_sessions, command=command,
        public_host=getattr(args, "public_host", None),
        tables=KeeperSettings(
            lobby_timeout=getattr(args, "lobby_timeout", DEFAULT_LOBBY_MINUTES) * 60,
            engines=tuple(dict(getattr(args, "engine", None) or []).items()),
            engine_budget=getattr(args, "engine_budget", 2.0)),
        database=getattr(args, "database", None),
        web_port=getattr(args, "web_port", None),
        web_bind=getattr(args, "web_bind", "127.0.0.1"),
        web_max_spectators=getattr(args, "web_max_spectators", DEFAULT_WEB_SPECTATORS),
        metrics_port=getattr(args, "metrics_port", None),
        metrics_bind=getattr(args, "metrics_bind", "127.0.0.1"),
        log_format=getattr(args, "log_format", "text"),
        fork=not getattr(args, "no_fork", False),
        entry=entry if entry and not getattr(args, "session_command", None) else None,
        moderation=moderation_settings(args),
    )

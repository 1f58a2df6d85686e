"""``stacks serve``'s options: the command-line side of the built-in ssh server
(``sshserver.server``).

Only argparse lives here, so that building the ``stacks`` parser never imports asyncssh.
"""

from __future__ import annotations

import argparse

from sshserver.modoptions import add_moderation_arguments

DEFAULT_SSH_PORT = 2222
DEFAULT_IDLE_MINUTES = 30.0
DEFAULT_GRACE_S = 3.0
DEFAULT_MAX_SESSIONS = 64
DEFAULT_LOBBY_MINUTES = 10.0
DEFAULT_WEB_SPECTATORS = 500


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 (a free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0-65535, not {value}")
    return value


def minutes(text: str) -> float:
    """An argparse type: a number of minutes, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes") from None
    if value < 0 or value != value:  # NaN compares false with everything
        raise argparse.ArgumentTypeError("minutes can't be negative")
    return value


def node_name(text: str) -> str:
    """An argparse type: a node's name, 1-64 letters, digits, '.', '_' or '-'."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", text):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a node's name is 1-64 letters, digits, '.', '_' or '-'")
    return text


def broker_list(values: list[str] | None) -> tuple[str, ...]:
    """The ``--broker`` options as given (each may be a comma-separated list), in order."""
    found: list[str] = []
    for value in values or ():
        found.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(found)


def _sessions(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_serve_arguments(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the ``serve`` command to the ``stacks`` subcommands."""
    serve = commands.add_parser(
        "serve",
        help="let players in over ssh: each connection gets its own game interface",
        description="A built-in ssh server: `ssh -p PORT NAME@this-host` opens the main menu "
        "as player NAME; `ssh -t -p PORT NAME@this-host join TABLE` (or `watch TABLE`) goes "
        "straight to a table. Each connection runs its own `stacks` in its own terminal. A "
        "table opened from the menu is held by the server: every player, its creator too, "
        "may drop and come back. A player's seat belongs to their ssh key: reconnecting "
        "with it takes the seat back. "
        "Only public keys are accepted, never passwords. See docs/remote.md.",
    )
    serve.add_argument("--ssh-port", type=port_number, default=DEFAULT_SSH_PORT,
                       help=f"port to listen on ({DEFAULT_SSH_PORT}; 0 picks a free one)")
    serve.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                       help="address to listen on (0.0.0.0: every interface; 127.0.0.1: "
                       "this machine only)")
    serve.add_argument("--broker", metavar="URL", action="append",
                       help="the broker the players' `join TABLE` and `watch TABLE` use "
                       "(default: mqtt://127.0.0.1:1883, a broker on this machine); give it "
                       "again, or a comma-separated list, for the nodes of a broker cluster: "
                       "the server uses the first that answers")
    serve.add_argument("--engine", action="append", default=[], type=_engine,
                       metavar="NAME=COMMAND",
                       help="register a program that plays through the engine protocol "
                       "(docs/engine-protocol.md): a table's creator may pick it as an "
                       "opponent in the host form; repeatable")
    serve.add_argument("--engine-budget", type=float, default=2.0, metavar="SECONDS",
                       help="seconds a registered engine has per decision before the "
                       "stand-in plays it (2)")
    serve.add_argument("--node", metavar="NAME", type=node_name,
                       help="run as node NAME of a community of several servers sharing "
                       "--database (PostgreSQL) and --broker: every node lists and hosts "
                       "every table, and a node's tables move to the others when it dies or "
                       "stops (see docs/cluster.md); without it, one server on its own")
    serve.add_argument("--database", metavar="URL",
                       help="where finished games, ratings and accounts are stored: "
                       "sqlite:///PATH or postgresql://USER@HOST/DB (default: SQLite in the "
                       "server's data directory); see docs/deploy.md")
    who = serve.add_mutually_exclusive_group()
    who.add_argument("--authorized-keys", metavar="FILE",
                     help="public keys allowed in, one per line as in ~/.ssh/authorized_keys "
                     "(default: authorized_keys in the stacks config directory); the keys "
                     "players add to their accounts log in too")
    who.add_argument("--open", action="store_true",
                     help="let any ssh key in (a LAN party); passwords are still never asked")
    serve.add_argument("--idle-timeout", type=minutes, default=DEFAULT_IDLE_MINUTES,
                       metavar="MINUTES",
                       help=f"hang up a player who pressed no key for this long, counted "
                       f"from the first screen the game drew ({DEFAULT_IDLE_MINUTES:g}; "
                       f"0: never)")
    serve.add_argument("--max-sessions", type=_sessions, default=DEFAULT_MAX_SESSIONS,
                       help=f"connections served at once; more are turned away "
                       f"({DEFAULT_MAX_SESSIONS})")
    serve.add_argument("--public-host", metavar="HOST",
                       help="the host name players reach this server by, shown in the "
                       "`ssh ... join TABLE` line of a lobby (default: the address each "
                       "player connected to)")
    serve.add_argument("--lobby-timeout", type=minutes, default=DEFAULT_LOBBY_MINUTES,
                       metavar="MINUTES",
                       help="close a table opened from the menu when nobody has sat in its "
                       f"lobby for this long ({DEFAULT_LOBBY_MINUTES:g})")
    serve.add_argument("--web-port", type=port_number, metavar="PORT",
                       help="also serve a web page of the tables this server holds on this "
                       "port, each watched in the browser as a spectator, as `stacks web` "
                       "does, with the leaderboards, players' pages and finished games "
                       "(replays) of its database and a JSON API under /api/ (default: no "
                       "web page; 0 picks a free port)")
    serve.add_argument("--web-bind", default="127.0.0.1", metavar="ADDR",
                       help="address of the web page (127.0.0.1: put a TLS reverse proxy in "
                       "front, docs/deploy.md)")
    serve.add_argument("--web-max-spectators", type=_sessions, default=DEFAULT_WEB_SPECTATORS,
                       metavar="N",
                       help="browser spectators at once (one program per watched table, "
                       "drawn once for all its visitors); more are told the page is full "
                       f"({DEFAULT_WEB_SPECTATORS}); --idle-timeout closes idle ones")
    serve.add_argument("--metrics-port", type=port_number, metavar="PORT",
                       help="serve Prometheus metrics on /metrics and a health check on "
                       "/healthz on this port (default: none; 0 picks a free port); see "
                       "docs/operations.md")
    serve.add_argument("--metrics-bind", default="127.0.0.1", metavar="ADDR",
                       help="address of the metrics and health check (127.0.0.1: this "
                       "machine only)")
    serve.add_argument("--log-format", choices=("text", "json"), default="text",
                       help="the server's log: text lines (default) or one JSON object a "
                       "line on standard output, for log shippers")
    serve.add_argument("--no-fork", action="store_true",
                       help="start each connection's `stacks` as a new interpreter instead "
                       "of forking it from a warm, pre-imported one (slower to its first "
                       "frame, more memory a session; see docs/deploy.md)")
    add_moderation_arguments(serve)
    serve.add_argument("--session-command", metavar="COMMAND",
                       help="the program each connection runs, in place of this `stacks` "
                       "(split like a shell would; for tests and wrappers)")
    serve.add_argument("--session-entry", metavar="MODULE:FUNCTION",
                       help="each connection runs FUNCTION(ARGS) of MODULE, forked from "
                       "the fork server like this `stacks` (MODULE imported once), in "
                       "place of this `stacks` (for tests and wrappers)")


def _engine(text: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=COMMAND`` as (name, command line); the words of what is wrong otherwise."""
    import shlex

    name, sep, command = text.partition("=")
    name = name.strip()
    if not sep or not name or not name.replace("-", "").replace("_", "").isalnum():
        raise argparse.ArgumentTypeError(
            f"an engine is NAME=COMMAND, as in mine='python3 mybot.py'; not {text!r}")
    try:
        words = tuple(shlex.split(command))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"engine {name}: {exc}") from None
    if not words:
        raise argparse.ArgumentTypeError(f"engine {name}: the command is empty")
    return name, words

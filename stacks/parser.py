"""The ``stacks`` command line's parser: every command, its arguments and their help.

This module imports at its top only what the main menu's start needs (``stacks`` alone,
with its own options at most: parsed by :func:`menu_args` without building the commands'
parser); :func:`build_parser` and the functions that add the commands import what their
arguments need (the bots' levels, the benchmarks', the ssh and web servers' options), and
the ``broker`` command's options are added only when it runs. docs/architecture.md,
"Start-up", says why. What runs a command is in :mod:`stacks.cli`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from stacks.argtypes import (
    bot_level,
    bot_list,
    broker_url,
    budget,
    clock_seconds,
    host_bots,
    name_list,
    pinned_table,
    positive_int,
    positive_seconds,
    sim_players,
    stacks_players,
    table_name,
    window_seconds,
)
from stacks.rules_args import rule_assignment
from tui.launch import DEFAULT_BROKER


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def _add_menu_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``stacks`` itself (the main menu's)."""
    parser.add_argument("--profile", dest="menu_profile", metavar="PROFILE",
                        help="player profile (identity) for the menu's games")
    parser.add_argument("--name", dest="menu_name", metavar="NAME",
                        help="your name at the menu's tables (default: your user name)")
    parser.add_argument("--broker", dest="menu_broker", metavar="URL", type=broker_url,
                        help="broker for the menu's host, join and watch (default: the "
                        "embedded broker to host, mqtt://127.0.0.1:1883 to join)")
    parser.add_argument("--version", action=_Version,
                        help="show program's version number and exit")


def menu_args(words: Sequence[str]) -> argparse.Namespace | None:
    """``words`` parsed as the main menu's (no command, no help asked, the menu's options
    well formed), without building the commands' parser; else ``None``: the full parser
    reads the line (and says what is wrong with it)."""
    parser = argparse.ArgumentParser(prog="stacks", add_help=False, exit_on_error=False)
    _add_menu_options(parser)
    try:
        args, rest = parser.parse_known_args(words)
    except argparse.ArgumentError:
        return None
    if rest:
        return None
    args.command = None
    return args


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; ``command`` (the first word given) lets it skip costly imports."""
    from engine.bots import DEFAULT_BUDGET, LEVELS
    from sshserver.options import add_serve_arguments
    from stacks.bench.catchup import add_bench_catchup_arguments
    from stacks.bench.cluster.command import add_bench_cluster_arguments
    from stacks.bench.load import add_bench_load_arguments
    from stacks.bench.ssh import add_bench_ssh_arguments
    from stacks.bench.web import add_bench_web_arguments
    from stacks.commands.replay import add_replay_arguments
    from stacks.commands.web import add_web_arguments

    parser = argparse.ArgumentParser(
        prog="stacks",
        description="Sequence Stacks in the terminal. Without a command: the main menu.",
    )
    _add_menu_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = commands.add_parser(
        "simulate",
        help="play headless games between bots and summarise them",
        description="Play N headless games between bots, checking the rules' invariants "
        "after every event, and print a summary.",
    )
    sim.add_argument("--games", type=positive_int, default=100, help="games to play (100)")
    sim.add_argument("--game", choices=("stacks", "sequence"), default="stacks",
                     help="stacks (Sequence Stacks, default) or sequence (classic Sequence)")
    sim.add_argument("--players", type=sim_players, default=4,
                     help="players per game (4): 2-6 for stacks; 2, 3, 4, 6, 8, 9, 10 or 12 "
                     "for sequence")
    sim.add_argument("--teams", type=int, choices=(2, 3), default=None,
                     help="sequence: the number of sides; 2 and 3 players play alone "
                     "(--teams 2 or 3 = the player count), 4, 8 and 10 in 2 teams, 9 in 3, "
                     "6 and 12 in 2 (default) or 3")
    sim.add_argument(
        "--bots",
        type=name_list,
        default=None,
        help="bot per seat, comma separated and cycled over the seats (stacks: "
        f"{', '.join(LEVELS)} or random, default medium; sequence: random, easy, medium, "
        "default medium)",
    )
    sim.add_argument("--seed", type=int, default=0, help="seed; the same seed gives the same games")
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    checks = sim.add_mutually_exclusive_group()
    checks.add_argument(
        "--checks",
        dest="no_checks",
        action="store_false",
        default=False,
        help="check the invariants after every event and every view's hash (the default)",
    )
    checks.add_argument(
        "--no-checks",
        action="store_true",
        help="skip the per-event invariant checks (faster; invariant_violations is then 0)",
    )

    tour = commands.add_parser(
        "tournament",
        help="bots against bots, seats rotated: win rates and time per decision",
        description="A round robin between bots with the seats rotated: with as many "
        "bots as players, that line-up; with more, every choice of PLAYERS of them; with "
        "fewer, the names cycled over the seats. Prints each bot's win rate with a 95% "
        "Wilson interval and its time per decision (mean and max), and the wins by seat "
        "with 99% intervals. A bot's 'games' count its seats: hard against three medium "
        "gives medium 3 games per game.",
    )
    tour.add_argument("--games", type=positive_int, default=100, help="games to play (100)")
    tour.add_argument("--players", type=stacks_players, default=2, help="players per game, 2-6 (2)")
    tour.add_argument("--game", choices=("stacks", "sequence"), default="stacks",
                      help="stacks (default) or sequence (classic Sequence, 2 or 3 players)")
    tour.add_argument("--bots", type=name_list, default=None,
                      help=f"the bots, comma separated ({', '.join(LEVELS)}; hard,medium; "
                      "for sequence: random, easy, medium; medium,easy)")
    tour.add_argument("--budget", type=budget, default=DEFAULT_BUDGET,
                      help=f"seconds per decision of a hard bot ({DEFAULT_BUDGET})")
    tour.add_argument("--iterations", type=positive_int, default=None,
                      help="search iterations per hard decision instead of a time budget "
                      "(the same seed then gives the same games)")
    tour.add_argument("--seed", type=int, default=0,
                      help="seed of the deals and of the bots (0)")
    tour.add_argument("--jobs", type=positive_int, default=1,
                      help="worker processes (1); each plays whole games")
    tour.add_argument("--json", action="store_true",
                      help="one JSON object: per bot its games, wins, win_rate, ci95 and "
                      "times; per seat its wins")
    _add_engine_arguments(tour, "a program that plays through the engine protocol "
                          "(docs/engine-protocol.md), in the line-up under NAME: "
                          "--engine mine='python3 mybot.py' --bots medium,hard; repeatable")

    _add_ui_commands(commands)
    _add_net_commands(commands, command)
    add_serve_arguments(commands)
    add_web_arguments(commands)
    add_replay_arguments(commands)

    completion = commands.add_parser(
        "completion", help="print a shell completion script for stacks (bash, zsh, fish)",
        description="Print the completion script of `stacks` for a shell, made from this "
        "parser (shtab). Install it once, e.g.: stacks completion bash > "
        "~/.local/share/bash-completion/completions/stacks (README.md names the zsh and "
        "fish places).",
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"))

    bench = commands.add_parser("bench", help="measure speed", description="Benchmarks.")
    targets = bench.add_subparsers(dest="target", metavar="TARGET", required=True)
    engine_bench = targets.add_parser(
        "engine",
        help="engine steps/s and games/s",
        description="Steps/s and games/s of random and greedy self-play at 2, 4 and 6 "
        "players, on one core, invariant checks off.",
    )
    engine_bench.add_argument("--json", action="store_true", help="print one JSON object")
    engine_bench.add_argument(
        "--seconds", type=float, default=2.0, help="time per measurement (2.0)"
    )
    net_bench = targets.add_parser(
        "net",
        help="action -> own view updated, over a real broker",
        description="Latency from sending an action to the player's own view showing its "
        "result (p50/p99), with the host in its own process.",
    )
    net_bench.add_argument(
        "--broker", default="embedded",
        help="embedded, mosquitto (started on a free port) or a URL (embedded)",
    )
    net_bench.add_argument("--actions", type=positive_int, default=3000,
                           help="actions to measure (3000)")
    net_bench.add_argument("--json", action="store_true", help="print one JSON object")
    add_bench_ssh_arguments(targets)
    add_bench_web_arguments(targets)
    hostile = targets.add_parser(
        "hostile", help="a live table on its own Mosquitto under a rogue peer's flood",
        description="Play a game on a Mosquitto of its own without attack, then with a "
        "rogue process flooding the table, then with malformed nonces on the listing query, "
        "and hijack the table's announcement: game duration, the longest gap between public "
        "batches, the host's link losses under the listing attack, and the time the host "
        "takes to restore its announcement.",
    )
    hostile.add_argument("--messages", type=positive_int, default=5000,
                         help="flood size (5000)")
    hostile.add_argument("--kind", default="mixed",
                         choices=("heartbeat", "resync", "join", "chat", "garbage", "mixed",
                                  "keys", "listing"),
                         help="what the rogue floods with (mixed: heartbeats, resyncs, "
                         "joins and garbage in turn; keys: fresh keys join as spectators, "
                         "then each sends a heartbeat at 0 and a resync; listing: malformed "
                         "nonces on the listing query)")
    hostile.add_argument("--keys", type=int, default=5000,
                         help="a third game: this many fresh keys join as spectators and "
                         "each asks for the history twice (5000; 0: no such game)")
    hostile.add_argument("--listing", type=int, default=2000,
                         help="a game under the listing attack: this many malformed nonces "
                         "on the listing query (2000; 0: no such game), its host's link "
                         "losses counted")
    hostile.add_argument("--hijacks", type=positive_int, default=10,
                         help="hijacks to time (10)")
    hostile.add_argument("--json", action="store_true", help="print one JSON object")
    resume_bench = targets.add_parser(
        "resume",
        help="host killed, then `stacks host --resume` to the first new batch",
        description="Kill a host (SIGKILL) mid-game and time `stacks host --resume` until a "
        "peer applies the first new batch; also one journal append + fsync per batch.",
    )
    resume_bench.add_argument(
        "--broker", choices=("embedded", "mosquitto"), default="mosquitto",
        help="broker in its own process (mosquitto)",
    )
    resume_bench.add_argument("--rounds", type=positive_int, default=5,
                              help="host kills to time (5)")
    resume_bench.add_argument("--kill-at", type=positive_int, default=20,
                              help="batch at which the host is killed (20)")
    resume_bench.add_argument("--appends", type=positive_int, default=500,
                              help="journal appends to time (500)")
    resume_bench.add_argument("--json", action="store_true", help="print one JSON object")
    offline_bench = targets.add_parser(
        "offline",
        help="host killed or frozen, to \"host offline\" shown by a player and a spectator",
        description="On a Mosquitto it starts, kill -9 (and, apart, SIGSTOP) a host "
        "mid-game and time until a seated player's session and a `stacks watch "
        "--headless` process say the host is offline.",
    )
    offline_bench.add_argument("--rounds", type=positive_int, default=3,
                               help="rounds per fault (3)")
    offline_bench.add_argument("--json", action="store_true", help="print one JSON object")
    add_bench_load_arguments(targets)
    add_bench_catchup_arguments(targets)
    add_bench_cluster_arguments(targets)
    ui_bench = targets.add_parser(
        "ui",
        help="interface speed: cold start, key to repaint, idle CPU",
        description="Cold start of `stacks` to its first frame (in a pseudo-terminal), "
        "beside a minimal Textual app started alternately in the same run (their ratio: "
        "target 1.5x), key press to repainted table (against bots), and CPU use while idle.",
    )
    ui_bench.add_argument("--json", action="store_true", help="print one JSON object")
    ui_bench.add_argument("--starts", type=positive_int, default=5,
                          help="cold starts to time, of each program (5)")
    ui_bench.add_argument("--keys", type=positive_int, default=200,
                          help="key presses to time (200)")
    _list_last(commands, ("simulate", "tournament", "completion", "bench"))
    return parser


def command_parser_of(parser: argparse.ArgumentParser, command: str | None,
                    ) -> argparse.ArgumentParser:
    """The parser of ``command`` (the top one without a command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            found: argparse.ArgumentParser = action.choices[command]
            return found
    return parser


def _list_last(commands: argparse._SubParsersAction, names: tuple[str, ...]) -> None:  # type: ignore[type-arg]
    """List ``names`` last in ``--help`` (in that order): playing comes first, the tools
    for bots and benchmarks after (argparse lists commands in the order they were added)."""
    listed = commands._choices_actions
    listed.sort(key=lambda action: names.index(action.dest) + 1 if action.dest in names else 0)


def _add_engine_arguments(parser: argparse.ArgumentParser, what: str, *,
                          named: bool = True) -> None:
    """``--engine`` and the budget and restarts of the programs it names."""
    from netplay.engines import DEFAULT_BUDGET as ENGINE_BUDGET
    from netplay.engines import DEFAULT_RESTARTS

    parser.add_argument("--engine", action="append", default=[],
                        metavar="NAME=COMMAND" if named else "COMMAND", help=what)
    parser.add_argument("--engine-budget", type=positive_seconds, default=ENGINE_BUDGET,
                        metavar="SECONDS",
                        help=f"seconds an engine has per decision before the stand-in "
                        f"plays it ({ENGINE_BUDGET:g})")
    parser.add_argument("--engine-restarts", type=int, default=DEFAULT_RESTARTS,
                        metavar="N", help="times a crashed engine is started again before "
                        f"the stand-in plays on for it ({DEFAULT_RESTARTS})")


def _add_rule_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rule", type=rule_assignment, action="append", metavar="NAME=VALUE",
        help="a house rule, repeatable, as the lobby's host form offers them: a whole "
        "number, yes/no, an option's name or none (e.g. --rule win_chips=7 --rule "
        "two_player_deck=full); a wrong name lists the game's rules")


def _add_ui_commands(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from engine.bots import LEVELS

    play = commands.add_parser(
        "play", help="play against bots, right now",
        description="Straight into a game against bots (medium unless --bots says), on a "
        "broker inside this "
        "process: nothing to set up.",
    )
    play.add_argument("--game", choices=("stacks", "sequence"), default="stacks",
                      help="stacks (Sequence Stacks, default) or sequence (classic Sequence, "
                      "the board game)")
    play.add_argument("--players", type=sim_players, default=4,
                      help="players, you included (4): 2-6 for stacks; 2, 3, 4, 6, 8, 9, 10 "
                      "or 12 for sequence")
    play.add_argument("--teams", type=int, choices=(2, 3), default=None,
                      help="sequence at 6 or 12 players: 2 or 3 teams (default 2)")
    play.add_argument("--choose-sequences", action="store_true",
                      help="sequence: a chip that completes a longer run lets its player "
                      "choose which five make the sequence (default: the rules' choice)")
    play.add_argument("--bots", type=bot_list, default=["medium"], metavar="LEVELS",
                      help="the bots' levels, comma separated and cycled over their seats: "
                      f"{', '.join(LEVELS)} (medium)")
    _add_engine_arguments(play, "play against a program of yours too: it takes a bot's seat "
                          "and plays through the engine protocol (docs/engine-protocol.md), "
                          "as in --engine 'python3 mybot.py'; repeatable", named=False)
    play.add_argument("--seed", type=int, help="the same seed deals the same game")
    play.add_argument("--bot-delay", type=float, default=0.6,
                      help="seconds a bot waits before each move (0.6)")
    play.add_argument("--block-window", type=window_seconds, default=3.0,
                      help="seconds to Block a completed pile (3)")
    _add_rule_argument(play)
    _add_ui_common(play)
    _add_plain(play)

    join = commands.add_parser(
        "join", help="join a table someone hosts",
        description="Join a table. Without TABLE (or with --password and no value) a form "
        "asks for what is missing.",
    )
    join.add_argument("table", type=pinned_table, nargs="?",
                      help="table name, or TABLE@FINGERPRINT to follow only that host")
    join.add_argument("--broker", default=DEFAULT_BROKER, metavar="URL", type=broker_url,
                      help=f"mqtt://host[:port] ({DEFAULT_BROKER})")
    join.add_argument("--password", nargs="?", const="",
                      help="table password; without a value the interface asks for it")
    _add_ui_common(join)
    _add_plain(join)
    _add_bell(join)

    learn = commands.add_parser(
        "learn", help="a first game that teaches",
        description="A short scripted game against Tutor, a bot: a number card, a pile "
        "completion, a Block, Skip and Reverse, Steal a Card and Steal a Chip, each "
        "explained on the table where it happens. Ends with the main menu.",
    )
    _add_ui_common(learn)


def _add_bell(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-bell", action="store_true",
        help="no bell (nor desktop notification) when the table turns to you, for this "
        "run; the menu's Bell entry turns it off for good")


def _add_ui_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--name", help="your name at the table (default: your user name)")
    parser.add_argument("--profile", help="player profile (identity) to use; created if new")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="log protocol details to the log file")


def _add_plain(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--plain", action="store_true",
        help="no screen to draw: the game as numbered lines of words, and typed commands "
        "(play 3 on a, discard 2, block, pass; help lists them); for screen readers and "
        "slow links")


def _add_common_peer(parser: argparse.ArgumentParser, *, broker_default: str | None) -> None:
    parser.add_argument(
        "--broker",
        type=broker_url,
        default=broker_default,
        metavar="URL",
        help="mqtt://[user[:password]@]host[:port] or mqtts://..."
        + (f" ({broker_default})" if broker_default else ""),
    )
    parser.add_argument("--profile", help="player profile (identity) to use; created if new")
    parser.add_argument("--verbose", "-v", action="store_true", help="log protocol details")


def _add_host_timeout(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host-timeout", type=positive_seconds, default=None, metavar="SECONDS",
        help="headless: give up (exit 4) when the host has been offline, or the table "
        "unannounced, this long (default: a day for a host gone, since it can come back "
        "with --resume; 120 for a table never announced); a closed table exits 3")


_PEER_EXITS = (
    "Exit status: 0 the game ended and the deal verified; 1 refused, the deal did not "
    "verify, or no broker; 2 the profile can't be used; 3 the host closed the table; 4 the "
    "host was gone (or the table unannounced) longer than --host-timeout; 5 two hosts claim "
    "the table given without a pin (it follows neither and lists TABLE@FINGERPRINT for "
    "each: ask your host which is theirs); 130 interrupted."
)
"""The exit statuses of a headless ``stacks bot`` or ``stacks watch`` (stacks/commands/peer.py)."""


def _add_net_commands(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    command: str | None,
) -> None:
    from engine.bots import LEVELS

    host = commands.add_parser(
        "host", help="host a table",
        description="Host a table: the host holds the deck, orders events and arbitrates "
        "the Block race. Without --broker it starts the embedded MQTT broker. With the "
        "interface you also sit at the table (seat 1).",
    )
    host.add_argument("--headless", action="store_true", help="no interface: print progress")
    host.add_argument("--name", help="your name at the table (interface only)")
    _add_bell(host)
    host.add_argument("--game", choices=("stacks", "sequence"), default="stacks",
                      help="stacks (Sequence Stacks, default) or sequence (classic Sequence, "
                      "the board game)")
    host.add_argument("--players", type=sim_players, default=4,
                      help="seats at the table (4): 2-6 for stacks; 2, 3, 4, 6, 8, 9, 10 or "
                      "12 for sequence")
    host.add_argument("--teams", type=int, choices=(2, 3), default=None,
                      help="sequence at 6 or 12 players: 2 or 3 teams (default 2)")
    host.add_argument("--choose-sequences", action="store_true",
                      help="sequence: a chip that completes a longer run lets its player "
                      "choose which five make the sequence (default: the rules' choice)")
    _add_rule_argument(host)
    host.add_argument("--bots", type=host_bots, default=0, metavar="N|LEVELS",
                      help="seats played by the host's bots: a count, or their levels "
                      f"comma separated ({', '.join(LEVELS)}) (0)")
    _add_engine_arguments(host, "a seat played by a program of yours through the engine "
                          "protocol (docs/engine-protocol.md), as a peer of its own: "
                          "--engine mine='python3 mybot.py'; repeatable, one seat each")
    host.add_argument("--bot-strategy", default="medium", type=bot_level, metavar="LEVEL",
                      help=f"level of the host's bots when --bots is a count: {', '.join(LEVELS)}"
                      " (medium)")
    host.add_argument("--standin", default="medium", type=bot_level, metavar="LEVEL",
                      help="level of the bot that plays for a player who is away (medium)")
    host.add_argument("--bot-delay", type=float, default=None,
                      help="seconds a host bot waits before acting (0 headless, 0.6 with "
                      "the interface)")
    host.add_argument("--table", type=table_name, default="stacks", help="table name (stacks)")
    host.add_argument("--block-window", type=window_seconds, default=3.0,
                      help="seconds opponents have to Block a completed pile (3)")
    host.add_argument("--plain-window", type=window_seconds, default=None, metavar="SECONDS",
                      help="when a player in plain mode (a screen reader: join --plain) "
                      "takes a seat before the deal, make the Block window this long "
                      "(off by default)")
    host.add_argument("--turn-clock", type=clock_seconds, default=60.0, metavar="SECONDS",
                      help="seconds a player has for a turn before the stand-in bot plays "
                      "it; 0 turns the clock off (60)")
    host.add_argument("--spectator-delay", type=clock_seconds, default=0.0, metavar="SECONDS",
                      help="spectators see the game this many seconds late (0); after the "
                      "game the table stays up until they have seen its end; --headless: "
                      "Ctrl-C then says what it waits for, a second Ctrl-C closes now "
                      "(spectators get the rest at once)")
    host.add_argument("--seed", type=int,
                      help="make the host's secret reproducible (only for tables nobody "
                      "else joins: every seat a bot of the host; see --insecure-seed)")
    host.add_argument("--insecure-seed", action="store_true",
                      help="allow --seed at a table others join: the seed can be guessed from "
                      "the announced commitment in seconds, showing every hand and the deck")
    host.add_argument("--record", metavar="FILE", help="where to write the game record")
    host.add_argument("--password", help="table password (joining requires it)")
    host.add_argument("--bind", default="0.0.0.0",
                      help="address of the embedded broker (0.0.0.0)")
    host.add_argument("--port", type=int, default=1883, help="port of the embedded broker (1883)")
    host.add_argument("--no-advertise", action="store_true",
                      help="don't announce the broker on the LAN (mDNS)")
    host.add_argument("--broker-impl", choices=("embedded", "mosquitto"), default="embedded",
                      help="which broker to start when --broker is not given: the embedded "
                      "one, or a local Mosquitto with the shipped LAN config (embedded)")
    host.add_argument("--verify-wait", type=float, default=5.0,
                      help="seconds to wait for the players' verification at the end (5)")
    host.add_argument("--resume", type=table_name, metavar="TABLE",
                      help="bring back this table's unfinished game from its journal (same "
                      "host key, commitment and seats; the other settings are the journal's)")
    host.add_argument("--new", action="store_true",
                      help="abandon an unfinished game of the same table name and start anew")
    _add_common_peer(host, broker_default=None)

    bot = commands.add_parser(
        "bot", help="a bot that joins a table and plays to the end",
        description="A bot that joins a table and plays to the end. " + _PEER_EXITS,
    )
    bot.add_argument("table", type=pinned_table,
                     help="table name, or TABLE@FINGERPRINT to follow only that host")
    bot.add_argument("--strategy", default="medium", type=bot_level, metavar="LEVEL",
                     help=f"{', '.join(LEVELS)} (medium)")
    bot.add_argument("--name", help="the bot's name at the table")
    bot.add_argument("--password", help="table password")
    bot.add_argument("--think", type=float, default=0.0, help="seconds before each move (0)")
    _add_engine_arguments(bot, "a program of yours plays instead of our bot, through the "
                          "engine protocol (docs/engine-protocol.md): --engine 'python3 "
                          "mybot.py'; its own profile is engine-NAME", named=False)
    _add_host_timeout(bot)
    _add_common_peer(bot, broker_default=DEFAULT_BROKER)

    watch = commands.add_parser(
        "watch", help="watch a table as a spectator",
        description="Follow a table's game as a spectator: every public event as it "
        "happens (no hand but what is face up), chat included. --headless prints one JSON "
        "line per event instead of the interface. Headless, " + _PEER_EXITS[0].lower()
        + _PEER_EXITS[1:],
    )
    watch.add_argument("table", type=pinned_table,
                       help="table name, or TABLE@FINGERPRINT to follow only that host")
    watch.add_argument("--headless", action="store_true",
                       help="print one JSON line per public event")
    watch.add_argument("--name", help="your name as a spectator")
    watch.add_argument("--kiosk", action="store_true",
                       help="the interface shows this table only: no menu, no chat, and "
                       "leaving the table quits (what a `stacks web` visitor gets)")
    _add_plain(watch)
    _add_host_timeout(watch)
    _add_common_peer(watch, broker_default=DEFAULT_BROKER)

    profile = commands.add_parser(
        "profile", help="show a player profile's identity (created if new)",
        description="Show where a profile's key lives and its peer id: the MQTT user name "
        "to register for it on a broker with a password file (docs/deploy.md).",
    )
    profile.add_argument("name", help="profile name")

    tables = commands.add_parser(
        "tables", help="list the tables on the LAN or on a broker",
        description="Find brokers on the LAN (mDNS) and list the tables they carry, or list "
        "the tables of one broker with --broker. A table is shown with its host's "
        "fingerprint (join TABLE@FINGERPRINT to follow only that host); one that two host "
        "keys claim is shown as 'TABLE — two hosts claim it: FP1, FP2': ask your host "
        "which is theirs.",
    )
    tables.add_argument("--broker", metavar="URL", type=broker_url,
                        help="ask this broker only")
    tables.add_argument("--timeout", type=float, default=2.0,
                        help="seconds to look for brokers and tables (2)")
    tables.add_argument("--json", action="store_true",
                        help="one JSON object per table; \"conflict\" lists the host "
                        "fingerprints when two hosts claim it (else [])")

    verify = commands.add_parser(
        "verify", help="re-check a game record offline",
        description="Replay a game record from its seed and check every event. Exit "
        "status: 0 verified; 1 the record does not check out (what failed is printed); "
        "2 the file can't be read or is not a game record.",
    )
    verify.add_argument("record", help="the record file written by the host")

    _add_ratings_command(commands)
    _add_moderate_command(commands)

    acl = commands.add_parser(
        "acl", help="print a Mosquitto ACL that confines each host to its own tables",
        description="Print the shipped Mosquitto ACL plus, per host, the rights to its own "
        "tables only (announce, events, inboxes, outboxes): see docs/deploy.md.",
    )
    acl.add_argument("grants", nargs="+", metavar="HOST_PEER_ID:TABLE[,TABLE...]",
                     help="a host's peer id (stacks profile NAME) and the tables it may run")

    broker = commands.add_parser(
        "broker", help="run the embedded MQTT broker in the foreground",
        description="Run the embedded MQTT broker until Ctrl-C.",
    )
    if command == "broker":  # its options need the broker's module: only when asked for
        from broker.cli import add_arguments as add_broker_arguments

        add_broker_arguments(broker)


def _add_moderate_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    moderate = commands.add_parser(
        "moderate", help="the ssh server's moderation, at its console",
        description="The moderators' commands of `stacks serve`, at the server's own "
        "console: who, mute, unmute, rename, ban, unban, close, say, audit, reports, "
        "handled, mutes, moderator add|remove (`stacks moderate help` says each). They "
        "go into the server's database; the running server acts on them within seconds. "
        "See docs/moderation.md.",
    )
    moderate.add_argument("--database", metavar="URL",
                          help="the server's database, as `stacks serve --database` "
                          "(default: SQLite in your data directory)")
    moderate.add_argument("--as", dest="moderator", default="console", metavar="NAME",
                          help="the name the audit log keeps for these actions (console)")
    moderate.add_argument("words", nargs=argparse.REMAINDER, metavar="COMMAND ...",
                          help="e.g. mute bob 10m flooding the chat")


def _add_ratings_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    database_help = ("sqlite:///PATH or postgresql://USER@HOST/DB (default: SQLite in your "
                     "data directory, where this machine's games are added as they end)")
    ratings = commands.add_parser(
        "ratings", help="the leaderboard; add game records to it",
        description="Without an action: the leaderboard of a game kind (name, identity "
        "fingerprint, games, wins, rating = mu - 3 sigma of OpenSkill's Plackett-Luce "
        "model, and its uncertainty sigma).",
    )
    ratings.add_argument("--game", choices=("stacks", "sequence"), default="stacks",
                         help="which game's leaderboard (stacks)")
    ratings.add_argument("--database", metavar="URL", help=database_help)
    ratings.add_argument("--json", action="store_true",
                         help='one JSON object: {"game", "players": [...]}')
    ratings.add_argument("--limit", type=positive_int, default=None,
                         help="show the first N only")
    actions = ratings.add_subparsers(dest="ratings_action", metavar="ACTION")
    add = actions.add_parser(
        "add", help="verify game records and rate their games",
        description="Verify each record (as stacks verify) and rate its game; a game "
        "already rated counts once. Exit status: 0 all rated (or already); 1 a record "
        "was refused (the reason is printed); 2 a file can't be read or the database "
        "can't be used.")
    add.add_argument("records", nargs="+", metavar="RECORD", help="game record files")
    export = actions.add_parser(
        "export", help="write every stored record and account as JSON lines",
        description="Write every stored game record and account to FILE, one JSON "
        "object a line: `stacks ratings import` reads it into another database.")
    export.add_argument("file", metavar="FILE")
    import_ = actions.add_parser(
        "import", help="read an export into this database",
        description="Verify and rate every record of FILE (games already here count "
        "once) and add its accounts (unless the name or a key is taken here).")
    import_.add_argument("file", metavar="FILE")
    delete = actions.add_parser(
        "delete-account", help="delete a server account and its ssh keys",
        description="Delete the account NAME and the ssh keys that log in to it. Its rated "
        "games stay: they are the other players' games too.")
    delete.add_argument("name", metavar="NAME")
    for action in (add, export, import_, delete):
        action.add_argument("--database", metavar="URL", default=argparse.SUPPRESS,
                            help=database_help)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sequence-stacks")
    except PackageNotFoundError:
        return "unknown (not installed)"

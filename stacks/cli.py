"""The ``stacks`` command line: parses arguments and hands over to one command module.

Command modules are imported only when chosen, so ``stacks simulate`` never pays for
Textual and ``stacks`` stays quick to start. This module imports at its top only what the
main menu's start needs: the main menu's options are parsed by :func:`menu_args` without
building the commands' parser (:mod:`stacks.parser` builds it, importing what the
commands' arguments need only then). docs/architecture.md, "Start-up", says why.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from stacks.argtypes import host_bot_levels
from stacks.parser import build_parser, command_parser_of, menu_args
from stacks.rules_args import table_rules


def _first_word(argv: Sequence[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def insecure_seed(args: argparse.Namespace) -> str | None:
    """Why ``stacks host --seed`` is refused here, if it is: a seeded secret is a hash of
    a short number, found from the announced commitment in seconds."""
    if args.command != "host" or args.seed is None or args.insecure_seed or args.resume:
        return None
    others = args.players - args.bots - (0 if args.headless else 1)
    if others <= 0:
        return None  # every other seat is a bot of the host: nobody to hide cards from
    return ("--seed on a table others join makes the host's secret guessable from its "
            "commitment (every hand and the deck order would be known): leave it out, or "
            "add --insecure-seed for a test table")


def host_game_problem(args: argparse.Namespace) -> str | None:
    """Why ``stacks host`` can't host this game so (in words), or ``None``."""
    from engine.errors import ConfigError
    from engine.games import game_def

    definition = game_def(args.game)
    try:
        definition.check_players(args.players)
    except ConfigError as exc:
        return str(exc)
    levels = host_bot_levels(args) if args.command == "host" else tuple(args.bots)
    if definition.name != "stacks":
        for level in levels:
            if level not in definition.bot_names:
                return (f"{definition.title} has no {level!r} bot; choose from "
                        f"{', '.join(definition.bot_names)}")
    if args.game == "stacks":
        if getattr(args, "choose_sequences", False):
            return "--choose-sequences is for --game sequence"
        if args.teams is not None:
            return "--teams is for --game sequence"
    try:
        # The game's own setup checks the rules against the seats (first player, teams).
        definition.new_state(table_rules(args), args.players)
    except ConfigError as exc:
        return str(exc)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    menu = menu_args(words)
    if menu is not None:  # `stacks` alone: the main menu, its parser the smallest
        from stacks.commands import ui

        return ui.run(menu)
    parser = build_parser(_first_word(words))
    args = parser.parse_args(words)
    if args.command == "simulate":
        from stacks.commands.simulate import run

        return run(args)
    if args.command == "tournament":
        from stacks.commands.tournament import run as run_tournament

        return run_tournament(args)
    if args.command == "host":
        host_bot_levels(args)
    # What is wrong with a command's options is said with that command's usage.
    command_parser = command_parser_of(parser, args.command)
    refusal = insecure_seed(args)
    if refusal:
        command_parser.error(refusal)
    if args.command == "host" and args.resume and args.rule:
        command_parser.error("--rule can't change a resumed game: its rules are its journal's")
    if (args.command == "host" and not args.resume) or args.command == "play":
        refusal = host_game_problem(args)
        if refusal:
            command_parser.error(refusal)
    if args.command == "host" and args.bot_delay is None:
        args.bot_delay = 0.0 if args.headless else 0.6
    if args.command in ("play", "join", "watch") and args.plain:
        from stacks.commands.plain import run as run_plain

        return run_plain(args)
    if args.command is None or args.command in ("play", "join", "learn") or (
        args.command in ("host", "watch") and not args.headless
    ):
        from stacks.commands import ui

        return ui.run(args)
    if args.command in ("host", "bot", "watch", "verify", "tables", "profile"):
        import importlib

        module = importlib.import_module(f"stacks.commands.{args.command}")
        command: Callable[[argparse.Namespace], int] = getattr(module, f"run_{args.command}")
        return command(args)
    if args.command == "acl":
        from stacks.commands.acl import run as run_acl

        return run_acl(args)
    if args.command == "broker":
        from stacks.commands.broker import run as run_broker

        return run_broker(args)
    if args.command == "ratings":
        from stacks.commands.ratings import run as run_ratings

        return run_ratings(args)
    if args.command == "moderate":
        from stacks.commands.moderate import run as run_moderate

        return run_moderate(args)
    if args.command == "replay":
        from stacks.commands.replay import run as run_replay

        return run_replay(args)
    if args.command == "completion":
        import shtab

        full = build_parser("broker")  # every command's options, the broker's too
        print(shtab.complete(full, shell=args.shell), end="")
        return 0
    if args.command == "web":
        from stacks.commands.web import run as run_web

        return run_web(args)
    if args.command == "serve":
        from sshserver.server import run as run_serve

        return run_serve(args)
    if args.command == "bench":
        if args.target == "ssh":
            from stacks.bench.ssh import run as run_bench_ssh

            return run_bench_ssh(args)
        if args.target == "web":
            from stacks.bench.web import run as run_bench_web

            return run_bench_web(args)
        if args.target == "offline":
            from stacks.bench.offline import run as run_bench_offline

            return run_bench_offline(args)
        if args.target == "resume":
            from stacks.bench.resume import run as run_bench_resume

            return run_bench_resume(args)
        if args.target == "load":
            from stacks.bench.load import run_load

            return run_load(args)
        if args.target == "ui":
            from stacks.bench.ui import run as run_bench_ui

            return run_bench_ui(args)
        if args.target == "catchup":
            from stacks.bench.catchup import run as run_bench_catchup

            return run_bench_catchup(args)
        if args.target == "cluster":
            from stacks.bench.cluster.command import run as run_bench_cluster

            return run_bench_cluster(args)
        if args.target == "hostile":
            from stacks.bench.hostile import run as run_bench_hostile

            return run_bench_hostile(args)
        from stacks.bench.engine import run as run_bench

        return run_bench(args)
    parser.print_help()
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""The interactive commands: ``stacks`` (menu), ``play``, ``host``, ``join``, ``watch``,
``learn``."""

from __future__ import annotations

import argparse
import gc
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import platformdirs

from tui.launch import DEFAULT_BROKER, Launch

APP_NAME = "sequence-stacks"


def log_file() -> Path:
    return Path(platformdirs.user_log_dir(APP_NAME)) / "stacks.log"


def _logs(verbose: bool) -> None:
    """Logs go to a file: the terminal belongs to the interface."""
    path = log_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO if verbose else logging.WARNING)
    logging.getLogger("amqtt").setLevel(logging.CRITICAL)
    logging.getLogger("mqtt").setLevel(logging.ERROR)


def launch_from(args: argparse.Namespace) -> tuple[Launch | None, Launch, str | None]:
    """(what to open at once or ``None`` for a screen first, the defaults, which form)."""
    command = args.command
    name = getattr(args, "name", None) or getattr(args, "menu_name", None) or ""
    profile = getattr(args, "profile", None) or getattr(args, "menu_profile", None)
    base = Launch(role="play", name=name, profile=profile,
                  broker=getattr(args, "menu_broker", None))
    if command is None:
        return None, base, None
    if command == "learn":
        return None, base, "learn"
    if command == "play":
        engines = engine_seats(args, named=False)
        launch = Launch(
            role="play", name=name, profile=profile, players=args.players,
            bots=args.players - 1 - len(engines), bot_levels=tuple(args.bots), seed=args.seed,
            bot_delay=args.bot_delay,
            block_window=args.block_window, variant=args.game, rules=_rules(args),
            engines=engines, engine_budget=args.engine_budget,
        )
        return launch, launch, None
    if command == "host":
        from stacks.argtypes import host_bot_levels

        levels = host_bot_levels(args)
        engines = engine_seats(args, named=True)
        bots = max(0, min(args.bots, args.players - 1 - len(engines)))
        # Without --record, named when the table opens (after the form's game and table).
        record = Path(args.record) if args.record else None
        launch = Launch(
            role="host", table=args.table, name=name, profile=profile, broker=args.broker,
            password=args.password, players=args.players, bots=bots,
            bot_levels=levels or ("medium",), standin=args.standin,
            bot_delay=args.bot_delay, block_window=args.block_window, rules=_rules(args),
            variant=args.game, plain_window=args.plain_window,
            turn_clock=args.turn_clock, spectator_delay=args.spectator_delay,
            seed=args.seed, bind=args.bind, port=args.port, record=record,
            default_record=record is None,
            verify_wait=args.verify_wait, advertise=not args.no_advertise,
            new_table=args.new, engines=engines, engine_budget=args.engine_budget,
        )
        if args.resume:
            from netplay.journal import list_tables

            found = list_tables(table=args.resume)
            if not found:
                raise ValueError(f"no unfinished table {args.resume!r} to resume")
            launch = replace(launch, table=args.resume, resume=found[0].path, record=None)
        return launch, launch, None
    if command == "join":
        launch = Launch(role="join", table=args.table or "stacks", name=name, profile=profile,
                        broker=args.broker or DEFAULT_BROKER, password=args.password or None)
        if args.table is None:
            return None, launch, "join"
        if args.password == "":
            return None, launch, "join-password"
        return launch, launch, None
    if command == "watch":
        # No name: the session names the spectator after its profile (root-2), as the
        # others see it in the chat.
        launch = Launch(role="watch", table=args.table, name=name or "",
                        profile=profile, broker=args.broker or DEFAULT_BROKER)
        return launch, launch, None
    raise ValueError(f"no interface for {command!r}")


def engine_seats(args: argparse.Namespace, *,
                 named: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The ``--engine`` programs, each started once and greeted (``ValueError`` in words
    when one can't play here: it won't start, speaks another protocol version, does not
    play the game, or leaves no seat)."""
    from netplay.engines import EngineBot, EngineError, EngineSpec

    texts = getattr(args, "engine", None) or []
    specs = [EngineSpec.parse(text, named=named) for text in texts]
    if len({spec.name for spec in specs}) < len(specs):
        raise ValueError("two engines have one name; name them apart (NAME=COMMAND)")
    if len(specs) + (args.bots if isinstance(args.bots, int) else 0) >= args.players:
        raise ValueError(f"{len(specs)} engine(s) leave no seat for you at {args.players} "
                         "players")
    for spec in specs:
        probe = EngineBot(spec)
        try:
            said = probe.start()
        except EngineError as exc:
            raise ValueError(str(exc)) from None
        finally:
            probe.close()
        if args.game not in said.games:
            raise ValueError(f"engine {spec.name} ({said.name}) does not play {args.game}")
    return tuple((spec.name, spec.command) for spec in specs)


def _rules(args: argparse.Namespace) -> Any:
    """The table rules the command line chose (checked already by the parser's caller)."""
    from stacks.rules_args import table_rules

    return table_rules(args)


def run(args: argparse.Namespace) -> int:
    _logs(getattr(args, "verbose", False))
    if args.command == "host":
        from stacks.argtypes import host_bot_levels

        host_bot_levels(args)
    if args.command == "host" and args.bots >= args.players:
        print(f"stacks host: {args.bots} bots leave no seat for you at {args.players} players; "
              "use --headless for a table of bots only", file=sys.stderr)
        return 2
    try:
        launch, defaults, ask = launch_from(args)
    except ValueError as exc:
        print(f"stacks {args.command}: {exc}", file=sys.stderr)
        return 2

    # Start-up makes nothing for the cyclic collector to find (all of it lives as long as
    # the app): it stays off until the first frame (the app turns it back on).
    gc.disable()
    from tui.app import make_app
    from tui.serve_link import ServeLink

    link = ServeLink.from_env()  # started by `stacks serve`: it holds the tables we open
    if link is not None:
        defaults = replace(defaults, ssh=link.ssh, engine_choices=link.engines)
        if launch is not None:
            launch = replace(launch, ssh=link.ssh, engine_choices=link.engines)
    kiosk = args.command == "watch" and getattr(args, "kiosk", False)
    bell = False if getattr(args, "no_bell", False) else None  # None: the profile's setting
    app = make_app(launch, defaults=defaults, ask=ask, link=link, kiosk=kiosk, bell=bell)
    app.run()
    return 0

"""``stacks bench ssh``: the built-in ssh server, measured."""

from __future__ import annotations

import argparse


def add_bench_ssh_arguments(targets: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add ``ssh`` to the ``stacks bench`` targets."""
    bench = targets.add_parser(
        "ssh",
        help="ssh server: connect to first frame, memory per session, 20 sessions' key latency",
        description="Starts `stacks serve` on 127.0.0.1 and a free port, then measures: ssh "
        "connect to the first frame of the menu (OpenSSH client in a pty), the memory of "
        "each connected session's process tree, and key press to repaint while many "
        "sessions press keys at once.",
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.add_argument("--connects", type=int, default=5, help="connections to time (5)")
    bench.add_argument("--sessions", type=int, default=20, help="concurrent sessions (20)")
    bench.add_argument("--seconds", type=float, default=10.0,
                       help="seconds the concurrent sessions press keys (10)")


def run(args: argparse.Namespace) -> int:
    raise NotImplementedError

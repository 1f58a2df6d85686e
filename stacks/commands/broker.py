"""``stacks broker``: the embedded MQTT broker (or a local Mosquitto) in the foreground.

The broker package owns its options and its loop (``broker.cli``); this is the command's
door, as for every other command.
"""

from __future__ import annotations

import argparse

from broker.cli import run as run_broker


def run(args: argparse.Namespace) -> int:
    return run_broker(args)

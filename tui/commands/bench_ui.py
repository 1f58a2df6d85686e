"""``stacks bench ui``: placeholder."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    return 0

"""``stacks verify RECORD``: replay a game record from its seed and check every event."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from netplay.record import read_record, verify_record


def run_verify(args: argparse.Namespace) -> int:
    try:
        record = read_record(Path(args.record))
    except ValueError as exc:
        print(f"stacks verify: {exc}", file=sys.stderr)
        return 2
    verdict = verify_record(record)
    if verdict.ok:
        print(f"verified: {verdict.detail}")
        return 0
    print(f"NOT verified: {verdict.detail}")
    return 1

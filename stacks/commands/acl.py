"""``stacks acl HOST_PEER_ID:TABLE[,TABLE...] ...``: a Mosquitto ACL that confines each
host to its own tables (docs/deploy.md)."""

from __future__ import annotations

import argparse
import sys

from broker.acl import parse_grant, render_acl


def run(args: argparse.Namespace) -> int:
    """Print the ACL; exit 2 (in words) when a grant is malformed."""
    try:
        print(render_acl([parse_grant(g) for g in args.grants]), end="")
    except ValueError as exc:
        print(f"stacks acl: {exc}", file=sys.stderr)
        return 2
    return 0

"""``stacks profile NAME``: a player profile's key file and peer id."""

from __future__ import annotations

import argparse
import sys

from netplay.errors import ProfileError
from netplay.identity import KEY_FILE, load_profile, profiles_dir


def run_profile(args: argparse.Namespace) -> int:
    try:
        identity = load_profile(args.name)
    except ProfileError as exc:
        print(f"stacks profile: {exc}", file=sys.stderr)
        return 2
    print(f"profile:  {args.name}")
    print(f"key file: {profiles_dir() / args.name / KEY_FILE}")
    print(f"peer id:  {identity.peer_id}")
    return 0

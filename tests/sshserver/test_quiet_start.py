"""``stacks serve`` starts with its banner, not with ten of asyncssh's DSA warnings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_ssh_server_prints_no_dsa_deprecation() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", "import stacks.cli, sshserver.server"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "DSA is deprecated" not in done.stderr, done.stderr

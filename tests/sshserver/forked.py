"""An entry for the fork server in tests (``tests.sshserver.forked:main``): says what a
forked child was given and has, then echoes keys; ``q`` quits with 0, ``x`` with 3."""

from __future__ import annotations

import os
import random
import sys
import termios
import tty


def say(text: str) -> None:
    sys.stdout.write(text + "\r\n")
    sys.stdout.flush()


def main(args: list[str]) -> int:
    listing = os.listdir("/proc/self/fd")
    fds = sorted(int(fd) for fd in listing if os.path.exists(f"/proc/self/fd/{fd}"))
    old = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        say("ARGS=" + " ".join(args))
        say(f"RANDOM={random.getrandbits(64)}")
        say("ENV=" + os.environ.get("FORKED_ENV", "(none)"))
        say("CTTY=" + ("yes" if os.tcgetpgrp(0) == os.getpgrp() == os.getsid(0) == os.getpid()
                       else "no"))
        say("FDS=" + ",".join(str(fd) for fd in fds))
        link = os.environ.get("FORKED_LINK")
        if link:
            os.write(int(link), f"hello from {' '.join(args)}".encode())
        say("READY")
        while True:
            data = os.read(0, 100)
            if not data or data == b"q":
                return 0
            if data == b"x":
                return 3
            say(f"key: {data!r}")
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, old)

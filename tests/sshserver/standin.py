"""A stand-in for ``stacks`` behind the ssh server: shows what it was given, echoes keys.

Prints its arguments, TERM and terminal size, a new size on every SIGWINCH, and every
key typed (as ``key: <repr>``); ``q`` quits with status 0, ``x`` with status 3. With
``--ignore-hup`` it ignores SIGHUP (a hung program the server must SIGKILL); with
``--quiet-for SECONDS`` it writes nothing for that long first (a program slow to draw). Its pid
goes to ``$STANDIN_PIDS`` (a folder) so tests can follow it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import termios
import time
import tty


def say(text: str) -> None:
    sys.stdout.write(text + "\r\n")
    sys.stdout.flush()


def size() -> str:
    columns, rows = shutil.get_terminal_size((0, 0))
    return f"SIZE={columns}x{rows}"


def controlling_terminal() -> bool:
    """Is standard input this process's controlling terminal, its group in the foreground?"""
    try:
        return os.tcgetpgrp(0) == os.getpgrp() and os.getsid(0) == os.getpid()
    except OSError:
        return False


def main() -> int:
    pids = os.environ.get("STANDIN_PIDS")
    if pids:
        with open(os.path.join(pids, str(os.getpid())), "w") as handle:
            handle.write(" ".join(sys.argv[1:]))
    if "--ignore-hup" in sys.argv:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGWINCH, lambda *_: say("RESIZED " + size()))
    if "--quiet-for" in sys.argv:
        time.sleep(float(sys.argv[sys.argv.index("--quiet-for") + 1]))
    old = termios.tcgetattr(0)
    tty.setraw(0)
    try:
        say("ARGV=" + " ".join(sys.argv[1:]))
        say("TERM=" + os.environ.get("TERM", ""))
        say("USER=" + os.environ.get("STACKS_SSH_USER", ""))
        say("CTTY=" + ("yes" if controlling_terminal() else "no"))
        say(size())
        say("READY")
        while True:
            try:
                data = os.read(0, 100)
            except InterruptedError:
                continue
            if not data:
                return 0
            say(f"key: {data!r}")
            if data == b"q":
                return 0
            if data == b"x":
                return 3
    finally:
        termios.tcsetattr(0, termios.TCSADRAIN, old)


if __name__ == "__main__":
    sys.exit(main())

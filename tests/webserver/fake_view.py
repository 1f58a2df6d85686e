"""A stand-in for a table's spectator program (``stacks watch TABLE --kiosk``) that speaks
Textual's web driver protocol, for the web server's tests in one process: its prelude, a
screen ("Players", and a frame counter on the first row) redrawn every 50 ms, and its end
when the server asks it to quit or when the file named by ``FAKE_VIEW_END`` appears.
What it was sent as keys is appended to the file named by ``FAKE_VIEW_KEYS``.

It takes (and ignores) the arguments the web server gives ``stacks``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

OUT = sys.stdout.buffer


def packet(kind: bytes, data: bytes) -> None:
    OUT.write(kind + len(data).to_bytes(4, "big") + data)
    OUT.flush()


def read_input() -> None:
    keys = os.environ.get("FAKE_VIEW_KEYS")
    stdin = sys.stdin.buffer
    while True:
        kind = stdin.read(1)
        if not kind:
            os._exit(0)
        size = int.from_bytes(stdin.read(4), "big")
        payload = stdin.read(size)
        if kind == b"M" and b'"quit"' in payload:
            packet(b"M", b'{"type": "exit"}')
            os._exit(0)
        if kind == b"D" and keys:
            with open(keys, "ab") as file:
                file.write(payload)


def main() -> None:
    OUT.write(b"__GANGLION__\n")
    OUT.flush()
    packet(b"D", b"\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J")
    packet(b"D", b"\x1b[3;1H\x1b[1;38;2;224;224;224m-Players-\x1b[0m")
    threading.Thread(target=read_input, daemon=True).start()
    end = os.environ.get("FAKE_VIEW_END")
    frame = 0
    while not (end and Path(end).exists()):
        frame += 1
        packet(b"D", f"\x1b[1;1Hframe {frame:06d}".encode())
        time.sleep(0.05)
    packet(b"M", b'{"type": "exit"}')


if __name__ == "__main__":
    main()

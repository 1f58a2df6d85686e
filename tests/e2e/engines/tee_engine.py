"""Runs an engine and keeps a copy of every line it is told (``tee_engine.py LOG CMD...``),
so a test can check what a program was shown. Its output passes straight through."""

import subprocess
import sys

log_path, command = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(command, stdin=subprocess.PIPE)
assert child.stdin is not None
with open(log_path, "ab") as log:
    for line in sys.stdin.buffer:
        log.write(line)
        log.flush()
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except BrokenPipeError:
            break
child.stdin.close()
sys.exit(child.wait())

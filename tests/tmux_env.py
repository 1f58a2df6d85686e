"""The environment of every tmux server a test starts (tests/e2e/, tests/sshserver/).

A test's tmux must be a terminal of its own, whether or not the suite itself runs in a tmux
pane. Run from one, the suite inherits ``TMUX`` and ``TMUX_PANE`` (the outer tmux's socket
and pane) and ``COLUMNS``/``LINES`` (the outer terminal's size, exported into the test
process); the test's tmux server copies its starting environment into every pane, and a
program there that reads ``COLUMNS``/``LINES`` (Python's ``shutil.get_terminal_size``, so
Textual) draws for the outer pane's size inside an 80x24 one: ``capture-pane`` then shows
only the footer. So each test's tmux gets its own socket (``-L``/``-S``, never the default
one) and this environment, without any of those.
"""

from __future__ import annotations

import os

#: Variables that describe the terminal the suite was started from, not the test's own.
OUTER_TERMINAL = ("TMUX", "TMUX_PANE", "COLUMNS", "LINES")


def tmux_env() -> dict[str, str]:
    """The suite's environment less what belongs to an outer terminal."""
    return {k: v for k, v in os.environ.items() if k not in OUTER_TERMINAL}

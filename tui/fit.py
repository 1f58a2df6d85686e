"""Words made to fit a width without cutting a word in two: a path folded only after a
``/``, its file name whole.
"""

from __future__ import annotations

import re
from pathlib import Path

from rich.cells import cell_len


def home_path(path: str) -> str:
    """``path`` with the user's home folder written ``~`` (as a shell reads it back)."""
    try:
        home = str(Path.home()).rstrip("/")
    except (RuntimeError, KeyError):  # no home to be found: the path as it is
        return path
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def fold_path(lead: str, path: str, tail: str, width: int) -> list[str]:
    """``lead``, ``path`` and ``tail`` in lines of at most ``width`` cells: the path
    breaks only after a ``/`` and the tail only between words, so that no folder's name
    and never the file's is cut. (A single name wider than ``width`` has a line to
    itself; the terminal folds it.)"""
    pieces = re.findall(r"[^/]*/|[^/]+", path)
    pieces += [f" {word}" for word in tail.split()]
    lines: list[str] = []
    line = lead
    for piece in pieces:
        if line.strip() and cell_len(line) + cell_len(piece) > width:
            lines.append(line.rstrip())
            line = piece.lstrip()
        else:
            line += piece
    lines.append(line.rstrip())
    return lines

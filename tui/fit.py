"""Words made to fit a width without cutting a word in two: a path folded only after a
``/`` (its file name whole), a list of names cut at a whole name ("+2 more"), a line
said in the shortest of its forms that fits, or cut at a word's end.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rich.cells import cell_len
from textual.content import Content

ELLIPSIS = "…"


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


def cut(text: str, width: int) -> str:
    """``text`` if it fits ``width`` cells, else as much of it as fits, then "…" (for a
    single name with no room: what else the line says matters as much)."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    kept = ""
    for char in text:
        if cell_len(kept + char) > width - 1:
            break
        kept += char
    return kept.rstrip() + ELLIPSIS


def fit_names(names: Sequence[str], width: int) -> str:
    """``names`` joined with commas, as many whole names as ``width`` cells hold, then
    "+2 more" for the rest: never a name cut half-way, unless even the first one alone
    is wider than the room (then it ends in "…")."""
    total = len(names)
    for shown in range(total, 0, -1):
        text = ", ".join(names[:shown])
        if shown < total:
            text += f", +{total - shown} more"
        if cell_len(text) <= width:
            return text
    if not names:
        return ""
    rest = f", +{total - 1} more" if total > 1 else ""
    return cut(names[0], max(1, width - cell_len(rest))) + rest


def fit_line(forms: Sequence[str], width: int) -> str:
    """The first of ``forms`` (markup, the fullest first, each shorter than the one
    before) that fits ``width`` cells; if none does, the last one cut at the end of a
    word, then "…" (never inside a word). No width yet (``width <= 0``): the first."""
    if not forms:
        return ""
    if width <= 0:
        return forms[0]
    for form in forms:
        if Content.from_markup(form).cell_length <= width:
            return form
    content = Content.from_markup(forms[-1])
    text = content.plain
    room = width - cell_len(ELLIPSIS)
    end = 0  # the end of the last word that fits, ellipsis and all
    for match in re.finditer(r"\S+", text):
        if cell_len(text[:match.end()]) > room:
            break
        end = match.end()
    kept = content[:end] if end else content[:max(room, 0)]
    return (kept.rstrip(" ·—;,") + ELLIPSIS).markup

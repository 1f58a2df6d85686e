"""The chat's word filter of ``stacks serve --word-filter FILE``: the file's words, found
whole and whatever their case, are masked with ``*`` in every chat line a player of the
server sends.

The file holds a word (or a phrase) a line; blank lines and lines starting with ``#``
are skipped. A word matches whole: ``ass`` masks "Ass" and "ass!" but not "class" or
"passing".
"""

from __future__ import annotations

import re
from pathlib import Path

MAX_WORDS = 20_000
MAX_FILE = 1024 * 1024


class WordFilterError(ValueError):
    """The filter's file can't be used; the words say why."""


class WordFilter:
    """A set of words to mask."""

    def __init__(self, words: list[str]) -> None:
        clean = sorted({" ".join(w.split()) for w in words if w.strip()},
                       key=lambda w: (-len(w), w))
        self.words = tuple(clean)
        self._pattern = re.compile(
            r"(?<!\w)(?:" + "|".join(_loose(w) for w in clean) + r")(?!\w)",
            re.IGNORECASE) if clean else None

    @classmethod
    def load(cls, path: Path) -> WordFilter:
        """The filter of the file at ``path``; `WordFilterError` in words if it can't be
        read."""
        try:
            if path.stat().st_size > MAX_FILE:
                raise WordFilterError(f"{path}: more than {MAX_FILE // 1024} KiB")
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise WordFilterError(f"can't read the word filter {path}: "
                                  f"{exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise WordFilterError(f"the word filter {path} is not UTF-8 text") from None
        words = [line.strip() for line in text.splitlines()
                 if line.strip() and not line.lstrip().startswith("#")]
        if len(words) > MAX_WORDS:
            raise WordFilterError(f"{path}: more than {MAX_WORDS} words")
        return cls(words)

    def __len__(self) -> int:
        return len(self.words)

    def mask(self, text: str) -> str:
        """``text`` with every word of the filter masked, letter for letter."""
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: "*" * len(m.group(0)), text)


def _loose(word: str) -> str:
    """A word's pattern: its spaces match any run of spaces."""
    return r"\s+".join(re.escape(part) for part in word.split())

"""Plain mode's typed commands: a line of words read as a :class:`Command`, and the
:class:`Question` a command may leave open (whom to steal from, which pile).

What a command means at the table is decided later, against the table as it is
(:mod:`tui.plain.moves`); here only the words are sorted out, and a line that is no
command gets a sentence saying why (:class:`CommandError`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class CommandError(ValueError):
    """A typed line that is not a command, in words."""


VERBS = ("play", "discard", "dead", "block", "pass", "end", "hand", "piles", "board", "seats",
         "moves", "say", "help", "quit")
ALIASES = {"exit": "quit", "leave": "quit", "?": "help", "chat": "say", "table": "seats",
           "players": "seats", "score": "seats", "cards": "hand", "pile": "piles",
           "move": "moves"}
_CARD_VERBS = ("play", "discard", "dead")
_PLACE = ("on", "onto", "at", "to", "in")
_FILLER = ("the", "steal", "card", "chip", "pile", "space", "and", "with", "of", "s",
           "take", "takes", "top")
_CELL = re.compile(r"[a-j](10|[1-9])")
_NUMBER = re.compile(r"[0-9]+")
"""A number as typed: ASCII digits (``str.isdigit`` takes ``²`` too, which ``int`` refuses)."""
MAX_DIGITS = 3
"""No hand holds a card numbered higher than a three-digit number."""
SHOWN = 20
"""Characters of a typed word said back before "…"."""


def number(word: str) -> int | None:
    """The number a typed word is (ASCII digits, at most :data:`MAX_DIGITS` of them
    after leading zeros), else ``None``."""
    if not _NUMBER.fullmatch(word) or len(word.lstrip("0")) > MAX_DIGITS:
        return None
    return int(word)


def shown(word: str) -> str:
    """A typed word to say back: its start only, if long."""
    return word if len(word) <= SHOWN else word[:SHOWN] + "…"


@dataclass(frozen=True, slots=True)
class Command:
    """One typed command, its words sorted out (what they mean at the table is decided
    later, against the table as it is)."""

    verb: str
    card: int | None = None
    """The card's number as the hand lists it (0: the top of your discard pile)."""
    where: str | None = None
    """A pile's letter, ``new``, or a board space (``e5``)."""
    zone: str | None = None
    """``hand`` or ``discard``: what a Steal a Card takes."""
    colour: str | None = None
    """``red`` or ``blue``: what a Steal a Chip takes."""
    target: str | None = None
    """The words naming an opponent (``bob``, ``bot 2``)."""
    text: str = ""
    """What ``say`` says."""


def parse(line: str) -> Command:
    """The command a typed line means; :class:`CommandError` in words if none."""
    parts = line.split()
    if not parts:
        raise CommandError("Type a command; help lists them.")
    first = parts[0].lower()
    verb = ALIASES.get(first, first)
    if verb not in VERBS:
        raise CommandError(f"I don't know {shown(parts[0])!r}. Type help for the commands.")
    if verb == "say":
        text = line.strip()[len(parts[0]):].strip()
        if not text:
            raise CommandError("Say what? Type say and your words, e.g. say well played.")
        return Command("say", text=text)
    if verb not in _CARD_VERBS:
        if len(parts) > 1:
            raise CommandError(f"{verb} needs nothing after it: type just {verb}.")
        return Command(verb)
    if len(parts) < 2 or not _NUMBER.fullmatch(parts[1]):
        raise CommandError(f"{verb.capitalize()} which card? Give its number as your hand "
                           f"lists it, e.g. {verb} 3 (hand lists them).")
    card = number(parts[1])
    if card is None:
        raise CommandError(f"There is no card {parts[1][:MAX_DIGITS + 1]}…: a card's number "
                           "is its place in your hand (hand lists them).")
    rest = [w for w in (re.sub(r"[^\w]+", " ", p.lower()).strip() for p in parts[2:]) if w]
    if verb != "play" and rest:
        raise CommandError(f"{verb.capitalize()} takes only the card's number: {verb} {card}.")
    where: str | None = None
    zone: str | None = None
    colour: str | None = None
    target: list[str] = []
    after = ""
    for word in " ".join(rest).split():
        if word in _PLACE:
            after = "place"
        elif word == "from":
            after = "from"
        elif word in _FILLER:
            continue
        elif word in ("hand", "discard"):
            zone = word
        elif word in ("red", "blue"):
            colour = word
        elif word == "new" or (after != "from" and not target
                               and ((len(word) == 1 and word.isalpha()) or _CELL.fullmatch(word))):
            if where is not None:
                raise CommandError(f"Two places ({where} and {word}): give one.")
            where = word
        else:
            target.append(word)
    return Command(verb, card, where, zone, colour, " ".join(target) or None)


@dataclass
class Question:
    """What a command left open (whom to steal from, which pile): the next line may
    answer it; any other line is a command of its own."""

    prefix: str
    """The command so far."""
    answers: dict[str, str]
    """An answer as typed (lower case) -> the words it adds to the command."""

    def complete(self, line: str) -> str | None:
        said = " ".join(line.lower().split())
        if said in self.answers:
            return f"{self.prefix} {self.answers[said]}"
        found = {v for k, v in self.answers.items() if k.startswith(said)} if said else set()
        if len(found) == 1:
            return f"{self.prefix} {found.pop()}"
        return None


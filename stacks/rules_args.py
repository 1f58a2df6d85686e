"""House rules on the command line: ``stacks play`` and ``stacks host`` take
``--rule NAME=VALUE`` (repeatable), the settings the lobby's host form offers.

A value is read by the kind of its setting: ``yes``/``no`` for a switch, an option's name
(``two_player_deck=full``), a whole number, or ``none`` where a setting may be unset
(``hand_limit=none``). The game's own config then checks the whole set, so a rule the
game doesn't have, or a value out of range, is refused in words before anything starts.
:func:`rule_words` turns a config back into these words (for a host in a child process).
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from enum import IntEnum
from typing import Any

from engine.errors import ConfigError

_YES = frozenset({"yes", "true", "on", "1"})
_NO = frozenset({"no", "false", "off", "0"})


def rule_assignment(text: str) -> tuple[str, str]:
    """The ``--rule`` argument type: ``NAME=VALUE`` (a dash in the name reads as ``_``)."""
    name, equals, value = text.partition("=")
    name = name.strip().lower().replace("-", "_")
    if not equals or not name or not value.strip():
        raise argparse.ArgumentTypeError(
            f"a rule is NAME=VALUE (e.g. win_chips=7), not {text!r}")
    return name, value.strip()


def _value(default: object, text: str) -> object:
    """``text`` as the kind of value ``default`` is; left as text where it is none of
    them, for the config to refuse with the setting's name."""
    word = text.lower()
    if word == "none":
        return None
    if isinstance(default, bool):
        return True if word in _YES else False if word in _NO else text
    if isinstance(default, (IntEnum, str)):
        return text
    try:
        return int(word)
    except ValueError:
        return text


def table_rules(args: argparse.Namespace) -> Any:
    """The rules config of the game ``args`` chose: its defaults, the classic game's
    ``--teams`` and ``--choose-sequences``, and every ``--rule``. Raises
    :class:`ConfigError` naming what is wrong."""
    from engine.games import game_def  # not at import: the parser stays quick to build

    definition = game_def(getattr(args, "game", "stacks"))
    default = definition.config_type()
    names = [field.name for field in fields(default)]
    values: dict[str, object] = {}
    if definition.name == "sequence":
        values["teams"] = getattr(args, "teams", None)
        values["choose_sequences"] = getattr(args, "choose_sequences", False)
    for name, text in getattr(args, "rule", None) or ():
        if name not in names:
            raise ConfigError(f"{definition.title} has no rule {name!r}; its rules: "
                              f"{', '.join(names)}")
        values[name] = _value(getattr(default, name), text)
    return definition.config_from_wire(values)


def _word(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, IntEnum):
        return value.name.lower()
    return str(value)


def rule_words(rules: Any) -> list[str]:
    """``--rule`` arguments that give ``rules``: one per setting that is not the default."""
    default = type(rules)()
    return [f"{field.name}={_word(getattr(rules, field.name))}" for field in fields(rules)
            if getattr(rules, field.name) != getattr(default, field.name)]

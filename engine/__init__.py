"""The Sequence Stacks rules engine: pure, deterministic, standard library only.

Vocabulary: :mod:`engine.cards` (card ids and faces), :mod:`engine.config` (house rules),
:mod:`engine.state` (zones and phases), :mod:`engine.actions` / :mod:`engine.events`
(wire values), :mod:`engine.rules` (``deal``, ``step``, ``legal_actions``),
:mod:`engine.reducer` (``apply``), :mod:`engine.views` (views, redaction, ``public_hash``).

Shared by both games (Sequence Stacks here, classic Sequence in :mod:`engine.classic`):
:mod:`engine.table`, :mod:`engine.stepping`, :mod:`engine.reducing`,
:mod:`engine.redaction`, :mod:`engine.wire`, :mod:`engine.checks`, :mod:`engine.headless`;
:mod:`engine.games` names both games' definitions.

The names below are the vocabulary's, each imported from its module on first use
(PEP 562): importing one module of the engine (``engine.config`` for the rules' defaults)
does not import the rules, the reducer and the views, so a program that does not play yet
(the main menu) starts without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.actions import (
        Action,
        Block,
        CloseBlockWindow,
        Discard,
        EndTurn,
        PassBlock,
        PlayCard,
        PlayReverse,
        PlaySkip,
        StealCard,
        StealChip,
    )
    from engine.cards import FACES, HIDDEN, CardId, Colour, Face, Kind, card_name, face
    from engine.config import RulesConfig
    from engine.errors import (
        ConfigError,
        EngineError,
        IllegalActionError,
        InvalidEventError,
        MalformedError,
    )
    from engine.events import Event
    from engine.game import Game, outcome
    from engine.reducer import apply, apply_checked
    from engine.rng import Rng
    from engine.rules import deal, is_legal, legal_actions, step, validate
    from engine.state import (
        HOST,
        NEW_PILE,
        SPECTATOR,
        Audience,
        Outcome,
        Phase,
        PileId,
        Seat,
        State,
        Termination,
        Zone,
    )
    from engine.views import public_hash, redact, spectator_view, view_for

_HOMES: dict[str, tuple[str, ...]] = {
    "actions": (
        "Action", "Block", "CloseBlockWindow", "Discard", "EndTurn", "PassBlock", "PlayCard",
        "PlayReverse", "PlaySkip", "StealCard", "StealChip",
    ),
    "cards": ("FACES", "HIDDEN", "CardId", "Colour", "Face", "Kind", "card_name", "face"),
    "config": ("RulesConfig",),
    "errors": (
        "ConfigError", "EngineError", "IllegalActionError", "InvalidEventError", "MalformedError",
    ),
    "events": ("Event",),
    "game": ("Game", "outcome"),
    "reducer": ("apply", "apply_checked"),
    "rng": ("Rng",),
    "rules": ("deal", "is_legal", "legal_actions", "step", "validate"),
    "state": (
        "HOST", "NEW_PILE", "SPECTATOR", "Audience", "Outcome", "Phase", "PileId", "Seat",
        "State", "Termination", "Zone",
    ),
    "views": ("public_hash", "redact", "spectator_view", "view_for"),
}
"""Each module of the engine and the names of the vocabulary it defines."""

_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> object:
    """``engine.NAME``: imported from its module the first time it is asked for."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"engine.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "FACES",
    "HIDDEN",
    "HOST",
    "NEW_PILE",
    "SPECTATOR",
    "Action",
    "Audience",
    "Block",
    "CardId",
    "CloseBlockWindow",
    "Colour",
    "ConfigError",
    "Discard",
    "EndTurn",
    "EngineError",
    "Event",
    "Face",
    "Game",
    "IllegalActionError",
    "InvalidEventError",
    "Kind",
    "MalformedError",
    "Outcome",
    "PassBlock",
    "Phase",
    "PileId",
    "PlayCard",
    "PlayReverse",
    "PlaySkip",
    "Rng",
    "RulesConfig",
    "Seat",
    "State",
    "StealCard",
    "StealChip",
    "Termination",
    "Zone",
    "apply",
    "apply_checked",
    "card_name",
    "deal",
    "face",
    "is_legal",
    "legal_actions",
    "outcome",
    "public_hash",
    "redact",
    "spectator_view",
    "step",
    "validate",
    "view_for",
]

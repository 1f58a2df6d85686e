"""The Sequence Stacks rules engine: pure, deterministic, standard library only.

Vocabulary: :mod:`engine.cards` (card ids and faces), :mod:`engine.config` (house rules),
:mod:`engine.state` (zones and phases), :mod:`engine.actions` / :mod:`engine.events`
(wire values), :mod:`engine.rules` (``deal``, ``step``, ``legal_actions``),
:mod:`engine.reducer` (``apply``), :mod:`engine.views` (views, redaction, ``public_hash``).

Shared by both games (Sequence Stacks here, classic Sequence in :mod:`engine.classic`):
:mod:`engine.table`, :mod:`engine.stepping`, :mod:`engine.reducing`,
:mod:`engine.redaction`, :mod:`engine.wire`, :mod:`engine.checks`, :mod:`engine.headless`;
:mod:`engine.games` names both games' definitions.
"""

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

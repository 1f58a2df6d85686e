"""Classic Sequence (the Jax board game, RULES.md §3) on the engine's shared machinery.

Shared with Sequence Stacks: seats and audiences, :data:`~engine.cards.HIDDEN`, the
seeded generator (docs/rng.md), the error tree, outcomes, and the machinery both games
run on: the table driver (:mod:`engine.table`), ``step`` around the validators and
resolvers (:mod:`engine.stepping`), the reducer's skeleton and the draw pile and hands
(:mod:`engine.reducing`), views, redaction and the public hash (:mod:`engine.redaction`),
the wire records and snapshot fields (:mod:`engine.wire`), the invariants both share
(:mod:`engine.checks`) and the headless loop (:mod:`engine.headless`). Its own: the
cards (two 52-card decks), the board as data, teams, jacks, dead cards and sequences.

Vocabulary: :mod:`engine.classic.cards`, :mod:`engine.classic.board`,
:mod:`engine.classic.config`, :mod:`engine.classic.state`; actions and events;
:mod:`engine.classic.rules` (``deal``, ``step``, ``legal_actions``),
:mod:`engine.classic.reducer` (``apply``), :mod:`engine.classic.views`.
"""

from engine.classic.actions import (
    DiscardUnplayable,
    ExchangeDeadCard,
    PassTurn,
    PlaceChip,
    RemoveChip,
    SequenceAction,
)
from engine.classic.board import BOARDS, CORNERS, WINDOWS, Board, Cell, cell_name, parse_cell
from engine.classic.cards import FACES, CardId, Face, JackKind, Suit, card_name, face
from engine.classic.config import HAND_SIZES, PLAYER_COUNTS, NoPlay, SequenceConfig
from engine.classic.events import SequenceEvent
from engine.classic.game import SequenceGame
from engine.classic.reducer import apply, apply_checked
from engine.classic.rules import deal, default_claim, is_legal, legal_actions, step, validate
from engine.classic.state import EMPTY, Phase, Sequence, SequenceState, Team, team_name
from engine.classic.views import public_hash, redact, spectator_view, view_for

__all__ = [
    "BOARDS",
    "CORNERS",
    "EMPTY",
    "FACES",
    "HAND_SIZES",
    "PLAYER_COUNTS",
    "WINDOWS",
    "Board",
    "CardId",
    "Cell",
    "DiscardUnplayable",
    "ExchangeDeadCard",
    "Face",
    "JackKind",
    "NoPlay",
    "PassTurn",
    "Phase",
    "PlaceChip",
    "RemoveChip",
    "Sequence",
    "SequenceAction",
    "SequenceConfig",
    "SequenceEvent",
    "SequenceGame",
    "SequenceState",
    "Suit",
    "Team",
    "apply",
    "apply_checked",
    "card_name",
    "cell_name",
    "deal",
    "default_claim",
    "face",
    "is_legal",
    "legal_actions",
    "parse_cell",
    "public_hash",
    "redact",
    "spectator_view",
    "step",
    "team_name",
    "validate",
    "view_for",
]

"""The game's record (:func:`game_record`): everything needed to re-check the game offline,
as ``stacks verify`` does (``netplay.record`` reads and writes it). No I/O.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.games import TableGame
from netplay.batch import Batch
from netplay.hosting.deal import DealRounds
from netplay.hosting.race import BlockRace
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.hosting.verdicts import Verdicts
from netplay.identity import Identity


class RecordTable(Protocol):
    identity: Identity
    settings: HostSettings
    secret: bytes
    commit: bytes
    state: TableState
    game: TableGame | None
    batches: list[Batch]
    deal: DealRounds
    block_race: BlockRace
    peer_verdicts: Verdicts


def game_record(table: RecordTable) -> dict[str, Any]:
    """The record of ``table``'s game so far (the secret once it is over)."""
    facts = table.deal.facts(table.settings, table.commit)
    outcome = table.game.outcome if table.game else None
    return {
        "format": "sequence-stacks-record",
        "version": 1,
        "table": table.settings.table,
        "game": table.settings.game,
        "host": table.identity.key,
        "players": facts["players"],
        "rules": facts["rules"],
        "names": facts["names"],
        "keys": facts["keys"],
        "joins": facts.get("joins"),
        "entropies": facts["entropies"],
        "entropy_commits": facts["entropy_commits"],
        "reveal_commits": table.deal.reveal_commits,
        "dealer": facts["dealer"],
        "commit": table.commit,
        "secret": table.secret if table.state.over else None,
        "batches": [b.to_body() for b in table.batches],
        "races": [r.to_body() for r in table.block_race.past],
        "outcome": None
        if outcome is None
        else {"termination": int(outcome.termination), "winner": outcome.winner},
        "verdicts": table.peer_verdicts.by_label(),
    }

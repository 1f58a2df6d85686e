"""`stacks serve`: a held table's record is named after its game and table, as
`stacks host` names its own (``stacks-duel-20261203-1402.json``). The server
runs in process on a broker of its own; a bot takes the creator's seat and plays."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from netplay.identity import Identity
from netplay.journal import records_dir
from netplay.player_peer import BotPeer
from sshserver.server import GameServer
from sshserver.settings import ServeSettings
from sshserver.tables import Caller, KeeperSettings
from tests.tui.conftest import TIMEOUT

pytestmark = pytest.mark.asyncio

ALICE = Caller("ssh-aaaaaaaaaaaaaaaa", "alice", "ssh -t -p 2222 game.example")


@pytest.mark.parametrize("game", ["stacks", "sequence"])
async def test_a_held_table_names_its_record_after_its_game_and_table(
    broker: str, tmp_path: Path, game: str,
) -> None:
    server = GameServer(ServeSettings(bind="127.0.0.1", port=0, broker=broker, open=True,
                                      config=tmp_path / "config",
                                      tables=KeeperSettings(linger=0.5, verify_wait=0.5)))
    await server.start()
    try:
        reply = await server.tables.handle(ALICE, {
            "op": "open", "table": "duel", "players": 2, "bots": 1, "block_window": 0.2,
            "bot_delay": 0, "rules": {"max_turns": 8},
            **({"game": game} if game != "stacks" else {}),
        })
        assert reply["ok"], reply
        table = server.tables.tables["duel"]
        async with BotPeer(Identity.generate(), "duel", broker=broker, name="alice"):
            await asyncio.wait_for(table.ended.wait(), 10 * TIMEOUT)
        assert table.why == "its game is over"
    finally:
        await server.stop()
    names = sorted(p.name for p in records_dir().glob("*.json"))
    assert len(names) == 1, names
    assert re.fullmatch(rf"{game}-duel-\d{{8}}-\d{{4}}\.json", names[0]), names

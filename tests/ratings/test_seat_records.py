"""A seated player's record of a game hosted elsewhere (netplay.record.SEAT_FORMAT): it
verifies for that seat's view, `stacks verify` takes it, and the ratings count the game
once whichever record of it (the host's or a player's) comes first."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from netplay.record import SEAT_FORMAT, record_view, to_json, verify_record, write_record
from ratings.results import RecordRefused, result_of
from ratings.store import Store
from tests.netplay.harness import SHORT
from tests.ratings.games import _table

ROOT = Path(__file__).resolve().parents[2]


def _game() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A 3-seat game (two people, a bot): the host's record and each person's."""
    table = _table(3, ("medium",), 91, rules=SHORT)
    table.run_to_end()
    host = table.host.record()
    seats = [s.record(time.time()) for s in table.players]
    assert all(seat is not None for seat in seats)
    return host, [seat for seat in seats if seat is not None]


def test_a_seat_s_record_verifies_for_its_view_and_is_the_same_game() -> None:
    host, seats = _game()
    assert record_view(host) is not None
    for seat in seats:
        assert seat["format"] == SEAT_FORMAT and record_view(seat) == seat["seat"]
        verdict = verify_record(seat)
        assert verdict.ok, verdict.detail
        # Its own hand is in it, the others' are not: not the host's whole record.
        assert seat["batches"] != host["batches"]
        game, mine = result_of(host), result_of(seat)
        assert mine.id == game.id and mine.winner == game.winner
        assert [(s.fingerprint, s.won) for s in mine.seats] == \
            [(s.fingerprint, s.won) for s in game.seats]


@pytest.mark.parametrize(("change", "words"), [
    (lambda r, other: r.update(seat=other), "deal differs"),
    (lambda r, other: r.update(seat=2), "is a bot's"),
    (lambda r, other: r.update(seat=7), "nor a seat's"),
    (lambda r, other: r.update(seat="0"), "nor a seat's"),
    (lambda r, other: r.update(format="sequence-stacks-other"), "nor a seat's"),
    (lambda r, other: r["outcome"].update(winner=(r["outcome"]["winner"] + 1) % 3),
     "outcome"),
])
def test_a_seat_s_record_that_lies_does_not_verify(change: Any, words: str) -> None:
    _, seats = _game()
    record = copy.deepcopy(seats[0])
    bot = 2
    assert record["keys"][bot] is None
    change(record, seats[1]["seat"])
    verdict = verify_record(record)
    assert not verdict.ok and words in verdict.detail, verdict.detail
    with pytest.raises(RecordRefused):
        result_of(record)


@pytest.mark.asyncio
async def test_the_game_counts_once_whichever_record_comes_first(tmp_path: Path) -> None:
    host, seats = _game()
    for order in ([seats[0], host, seats[1]], [host, seats[1], seats[0]]):
        url = f"sqlite:///{tmp_path / f'{len(list(tmp_path.iterdir()))}.sqlite'}"
        store = await Store.open(url)
        try:
            added = [await store.add_record(r) for r in order]
            assert [a.already for a in added] == [False, True, True]
            board = await store.leaderboard()
            assert sorted(s.games for s in board) == [1, 1, 1]
        finally:
            await store.close()


def test_stacks_verify_takes_a_seat_s_record_and_a_host_s(tmp_path: Path) -> None:
    host, seats = _game()
    for name, record in (("host.json", host), ("seat.json", seats[0])):
        write_record(tmp_path / name, record)
        done = subprocess.run([sys.executable, "-m", "stacks.cli", "verify",
                               str(tmp_path / name)], capture_output=True, text=True,
                              cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith("verified"), done.stdout
    text = json.loads((tmp_path / "seat.json").read_text())
    text["seat"] = 2  # the bot's seat: nobody's view
    (tmp_path / "bad.json").write_text(json.dumps(text))
    done = subprocess.run([sys.executable, "-m", "stacks.cli", "verify",
                           str(tmp_path / "bad.json")], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 1 and "is a bot's" in done.stdout, done.stdout
    assert to_json(seats[0])["format"] == SEAT_FORMAT


def test_a_seat_s_record_replays_with_every_hand_like_the_host_s() -> None:
    from tui.replay import replay_record

    host, seats = _game()
    whole, seen = replay_record(host), replay_record(seats[0])
    assert seen.every_hand and len(seen.moments) == len(whole.moments)
    assert [m.event for m in seen.moments] == [m.event for m in whole.moments]

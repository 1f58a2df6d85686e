"""The fair deal: every peer verifies the revealed secret against the commitment and
replays the game; tampering with anything is caught, online and in a game record."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from engine.actions import Action, Discard, PlayCard
from engine.cards import Colour
from engine.config import RulesConfig
from engine.events import CardDiscarded, CardsDrawn, ChipAwarded
from engine.state import HOST
from netplay.batch import Batch
from netplay.codec import Sequencer, encode
from netplay.entropy import entropy_commitment
from netplay.identity import Identity
from netplay.record import read_record, verify_record, write_record
from netplay.verify import GameFacts, Verdict, commitment, deal_seed, verify_game

from .harness import SHORT, TABLE, Table, derive

_GAMES: dict[int, Table] = {}


def finished(seed: int = 51) -> Table:
    """A finished 3-seat game (2 people, 1 host bot), shared by the tests of this module
    (which only read it)."""
    if seed not in _GAMES:
        table = Table(3, bots=("greedy",), seed=seed, rules=SHORT)
        table.run_to_end()
        _GAMES[seed] = table
    return _GAMES[seed]


def facts_of(table: Table) -> GameFacts:
    facts = table.host.deal_facts()
    return GameFacts(
        TABLE, facts["players"], RulesConfig.from_wire(facts["rules"]), tuple(facts["keys"]),
        facts["commit"], tuple(facts["entropies"]),
    )


def batches_of(table: Table) -> dict[int, Batch]:
    return {b.n: b for b in table.host.batches}


def check(table: Table, batches: dict[int, Batch] | None = None, *,
          facts: GameFacts | None = None, secret: bytes | None = None) -> Verdict:
    batches = batches_of(table) if batches is None else batches
    return verify_game(
        facts or facts_of(table), table.host.secret if secret is None else secret,
        batches, len(table.host.batches), HOST,
    )


def first(table: Table, kind: type[Action], *, human: bool) -> Batch:
    """The first batch caused by an action of ``kind`` of a person (or of a host bot)."""
    keys = table.host.deal_facts()["keys"]
    for batch in table.host.batches:
        if isinstance(batch.action, kind) and (keys[batch.action.seat] is not None) == human:
            return batch
    raise AssertionError(f"no {kind.__name__} by a {'person' if human else 'bot'}")


def replaced(table: Table, batch: Batch, **changes: object) -> dict[int, Batch]:
    batches = batches_of(table)
    batches[batch.n] = dataclasses.replace(batch, **changes)  # type: ignore[arg-type]
    return batches


# -- online -------------------------------------------------------------------------------------


def test_every_peer_verifies_a_fair_game() -> None:
    table = finished()
    assert table.host.over
    for session in table.players:
        assert session.verdict == Verdict(True, f"{len(table.host.batches)} batches replayed "
                                          "from the seed")
        assert session.secret == table.host.secret
        assert commitment(session.secret) == table.host.commit
    assert sorted(table.host.verdicts) == ["seat 0", "seat 1"]
    assert all(v["ok"] for v in table.host.verdicts.values())
    assert check(table).ok


def test_the_seed_is_the_documented_hash() -> None:
    table = finished()
    facts = table.host.deal_facts()
    expected = hashlib.sha256(
        b"sstacks-deal" + table.host.secret + b"".join(facts["entropies"])
    ).digest()
    assert deal_seed(table.host.secret, facts["entropies"]) == expected


def test_each_seat_verifies_its_own_redacted_stream() -> None:
    table = finished()
    for seat in range(3):
        batches = {n: b.redacted_for(seat) for n, b in batches_of(table).items()}
        verdict = verify_game(facts_of(table), table.host.secret, batches,
                              len(batches), seat)
        assert verdict.ok, (seat, verdict)
        # ... and the host's full stream does not pass for a seat's.
        if seat == 0:
            full = verify_game(facts_of(table), table.host.secret, batches_of(table),
                               len(batches), seat)
            assert not full.ok


# -- tampering -------------------------------------------------------------------------------


def test_a_wrong_secret_breaks_the_commitment() -> None:
    table = finished()
    verdict = check(table, secret=derive(0, "not the secret"))
    assert not verdict.ok and "commitment" in verdict.detail


def test_a_secret_that_matches_a_forged_commitment_gives_another_deal() -> None:
    table = finished()
    other = derive(0, "another secret")
    facts = dataclasses.replace(facts_of(table), commit=commitment(other))
    verdict = check(table, facts=facts, secret=other)
    assert not verdict.ok and "deal" in verdict.detail


def test_changed_entropy_gives_another_deal() -> None:
    table = finished()
    facts = facts_of(table)
    facts = dataclasses.replace(facts, entropies=(b"\0" * 32, *facts.entropies[1:]))
    verdict = check(table, facts=facts)
    assert not verdict.ok and "deal" in verdict.detail


def test_a_changed_event_fails() -> None:
    table = finished()
    batch = next(b for b in table.host.batches if any(isinstance(e, CardsDrawn)
                                                       for e in b.events) and b.n > 1)
    events = tuple(
        dataclasses.replace(e, cards=tuple(reversed(e.cards)) if len(e.cards) > 1
                            else (e.cards[0] ^ 1,))
        if isinstance(e, CardsDrawn) else e
        for e in batch.events
    )
    verdict = check(table, replaced(table, batch, events=events))
    assert not verdict.ok and f"batch {batch.n}" in verdict.detail


def test_a_dropped_or_added_event_fails() -> None:
    table = finished()
    batch = next(b for b in table.host.batches if any(isinstance(e, ChipAwarded)
                                                       for e in b.events))
    fewer = tuple(e for e in batch.events if not isinstance(e, ChipAwarded))
    assert not check(table, replaced(table, batch, events=fewer)).ok
    more = (*batch.events, ChipAwarded(0, Colour.RED))
    assert not check(table, replaced(table, batch, events=more)).ok


def test_a_changed_hash_fails() -> None:
    table = finished()
    batch = table.host.batches[5]
    verdict = check(table, replaced(table, batch, hash="0" * 32))
    assert not verdict.ok and "hash" in verdict.detail


def test_a_missing_batch_fails() -> None:
    table = finished()
    batches = batches_of(table)
    del batches[7]
    verdict = check(table, batches)
    assert not verdict.ok and "missing" in verdict.detail


def test_a_changed_bot_action_fails() -> None:
    table = finished()
    batch = first(table, Discard, human=False)
    assert isinstance(batch.action, Discard)
    card = next(e.card for e in batch.events if isinstance(e, CardDiscarded))
    assert card == batch.action.card
    changed = Discard(batch.action.seat, card ^ 1)  # the events say the other card went
    verdict = check(table, replaced(table, batch, action=changed))
    assert not verdict.ok and (f"batch {batch.n}" in verdict.detail
                               or "replay failed" in verdict.detail), verdict


def test_a_persons_action_without_its_proof_fails() -> None:
    table = finished()
    batch = first(table, PlayCard, human=True)
    verdict = check(table, replaced(table, batch, proof=None))
    assert not verdict.ok and "no signed proof" in verdict.detail


def test_a_proof_signed_by_another_key_fails() -> None:
    table = finished()
    batch = first(table, PlayCard, human=True)
    assert batch.action is not None
    body = {"action": batch.action.to_wire(), "at": batch.n - 1}
    forged = encode(Identity.generate(), Sequencer(), "action", TABLE, body)
    verdict = check(table, replaced(table, batch, proof=forged))
    assert not verdict.ok and "not signed by seat" in verdict.detail


def test_a_proof_of_another_action_or_table_fails() -> None:
    table = finished()
    batch = first(table, PlayCard, human=True)
    other = first(table, Discard, human=True)
    assert batch.action is not None and other.action is not None
    seat = batch.action.seat
    person = next(s for s in table.players if s.seat == seat).identity
    wrong_action = encode(person, Sequencer(), "action", TABLE,
                          {"action": other.action.to_wire(), "at": 0})
    wrong_table = encode(person, Sequencer(), "action", "t2",
                         {"action": batch.action.to_wire(), "at": 0})
    for proof in (wrong_action, wrong_table, b"garbage", other.proof):
        verdict = check(table, replaced(table, batch, proof=proof))
        assert not verdict.ok, proof


def test_an_unfinished_game_does_not_verify() -> None:
    table = finished()
    batches = batches_of(table)
    total = len(batches) - 1
    del batches[total + 1]
    verdict = verify_game(facts_of(table), table.host.secret, batches, total, HOST)
    assert not verdict.ok and "did not end" in verdict.detail


# -- records ----------------------------------------------------------------------------------


def test_record_round_trip(tmp_path: Path) -> None:
    table = finished()
    path = tmp_path / "games" / "game.json"
    write_record(path, table.host.record())
    assert not list(path.parent.glob("*.tmp"))
    record = read_record(path)
    assert record["secret"] == table.host.secret
    assert record["keys"][2] is None  # the host's bot
    assert verify_record(record).ok, verify_record(record)
    assert [b["n"] for b in record["batches"]] == list(range(1, len(table.host.batches) + 1))
    assert record["outcome"]["winner"] == table.state.outcome.winner  # type: ignore[union-attr]


def test_a_record_from_before_commit_then_reveal_still_verifies(tmp_path: Path) -> None:
    verdict = _tampered(tmp_path, "old record")
    assert verdict.ok, verdict


def test_a_record_from_before_the_reveal_commitments_were_kept_still_verifies(
        tmp_path: Path) -> None:
    assert finished().host.record()["reveal_commits"] is not None
    verdict = _tampered(tmp_path, "no reveal commitments")
    assert verdict.ok, verdict


def _tampered(tmp_path: Path, change: str) -> Verdict:
    table = finished()
    path = tmp_path / "game.json"
    write_record(path, table.host.record())
    data = json.loads(path.read_text())
    if change == "secret":
        data["secret"] = {"hex": "00" * 32}
    elif change == "winner":
        winner = data["outcome"]["winner"]
        data["outcome"]["winner"] = (winner + 1) % 3 if winner is not None else 0
    elif change == "event":
        batch = next(b for b in data["batches"] if b["n"] > 1 and any(
            e["type"] == "drawn" for e in b["events"]))
        event = next(e for e in batch["events"] if e["type"] == "drawn")
        event["cards"][0] ^= 1
    elif change == "hash":
        data["batches"][3]["hash"] = "f" * 32
    elif change == "proof":
        batch = next(b for b in data["batches"] if b["proof"] is not None)
        batch["proof"] = None
    elif change == "truncated":
        data["batches"] = data["batches"][:-3]
    elif change == "entropy":
        data["entropies"][0] = {"hex": "11" * 32}
    elif change in ("entropy and commitment", "entropy and both commitments"):
        # A seat dealt with another entropy, its commitment changed to match it (after the
        # reveal round: the record's reveal_commits still say the old one, unless the
        # record was rewritten there too).
        data["entropies"][0] = {"hex": "11" * 32}
        data["entropy_commits"][0] = {"hex": entropy_commitment(b"\x11" * 32).hex()}
        if change == "entropy and both commitments":
            data["reveal_commits"][0] = data["entropy_commits"][0]
    elif change == "reveal commitments":
        data["reveal_commits"][1] = {"hex": "22" * 32}
    elif change == "no reveal commitments":  # before they were kept
        del data["reveal_commits"]
    elif change == "bot entropy":
        data["entropies"][2] = {"hex": "11" * 32}
    elif change == "old record":  # before commit-then-reveal: no commitments, same deal
        del data["entropy_commits"]
        del data["reveal_commits"]
    elif change == "keys":
        data["keys"][0] = {"hex": Identity.generate().key.hex()}
    elif change == "unfinished":
        data["secret"] = None
    elif change == "no batches":
        data["batches"] = []
    elif change == "rules":
        data["rules"]["hand_size"] = 6
    path.write_text(json.dumps(data))
    return verify_record(read_record(path))


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ("secret", "commitment"),
        ("winner", "outcome"),
        ("event", "events differ"),
        ("hash", "hash differs"),
        ("proof", "no signed proof"),
        ("truncated", "did not end"),
        ("entropy", "does not match the commitment it joined with"),
        ("entropy and commitment", "the host changed a commitment after the reveal (seat 0)"),
        ("entropy and both commitments", "deal differs"),
        ("reveal commitments", "the host changed a commitment after the reveal (seat 1)"),
        ("bot entropy", "not the one the host's secret fixes"),
        ("keys", "not signed by seat 0"),
        ("unfinished", "no revealed secret"),
        ("rules", "deal differs"),
        ("no batches", "no batches"),
    ],
)
def test_a_tampered_record_does_not_verify(change: str, detail: str, tmp_path: Path) -> None:
    verdict = _tampered(tmp_path, change)
    assert not verdict.ok and detail in verdict.detail, verdict


def test_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{}")
    with pytest.raises(ValueError):
        read_record(path)
    path.write_text("not json")
    with pytest.raises(ValueError):
        read_record(path)
    with pytest.raises(ValueError):
        read_record(tmp_path / "missing.json")


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.pop("players"),
        lambda d: d.update(rules={"hand_size": "five"}),
        lambda d: d.update(batches=[{"n": 1}]),
        lambda d: d.update(batches=[{"n": 0, "events": [], "hash": "0" * 32}]),
        lambda d: d.update(keys=None),
    ],
)
def test_a_malformed_record_is_not_verified_and_does_not_crash(
    damage: object, tmp_path: Path
) -> None:
    table = finished()
    path = tmp_path / "game.json"
    write_record(path, table.host.record())
    data = read_record(path)
    damage(data)  # type: ignore[operator]
    verdict = verify_record(data)
    assert not verdict.ok


def test_a_record_written_to_a_device_leaves_the_device_alone(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_record(fifo, {"format": "sequence-stacks-record", "table": "t"})
    reader.join(10)
    assert not fifo.is_file() and stat.S_ISFIFO(fifo.stat().st_mode)
    assert '"sequence-stacks-record"' in received[0]


# -- the dealer (A26) ---------------------------------------------------------------------------


def test_a_passed_on_dealer_deals_and_every_peer_and_the_record_verify_it(tmp_path: Path) -> None:
    table = Table(3, bots=("greedy",), seed=52, rules=SHORT, dealer=2)
    table.run_to_end()
    game = table.host.game
    assert game is not None
    assert game.state.dealer == 2
    assert table.host.deal_facts()["dealer"] == 2
    assert all(session.verdict is not None and session.verdict.ok for session in table.players)
    path = tmp_path / "game.json"
    write_record(path, table.host.record())
    assert verify_record(read_record(path)).ok
    # A record that names another dealer does not replay to the same events.
    record = read_record(path)
    record["dealer"] = 0
    assert not verify_record(record).ok
    record["dealer"] = "north"
    assert not verify_record(record).ok


def test_without_a_passed_on_dealer_it_is_drawn_from_the_seed() -> None:
    table = finished()
    assert table.host.deal_facts()["dealer"] is None
    facts = facts_of(table)
    assert facts.dealer is None and check(table).ok
    game = table.host.game
    assert game is not None
    # The same seed with another stated dealer is not the game that was played.
    drawn = game.state.dealer
    other = dataclasses.replace(facts, dealer=(drawn + 1) % 3)
    assert not check(table, facts=other).ok

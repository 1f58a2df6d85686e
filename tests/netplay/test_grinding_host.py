"""Commitments bind: a host with a sock-puppet seat can't choose the deal.

The grinding host holds its puppet's reveal until the honest reveals are in, then tries
entropies for the puppet, keeps the deal that gives the puppet the most Blocks, swaps in
that entropy's commitment and deals. Every commitment then matches its entropy, and the
honest seat is dealt with the entropy it revealed: only the commitments of the reveal round
tell. The honest player, a spectator and ``stacks verify`` compare them with the start's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.state import Seat
from netplay.entropy import COMMIT, REVEAL, REVEAL_WAIT, bot_entropy, entropy_commitment
from netplay.host import HostSession
from netplay.journal import Entry
from netplay.player import PlayerSession
from netplay.record import verify_record, write_record
from netplay.verify import Verdict, deal_seed

from .harness import SHORT, Session, Table, blocks_in_hand, derive, observe
from .test_journal import _crash_and_resume, _journaled

ROOT = Path(__file__).resolve().parents[2]
CHANGED = "the host changed a commitment after the reveal"


class GrindingHost(HostSession):
    """A real host with a sock-puppet at seat :attr:`puppet`: it holds the puppet's reveal,
    and once every honest reveal is in it tries :attr:`tries` entropies for the puppet,
    keeps the one whose deal gives the puppet the most Blocks over the best honest hand,
    gives the puppet that entropy and its commitment, and deals. :attr:`how` is how it
    covers its tracks: ``swap`` (nothing more), ``relist`` (a reveal round listing the
    swapped commitment first), ``void`` (a commit round first, as if the round were void,
    so the honest players commit afresh and forget), ``void-relist`` (both)."""

    puppet: Seat = 1
    tries = 200
    how = "swap"
    salt = "grind"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held_reveal: bytes | None = None
        self.fair_score: int | None = None
        """The puppet's Blocks over the best honest hand with its own (fair) entropy."""
        self.best_score: int | None = None
        """... with the entropy the host chose."""
        self.blocks: tuple[int, int] | None = None
        """Blocks dealt to the puppet and to the best honest hand, in the chosen deal."""

    def _entropy(self, key: bytes, body: dict[str, Any], raw: bytes) -> None:
        if self.seat_of(key) == self.puppet and self.round.phase == REVEAL and self.game is None:
            self.held_reveal = body.get("entropy")  # held: its host knows it anyway
        else:
            super()._entropy(key, body, raw)
        if self.game is None and self.round.phase == REVEAL and self.held_reveal is not None \
                and self.round.waiting == {self.puppet}:
            self._grind()

    def _score(self, entropies: list[bytes], entropy: bytes) -> tuple[int, int, int]:
        entropies[self.puppet] = entropy
        game = self.definition.new_game(
            self.settings.players, deal_seed(self.secret, entropies), self.settings.rules,
            self.settings.dealer)
        mine = len(blocks_in_hand(game.state, self.puppet))
        theirs = max(len(blocks_in_hand(game.state, s))
                     for s in range(self.settings.players) if s != self.puppet)
        return mine - theirs, mine, theirs

    def _grind(self) -> None:
        info = self.seats[self.puppet]
        assert info is not None and self.held_reveal is not None
        entropies = [seat.entropy if seat else b"" for seat in self.seats]
        self.fair_score = self._score(entropies, self.held_reveal)[0]
        candidates = [derive(self.tries, f"{self.salt}/{i}") for i in range(self.tries)]
        best = max(candidates, key=lambda e: self._score(entropies, e)[0])
        self.best_score, mine, theirs = self._score(entropies, best)
        self.blocks = (mine, theirs)
        info.entropy, info.commit = best, entropy_commitment(best)
        honest = [s for s, seat in enumerate(self.seats)
                  if seat is not None and not seat.is_bot and s != self.puppet]
        if self.how.startswith("void"):
            self.stream.to_everyone("entropy_round", {
                "round": self.round.number + 1, "phase": COMMIT, "held": [],
                "commits": [None if s in honest else seat.commit if seat else None
                            for s, seat in enumerate(self.seats)]})
        if self.how.endswith("relist"):  # the same round again, or the one after the void
            self.stream.to_everyone("entropy_round", {
                "round": self.round.number + (2 if self.how.startswith("void") else 0),
                "phase": REVEAL, "held": [],
                "commits": [seat.commit if seat else None for seat in self.seats]})
        self.round.waiting.clear()
        self.round.phase = self.round.deadline = None
        self.start_game()


def grinding_table(seed: int, *, how: str = "swap", tries: int = 200,
                   spectator: bool = True) -> tuple[Table, PlayerSession, PlayerSession | None]:
    """Seat 0 honest, seat 1 the host's puppet (it plays; its verdict is the host's
    business), a spectator; the game played to its end."""
    table = Table(2, seed=seed, rules=SHORT, join=False, host_class=GrindingHost)
    host = table.host
    assert isinstance(host, GrindingHost)
    host.how, host.tries = how, tries
    watcher = table.add_player("watcher", watch=True) if spectator else None
    honest = table.add_player("honest")
    table.add_player("puppet")
    table.pump()
    assert host.game is not None and host.best_score is not None
    table.run_to_end()
    return table, honest, watcher


def _stacks_verify(record: dict[str, Any], path: Path) -> subprocess.CompletedProcess[str]:
    write_record(path, record)
    return subprocess.run([sys.executable, "-m", "stacks", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


def _rounds(table: Table) -> list[dict[str, Any]]:
    """The entropy rounds the host published to the seats (``table``), in order."""
    return [f.body for t, p in table.broker.log if t == table.topics.table_stream and p
            and (f := observe(p)).type == "entropy_round"]


# -- the grinding host --------------------------------------------------------------------------


def test_a_grinding_host_is_caught_by_the_honest_player_and_by_stacks_verify(
        tmp_path: Path) -> None:
    table, honest, watcher = grinding_table(21, tries=2000)
    host = table.host
    assert isinstance(host, GrindingHost)
    # The grind worked: the deal is one the host chose among 2,000, better for its puppet
    # than the one its puppet's own entropy gave.
    assert host.best_score is not None and host.fair_score is not None
    assert host.best_score > host.fair_score, (host.best_score, host.fair_score)
    facts = host.deal_facts()
    # Every commitment matches its entropy, the honest seat is dealt with what it revealed:
    # only the commitments of the reveal round tell.
    assert facts["entropies"][0] == honest.entropy
    assert facts["entropy_commits"][1] == entropy_commitment(facts["entropies"][1])
    assert _rounds(table)[-1]["commits"][1] != facts["entropy_commits"][1]
    caught = Verdict(False, f"{CHANGED} (seat 1)")
    assert honest.verdict == caught
    assert host.verdicts["seat 0"] == {"ok": False, "detail": caught.detail}
    assert watcher is not None and watcher.verdict == caught
    record = host.record()
    assert verify_record(record) == caught
    run = _stacks_verify(record, tmp_path / "ground.json")
    assert run.returncode == 1, run
    assert f"NOT verified: {CHANGED} (seat 1)" in run.stdout


@pytest.mark.parametrize("how", ["relist", "void", "void-relist"])
def test_a_grinding_host_that_covers_its_tracks_is_caught_by_the_honest_player(how: str) -> None:
    # It lists the swapped commitment in a reveal round of its own (the honest player does
    # not reveal again for it), or first asks everyone for fresh commitments as if the
    # round were void (the honest player remembers what it revealed, and with which
    # commitments), then deals with the honest player's first entropy.
    table, honest, watcher = grinding_table(22, how=how)
    host = table.host
    assert isinstance(host, GrindingHost) and host.how == how
    assert host.deal_facts()["entropies"][0] != honest.entropy or how == "relist"
    assert honest.verdict == Verdict(False, f"{CHANGED} (seat 1)")
    assert host.verdicts["seat 0"]["ok"] is False
    assert verify_record(host.record()) == Verdict(False, f"{CHANGED} (seat 1)")
    reveals = [o for t, p in table.broker.log if t == table.out_topic(honest)
               for o in [observe(p)] if o.type == "entropy" and "entropy" in o.body]
    assert len(reveals) == 1  # it revealed once, in the round that listed the puppet's own
    if how == "relist":
        # A spectator keeps the first reveal round it heard of a round number (it may have
        # missed a void, so a higher number replaces it: its check is the weaker one).
        assert watcher is not None and watcher.verdict == Verdict(False, f"{CHANGED} (seat 1)")


@pytest.mark.slow
def test_grinding_host_trials() -> None:
    """The grinding host, game after game, each way it covers its tracks: every attempt
    is caught by the honest player (and by the record check)."""
    games, tries = 100, 300
    ways = ("swap", "relist", "void", "void-relist")
    tried = caught = recorded = improved = 0
    for game in range(games):
        table, honest, _ = grinding_table(1000 + game, how=ways[game % len(ways)],
                                          tries=tries, spectator=False)
        host = table.host
        assert isinstance(host, GrindingHost)
        assert host.best_score is not None and host.fair_score is not None
        tried += 1
        improved += host.best_score > host.fair_score
        assert honest.verdict is not None
        caught += not honest.verdict.ok and CHANGED in honest.verdict.detail
        recorded += not verify_record(host.record()).ok
    print(f"\ngrinding host: {caught}/{tried} attempts caught by the honest player, "
          f"{recorded}/{tried} by stacks verify ({tries} candidate deals each; the grind "
          f"found a better deal for the puppet in {improved})")
    assert caught == tried == games and recorded == tried


# -- honest tables ----------------------------------------------------------------------------


def test_an_honest_game_records_the_reveal_rounds_commitments_and_verifies() -> None:
    table = Table(3, bots=("greedy",), seed=23, rules=SHORT)
    watcher = table.add_player("watcher", watch=True)
    table.run_to_end()
    record = table.host.record()
    [reveal] = [r for r in _rounds(table) if r["phase"] == REVEAL]
    assert record["reveal_commits"] == reveal["commits"] == record["entropy_commits"]
    assert record["reveal_commits"][2] is None  # the host's bot
    assert verify_record(record).ok
    for session in [*table.players, watcher]:
        assert session.verdict is not None and session.verdict.ok, session.name


def _away_at_the_reveal(seed: int, *, watch: bool = False) -> tuple[Table, PlayerSession]:
    """Three seats; the last player to sit is away (frozen: no heartbeats, and it does not
    hear the entropy rounds) when the reveal round comes, which waits for it. With
    ``watch``, a spectator "watcher" follows from the start."""
    table = Table(3, seed=seed, rules=SHORT, join=False)
    if watch:
        table.add_player("watcher", watch=True)
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    away = table.add_player("p2")
    table.peer(away).paused = True  # no heartbeats: away 5 s after it joined
    table.filters.append(lambda receiver, _, payload: receiver is away
                         and observe(payload).type == "entropy_round")
    table.pump()
    assert table.host.round.phase == REVEAL and table.host.round.waiting == {2}
    return table, away


def _wait_out_the_reveal(table: Table) -> None:
    """Second by second until the reveal round's wait is over (and no further)."""
    for _ in range(int(REVEAL_WAIT) + 2):
        table.advance(1)
        if table.host.round.phase != REVEAL or table.host.round.number > 0:
            return


def test_a_seat_away_at_the_reveal_is_held_and_the_others_commit_afresh_first() -> None:
    table, away = _away_at_the_reveal(24)
    first = _rounds(table)[0]["commits"]
    _wait_out_the_reveal(table)
    host = table.host
    assert host.game is not None
    rounds = _rounds(table)
    # The away seat is held before anyone reveals again: the others commit to fresh
    # entropy (their first one was seen), then a reveal round lists the held seat as null.
    assert [r["phase"] for r in rounds] == [REVEAL, COMMIT, REVEAL]
    assert [r["held"] for r in rounds] == [[], [2], [2]]
    facts = host.deal_facts()
    assert facts["entropy_commits"] == rounds[-1]["commits"] == host.reveal_commits
    assert facts["entropy_commits"][2] is None
    assert facts["entropies"][2] == bot_entropy(host.secret, 2)
    for seat in (0, 1):
        assert facts["entropy_commits"][seat] != first[seat]  # fresh
        assert facts["entropies"][seat] == table.at_seat(seat).entropy
    # The held player's program starts again mid-game and takes its seat back.
    table.remove(away)
    back = table.add_player("p2", identity=away.identity)
    table.pump()
    assert back.seat == 2
    table.run_to_end()
    for session in table.players:
        assert session.verdict is not None and session.verdict.ok, (session.name,
                                                                    session.verdict)
    assert verify_record(host.record()).ok


def test_a_spectator_that_missed_the_void_round_still_verifies_the_honest_deal() -> None:
    # Its connection drops just as the others are asked for fresh commitments: it hears
    # the first reveal round and the one after the void, not the void itself.
    table, _ = _away_at_the_reveal(31, watch=True)
    watcher = table.players[0]
    assert watcher.watch
    table.filters.append(lambda receiver, _, payload: receiver is watcher and (
        (f := observe(payload)).type == "entropy_round" and f.body["phase"] == COMMIT))
    _wait_out_the_reveal(table)
    assert [r["phase"] for r in _rounds(table)] == [REVEAL, COMMIT, REVEAL]
    table.run_to_end()
    assert watcher.verdict is not None and watcher.verdict.ok, watcher.verdict


def _hold_commits_of(table: Table, session: PlayerSession) -> list[tuple[str, bytes]]:
    """Hold back ``session``'s commitments to the host; returns the list they are kept in
    (topic, payload), to be handed to the host later."""
    held: list[tuple[str, bytes]] = []

    def commits(receiver: Session, topic: str, payload: bytes) -> bool:
        if receiver is table.host and topic == table.out_topic(session):
            frame = table.read(topic, payload)
            if frame.type == "entropy" and "commit" in frame.body:
                held.append((topic, payload))
                return True
        return False

    table.filters.append(commits)
    return held


def test_a_held_player_back_while_the_others_commit_is_dealt_in_again() -> None:
    table, away = _away_at_the_reveal(25)
    slow = table.at_seat(1)
    held = _hold_commits_of(table, slow)  # the commit phase stays open
    _wait_out_the_reveal(table)
    host = table.host
    assert host.game is None and host.round.phase == COMMIT
    seat = host.seats[2]
    assert seat is not None and seat.held
    # The away player's program starts again: its join commits to its entropy.
    table.remove(away)
    back = table.add_player("p2", identity=away.identity)
    table.pump()
    assert not seat.held and seat.commit == entropy_commitment(back.entropy)
    table.filters.clear()
    for topic, payload in held:
        table.to_host(payload, topic)
    assert host.game is not None
    facts = host.deal_facts()
    assert facts["entropies"][2] == back.entropy
    assert facts["entropy_commits"] == _rounds(table)[-1]["commits"] == host.reveal_commits
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players)


def test_a_host_that_holds_a_seat_whose_player_revealed_is_caught_by_that_player() -> None:
    # Holding a seat voids the round: the others commit afresh, so a host that held a
    # present player's seat after its reveal could then grind a puppet's fresh entropy
    # against a deal it knows whole. The player who revealed says so.
    table = Table(2, seed=26, rules=SHORT, join=False)
    host = table.host
    victim = table.add_player("victim")
    deal, take = host.start_game, host._entropy
    held = False

    def deaf_to_the_victim(key: bytes, body: dict[str, Any], raw: bytes) -> None:
        if not held or key != victim.identity.key:
            take(key, body, raw)  # ... which its fresh commitment would free again

    def cheat() -> None:
        nonlocal held
        if not held:
            held = True
            host.journal.append({"t": "hold", "seats": [0]})
            host.deal.deal_without([0])
            host.deal.seats_full()
            return
        deal()

    host.start_game = cheat  # type: ignore[method-assign]
    host._entropy = deaf_to_the_victim  # type: ignore[method-assign]
    table.add_player("p1")
    table.pump()
    assert host.game is not None and host.deal_facts()["entropy_commits"][0] is None
    table.run_to_end()
    assert victim.verdict is not None and not victim.verdict.ok
    assert "by its own secret, as if its player were away, after this player revealed" \
        in victim.verdict.detail


# -- a host resumed from its journal ------------------------------------------------------------


def test_a_host_resumed_after_a_hold_keeps_it_and_the_game_verifies() -> None:
    table, away = _away_at_the_reveal(27)
    entries: list[Entry] = []
    # The journal from the start: the entries written so far, then those to come.
    entries.extend(table.host.journal_to_write())
    more = _journaled(table)
    _hold_commits_of(table, table.at_seat(1))  # lost with the host that dies now
    _wait_out_the_reveal(table)
    assert table.host.round.phase == COMMIT and table.host.game is None
    entries.extend(more)
    assert [e["t"] for e in entries].count("hold") == 1
    new = _crash_and_resume(table, entries)
    seat = new.seats[2]
    assert seat is not None and seat.held and seat.commit is None
    assert new.round.phase == COMMIT
    table.filters.clear()
    table.flush()
    table.pump()
    assert new.game is not None
    facts = new.deal_facts()
    assert facts["entropy_commits"][2] is None
    assert facts["entropy_commits"] == _rounds(table)[-1]["commits"] == new.reveal_commits
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players
               if s is not away)
    assert verify_record(new.record()).ok


def test_a_host_resumed_after_the_reveals_records_the_same_commitments() -> None:
    table = Table(2, seed=28, rules=SHORT, join=False)
    entries = _journaled(table)
    table.add_player("p0")
    table.add_player("p1")
    table.pump()
    old = table.host
    assert old.reveal_commits is not None
    revealed = {s.name: s.entropy for s in table.players}
    table.run(lambda: len(old.batches) >= 6)
    new = _crash_and_resume(table, entries)
    assert new.reveal_commits == old.reveal_commits
    table.flush()
    table.pump()
    # Joining again before the deal, a player never commits to an entropy it revealed;
    # after it, its join changes nothing.
    assert {s.name: s.entropy for s in table.players} == revealed
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in table.players)
    record = new.record()
    assert record["reveal_commits"] == record["entropy_commits"]
    assert verify_record(record).ok


def test_a_player_joining_a_restarted_host_before_the_deal_commits_to_fresh_entropy() -> None:
    # ana revealed; the host dies before bo's reveal reached it, and comes back: ana joins
    # again with a fresh commitment (the old entropy was seen), the host still deals with
    # the entropy she revealed, and she checks the start against the round she revealed in.
    table = Table(2, seed=29, rules=SHORT, join=False)
    entries = _journaled(table)
    ana = table.add_player("ana")
    bo = table.add_player("bo")
    table.filters.append(lambda receiver, topic, payload: receiver is table.host
                         and topic == table.out_topic(bo)
                         and observe(payload).type == "entropy")
    table.pump()
    first = ana.entropy
    assert table.host.game is None and table.host.round.waiting == {1}
    new = _crash_and_resume(table, entries)
    table.filters.clear()
    table.flush()
    table.pump()
    assert ana.entropy != first  # its join committed to fresh entropy
    table.tick()
    assert new.game is not None
    assert new.deal_facts()["entropies"][0] == first  # dealt with what she revealed
    table.run_to_end()
    assert all(s.verdict is not None and s.verdict.ok for s in (ana, bo))


def test_an_old_journal_whose_away_seat_was_dealt_at_once_still_resumes() -> None:
    # Before holds, a host dealt an away seat at the reveal's end with the entropy its
    # secret fixes, journaled as a null commitment: such a journal still resumes.
    table, _ = _away_at_the_reveal(30)
    entries: list[Entry] = list(table.host.journal_to_write())
    more = _journaled(table)
    _wait_out_the_reveal(table)
    table.run(lambda: len(table.host.batches) >= 4)
    entries.extend(more)
    kinds = [e["t"] for e in entries]
    hold = kinds.index("hold")
    # The old shape: the reveals of the round that dealt, then the null commitment.
    old: list[Entry] = [e for e in entries[:hold] if e["t"] != "reveal"]
    after = entries[hold + 1:]
    start = next(i for i, e in enumerate(after) if e["t"] == "start")
    old += [*after[:start], {"t": "commit", "seat": 2, "commit": None}, *after[start:]]
    before = table.host
    new = _crash_and_resume(table, old)
    assert [b.to_body() for b in new.batches] == [b.to_body() for b in before.batches]
    seat = new.seats[2]
    assert seat is not None and seat.held and seat.entropy == bot_entropy(new.secret, 2)
    assert new.reveal_commits == new.deal_facts()["entropy_commits"]

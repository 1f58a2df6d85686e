"""The deal's commit and reveal rounds (:class:`DealRounds`, ``netplay.entropy``): once every
seat is taken, each player commits to fresh entropy, then reveals it; the deal's seed is
derived from the host's secret and every seat's entropy. A seat that fails a round is
freed (the round is void: everyone commits afresh); a seat whose player is away at the
reveal is held (dealt without them, its entropy fixed by the host's commitment).

No I/O: frames and journal entries go through the table (:class:`DealTable`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from engine.state import Seat
from netplay.entropy import COMMIT, REVEAL, DealRound, bot_entropy, entropy_commitment
from netplay.errors import FrameError
from netplay.hosting.journal import HostJournal
from netplay.hosting.presence import Presence
from netplay.hosting.seats import SeatInfo, Seating
from netplay.hosting.settings import HostSettings
from netplay.hosting.state import TableState
from netplay.hosting.stream import SpectatorStream
from netplay.identity import peer_id
from netplay.journal import Entry, JournalError
from netplay.messages import key_bytes, required
from netplay.topics import Topics
from netplay.wire import Sender

log = logging.getLogger("netplay.host")

ROUND_AGAIN = 2.0
"""Seconds between the deal's rounds sent again to a seat the round still waits for whose
heartbeats come (the round, or its answer, was lost), and after the round went out to
everyone (a beat that crossed it)."""


class DealTable(Protocol):
    now: float
    secret: bytes
    seating: Seating
    state: TableState
    journal: HostJournal
    presence: Presence
    sender: Sender
    topics: Topics
    stream: SpectatorStream

    def start_game(self) -> None: ...
    def announce(self) -> None: ...


class DealRounds:
    """The round under way (:attr:`round`) and the commitments the reveal listed."""

    def __init__(self, table: DealTable) -> None:
        self.table = table
        self.round = DealRound()
        self.reveal_commits: list[bytes | None] | None = None
        """Per seat, the commitments the reveal round listed (``None`` before one): the
        start carries exactly these (``netplay.entropy.check_commitments``), and so does
        the record."""

    def next_deadline(self, now: float) -> float | None:
        return self.round.deadline

    def tick(self, now: float) -> None:
        if self.round.deadline is not None and now >= self.round.deadline:
            self._timeout()

    def commit(self, seat: Seat, info: SeatInfo, commit: bytes) -> None:
        """A player's commitment, taken while nobody reveals (journaled)."""
        info.commit, info.held = commit, False
        info.entropy = b""
        self.round.waiting.discard(seat)
        self.table.journal.append({"t": "commit", "seat": seat, "commit": commit})

    def drop_commitments(self) -> None:
        """The round is void: every player's entropy may have been seen, so all commit to
        fresh entropy before anyone reveals again (a held seat stays held)."""
        for other in self.table.seating.seats:
            if other is not None and not other.is_bot and not other.held:
                other.commit, other.entropy = None, b""
        self.round.void()
        self.table.state.void_round()
        self.reveal_commits = None

    def seats_full(self) -> None:
        """Every seat taken: collect fresh commitments where needed, then every reveal."""
        table = self.table
        seats = table.seating.seats
        if table.state.started or not table.seating.full():
            return
        humans = table.seating.humans()
        if not humans:
            table.start_game()
            return
        fresh = {s for s in humans if seats[s].commit is None}  # type: ignore[union-attr]
        if fresh:
            self.reveal_commits = None
            self._begin(COMMIT, fresh)
        elif all(seats[s].entropy for s in humans):  # type: ignore[union-attr]
            table.start_game()  # a resumed table whose reveals were all in
            return
        else:
            self._begin(REVEAL, humans)
        self._send()

    def _begin(self, phase: str, seats: set[Seat]) -> None:
        self.round.begin(phase, seats, self.table.now)
        self.table.state.dealing()

    def _send(self) -> None:
        body = self.body()
        if self.round.phase == REVEAL and self.reveal_commits is None:
            # What the start must carry: no commitment changes once anyone can reveal.
            self.reveal_commits = body["commits"]
        self.table.stream.to_everyone("entropy_round", body)

    def facts(self, settings: HostSettings, commit: bytes) -> dict[str, Any]:
        """What every peer needs to follow and later verify the game: the seats as dealt
        (names, keys, entropies, commitments), the rules, the host's commitment."""
        seats = [info for info in self.table.seating.seats if info is not None]
        return {
            "game": settings.game,
            "players": settings.players,
            "rules": settings.rules.to_wire(),
            "names": [info.name for info in seats],
            "keys": [info.key for info in seats],
            # Each player's signed join (their name's proof, kept in records); none at
            # all when one is missing (a table resumed from an older journal).
            "joins": None if any(info.key is not None and info.joined is None
                                 for info in seats) else [info.joined for info in seats],
            "entropies": [info.entropy for info in seats],
            "entropy_commits": [info.commit for info in seats],
            "commit": commit,
            "dealer": settings.dealer,
        }

    def body(self) -> dict[str, Any]:
        seats = self.table.seating.seats
        return {
            "round": self.round.number, "phase": self.round.phase,
            "commits": [info.commit if info else None for info in seats],
            "held": [s for s, info in enumerate(seats) if info is not None and info.held],
        }

    def again(self, key: bytes) -> None:
        """A seat the deal's round waits for is still there (it beat): the round, or the
        seat's answer, may have been lost (a frame without a number: nothing else finds it
        missing, and the seat would lose its place when the round's time is up). The round
        goes again to that seat alone, on its own channel, at most every
        :data:`ROUND_AGAIN` seconds and not sooner than that after it went to everyone."""
        round_, table = self.round, self.table
        seat = table.seating.seat_of(key)
        if seat is None or seat not in round_.waiting or round_.phase is None \
                or round_.deadline is None:
            return
        if table.now - round_.again.get(seat, round_.began) < ROUND_AGAIN:
            return
        round_.again[seat] = table.now
        table.sender.send(table.topics.inbox(peer_id(key)), "entropy_round", self.body())

    def rejoined(self, seat: Seat, info: SeatInfo, commit: bytes) -> None:
        """A seated player joins again before the deal: a new process, new entropy, while
        nothing is revealed yet (a held seat is the player's again: nobody reveals before
        the next reveal round lists it)."""
        if not self.table.state.started and self.round.phase != REVEAL:
            self.commit(seat, info, commit)

    def entropy(self, key: bytes, body: dict[str, Any]) -> None:
        """A seat's ``entropy`` frame: its commitment, or its reveal."""
        table = self.table
        seat = table.seating.seat_of(key)
        if seat is None:
            raise FrameError("entropy from a peer without a seat")
        info = table.seating.seats[seat]
        assert info is not None
        round_ = self.round
        # A commit phase takes a commitment from any player (one whose rejoin committed
        # already, a held seat whose player is back): nobody reveals before it ends.
        if table.state.started or required(body, "round", int) != round_.number \
                or (seat not in round_.waiting and round_.phase != COMMIT) \
                or round_.phase is None:
            raise FrameError("entropy for no round the host is in")
        if round_.phase == COMMIT:
            self.commit(seat, info, key_bytes(body, "commit"))
        else:
            entropy = key_bytes(body, "entropy")
            if info.commit is None or entropy_commitment(entropy) != info.commit:
                log.warning("%s (seat %d) revealed an entropy that is not the one it "
                            "committed to: the round is void", info.name, seat)
                self.unseat(seat, "the seat revealed an entropy it had not committed to")
                return
            info.entropy = entropy
            table.journal.append({"t": "reveal", "seat": seat, "entropy": entropy})
        round_.waiting.discard(seat)
        self.phase_done()

    def phase_done(self) -> None:
        """Every commitment in: the reveal round; every reveal in: the deal."""
        round_, table = self.round, self.table
        if round_.waiting or round_.phase is None or table.state.started:
            return
        if round_.phase == COMMIT:
            self._begin(REVEAL, table.seating.humans())
            self._send()
        else:
            round_.phase = round_.deadline = None
            table.start_game()

    def _timeout(self) -> None:
        table = self.table
        late = sorted(self.round.waiting)
        what = "commit to" if self.round.phase == COMMIT else "reveal"
        away = [s for s in late if (info := table.seating.seats[s]) is not None
                and table.presence.away(info)]
        if away and len(away) == len(late) and self.round.phase == REVEAL:
            # A seat whose player is away is held: dealt without them, its entropy fixed by
            # the host's commitment like a bot's (commitment null in the start). Chosen now,
            # after the others revealed, it would be a choice made knowing their entropy:
            # the round is void, and the others commit afresh with the held seats fixed.
            table.journal.append({"t": "hold", "seats": away})
            self.deal_without(away)
            log.info("seats %s are away at the reveal: dealt without them; the others "
                     "commit to fresh entropy", away)
            self.seats_full()
            return
        for seat in late:
            self.unseat(seat, f"the seat did not {what} its entropy in time")
        if not late:
            self.round.deadline = None

    def unseat(self, seat: Seat, why: str) -> None:
        """Free a seat that failed the deal's commit-then-reveal; the round is void: every
        other player commits to fresh entropy once the seat is taken again."""
        table = self.table
        info = table.seating.seats[seat]
        assert info is not None and info.key is not None
        table.seating.seats[seat] = None
        table.journal.append({"t": "unseat", "seat": seat})
        table.sender.send(table.topics.inbox(peer_id(info.key)), "refused",
                          {"reason": f"you lost your seat before the deal: {why}"})
        table.stream.to_everyone("unseated", {"seat": seat, "name": info.name, "why": why})
        self.drop_commitments()
        table.announce()

    def deal_without(self, seats: Sequence[Seat]) -> None:
        """Hold ``seats`` (their players away at the reveal); the round is void."""
        for seat in seats:
            info = self.table.seating.seats[seat]
            assert info is not None
            info.held, info.commit = True, None
            info.entropy = bot_entropy(self.table.secret, seat)
        self.drop_commitments()

    def restore(self, entry: Entry) -> None:
        """A commitment, a reveal, a lost seat or held ones, as journaled."""
        seats = self.table.seating.seats
        if entry["t"] == "hold":
            held = entry["seats"]
            if not isinstance(held, list) or not held or any(
                    type(s) is not int or not 0 <= s < len(seats)
                    or (info := seats[s]) is None or info.is_bot for s in held):
                raise JournalError(f"a hold of seats {held!r}, not all held by players")
            self.deal_without(held)
            return
        seat = entry["seat"]
        info = seats[seat]
        if info is None:
            raise JournalError(f"a {entry['t']} of seat {seat}, which nobody holds")
        if entry["t"] == "commit":
            if entry["commit"] is None:
                # An older host dealt an away seat so straight away (now: a "hold" entry).
                info.held, info.commit = True, None
                info.entropy = bot_entropy(self.table.secret, seat)
            else:
                info.commit, info.held, info.entropy = entry["commit"], False, b""
        elif entry["t"] == "reveal":
            if info.commit is None or entropy_commitment(entry["entropy"]) != info.commit:
                raise JournalError(f"seat {seat}'s journaled reveal breaks its commitment")
            info.entropy = entry["entropy"]
        else:
            seats[seat] = None
            self.drop_commitments()

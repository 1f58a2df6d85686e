"""A returning player follows the host it joined, not a rogue: the profile remembers the
host key of each table where it joined a game not over yet (trust on first use, like
ssh's known_hosts), and a peer with a remembered key takes the table as pinned to it."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path

import pytest

from netplay.codec import TABLE_PROTOCOL
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.hosts import HostTrust, Trust, fingerprint
from netplay.identity import Identity
from netplay.known import KNOWN_FILE, KnownHosts
from netplay.memory import AsyncMemoryBroker
from netplay.player import PlayerSession
from netplay.player_peer import BotPeer
from netplay.playing.joining import SETTLE
from netplay.playing.notices import HostConflict, HostsDisagree, UnexpectedHost

from .harness import SHORT, TABLE, Table, forge


def _rogue_announcement() -> tuple[Identity, bytes]:
    rogue = Identity.from_seed(b"r" * 32)
    body = {"name": TABLE, "game": "sequence-stacks", "protocol": TABLE_PROTOCOL, "host": rogue.key,
            "players": 2, "seats": [None, None], "status": "lobby", "commit": bytes(32),
            "password": False, "block_window": 3.0, "rules": {}, "boot": b"b" * 8}
    return rogue, forge(rogue, "announce", body)


def _returning(table: Table, original: PlayerSession, *, remembered: bytes | None,
               settle: float = 0.0) -> PlayerSession:
    """The player's new process, started while the rogue's announcement is the retained
    one: it sees the rogue's first, the host's restored one next."""
    table.remove(original)
    _rogue, payload = _rogue_announcement()
    table.broker.publish(table.topics.announce, payload, True)  # not delivered yet
    back = table.add_player(original.name, identity=original.identity, start=False,
                            settle=settle)
    back.trust.remembered = remembered
    back.start(table.clock)
    table.pump()
    return back


def test_a_remembered_host_is_followed_and_a_rogue_seen_first_is_not() -> None:
    table = Table(2, seed=5)
    table.run(lambda: len(table.host.batches) >= 5)
    host = table.host_identity.key
    back = _returning(table, table.at_seat(0), remembered=host)
    assert back.joined and back.seat == 0 and back.host_key == host
    (said,) = table.notices_of(back, UnexpectedHost)
    rogue = Identity.from_seed(b"r" * 32).key
    assert said.other.key == rogue and said.expected == fingerprint(host)
    assert f"{TABLE}@{fingerprint(rogue)}" in said.words()  # how to override
    assert fingerprint(host) in said.words()
    assert not table.notices_of(back, HostConflict)
    # The rogue goes on re-publishing: never followed, said only once.
    _rogue, payload = _rogue_announcement()
    for _ in range(5):
        table.inject(table.topics.announce, payload, retain=True)
    assert back.host_key == host and len(table.notices_of(back, UnexpectedHost)) == 1
    table.run_to_end()
    table.assert_in_step([back, table.at_seat(1)])


def test_without_a_remembered_host_two_keys_before_a_welcome_make_the_user_choose() -> None:
    # A fresh process with nothing remembered, given the bare table name, sees the rogue's
    # announcement first and the host's restored one within its settle time. It once
    # followed the rogue (the first key seen) and never got its seat back: now it follows
    # neither, sends no join, and names both pins; the user's pick gets the seat back.
    table = Table(2, seed=5)
    table.run(lambda: len(table.host.batches) >= 5)
    original = table.at_seat(0)
    outbox = table.topics.outbox(original.peer_id)
    mark = len(table.broker.log)
    back = _returning(table, original, remembered=None, settle=SETTLE)
    host, rogue = table.host_identity.key, Identity.from_seed(b"r" * 32).key
    assert back.host_key is None and not back.joined
    (asked,) = table.notices_of(back, HostsDisagree)
    assert [claim.key for claim in asked.claims] == [rogue, host]
    assert asked.pins() == [f"{TABLE}@{fingerprint(rogue)}", f"{TABLE}@{fingerprint(host)}"]
    assert not table.notices_of(back, HostConflict)
    table.advance(SETTLE + 4.0)  # long past the settle time: still nobody followed
    assert back.host_key is None and not back.joined
    assert not any(topic == outbox for topic, _ in table.broker.log[mark:])  # no join went
    back.follow(host)
    table.pump()
    assert back.joined and back.seat == 0 and back.host_key == host
    _rogue, payload = _rogue_announcement()
    table.inject(table.topics.announce, payload, retain=True)  # chosen: a pin from now on
    assert back.host_key == host and len(table.notices_of(back, HostsDisagree)) == 1
    table.run_to_end()
    table.assert_in_step([back, table.at_seat(1)])


def test_a_malformed_announcement_seen_first_does_not_keep_the_real_host_out() -> None:
    # A signed announcement the session can't follow (no ``boot``) once left the trust
    # with the rogue's key while the session followed nobody: the real host's restored
    # announcement then failed as a "second host" (an internal error) every time.
    table = Table(2, seed=5)
    table.run(lambda: len(table.host.batches) >= 5)
    original = table.at_seat(0)
    table.remove(original)
    rogue = Identity.from_seed(b"r" * 32)
    body = {"name": TABLE, "host": rogue.key, "players": 2, "seats": [None, None],
            "status": "lobby"}
    table.broker.publish(table.topics.announce, forge(rogue, "announce", body), True)
    back = table.add_player("p0", identity=original.identity)
    table.pump()
    assert back.joined and back.seat == 0 and back.host_key == table.host_identity.key
    assert "internal error (logged)" not in back.dropped


def test_a_remembered_host_refuses_another_hosts_last_will() -> None:
    trust = HostTrust(remembered=b"h" * 32)
    assert not trust.expects(b"o" * 32) and trust.expects(b"h" * 32)
    other = Identity.from_seed(b"o" * 32)
    session = PlayerSession(Identity.generate(), TABLE, "p", 0.0,
                            remembered=Identity.from_seed(b"h" * 32).key)
    will = forge(other, "offline", {"host": other.key, "name": TABLE, "players": 2})
    session.receive(Table(2, join=False).topics.announce, will, 1.0)
    assert session.host_key is None and session.dropped


def test_a_remembered_key_is_a_pin_and_an_explicit_pin_still_wins() -> None:
    host, rogue = Identity.from_seed(b"h" * 32).key, Identity.from_seed(b"r" * 32).key
    trust = HostTrust(remembered=host)
    assert trust.consider(rogue, {"status": "lobby"}) is Trust.UNEXPECTED
    assert trust.consider(rogue, {"status": "lobby"}) is Trust.IGNORE  # said once
    assert trust.consider(host, {"status": "playing"}) is Trust.FOLLOW
    assert trust.consider(rogue, {"status": "lobby"}) is Trust.IGNORE
    # Even after the remembered host signed its close, no other key takes the table over.
    assert trust.consider(host, {"status": "closed"}) is Trust.FOLLOW
    assert trust.consider(Identity.from_seed(b"n" * 32).key, {"status": "lobby"}) \
        is Trust.UNEXPECTED


def test_the_file_is_written_atomically_read_back_and_forgotten(tmp_path: Path) -> None:
    key = Identity.from_seed(b"h" * 32).key
    known = KnownHosts(tmp_path)
    assert known.get("friday") is None
    known.remember("friday", key)
    path = tmp_path / KNOWN_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert os.listdir(tmp_path) == [KNOWN_FILE]  # no temporary file left behind
    assert json.loads(path.read_text())["tables"]["friday"]["fingerprint"] == fingerprint(key)
    assert KnownHosts(tmp_path).get("friday") == key  # a new process reads it back
    KnownHosts(tmp_path).forget("friday")
    assert KnownHosts(tmp_path).get("friday") is None
    path.write_text("{not json")
    assert KnownHosts(tmp_path).get("friday") is None  # damaged: nothing remembered


def test_an_explicit_pin_of_another_host_forgets_the_remembered_one(tmp_path: Path) -> None:
    known = KnownHosts(tmp_path)
    old, new = Identity.from_seed(b"h" * 32).key, Identity.from_seed(b"n" * 32).key
    known.remember("friday", old)
    bot = BotPeer(Identity.generate(), f"friday@{fingerprint(new)}",
                  broker=AsyncMemoryBroker(), known=known)
    assert bot.player.trust.remembered is None
    assert KnownHosts(tmp_path).get("friday") is None
    known.remember("friday", old)
    bot = BotPeer(Identity.generate(), "friday", broker=AsyncMemoryBroker(), known=known)
    assert bot.player.trust.remembered == old  # no pin: the remembered one holds


class _Recording(KnownHosts):
    """Known hosts that note, at each change, what a new process would read from the file."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.seen: list[tuple[str, bytes | None]] = []

    def remember(self, table: str, key: bytes, *, broker: str | None = None,
                 seated: bool = False) -> None:
        super().remember(table, key, broker=broker, seated=seated)
        self.seen.append(("remember", KnownHosts(self.path.parent).get(table)))

    def forget(self, table: str) -> None:
        super().forget(table)
        self.seen.append(("forget", KnownHosts(self.path.parent).get(table)))


@pytest.mark.asyncio
async def test_a_peer_remembers_its_host_from_the_welcome_until_its_verdict(
    tmp_path: Path,
) -> None:
    broker = AsyncMemoryBroker()
    settings = HostSettings(table="remember", players=2, bots=("easy",), rules=SHORT,
                            heartbeat=0.05, block_window=0.2)
    async with Host(settings, broker=broker) as host:
        key = host.host.identity.key
        known = _Recording(tmp_path)
        async with BotPeer(Identity.generate(), "remember", broker=broker, known=known) as bot:
            await asyncio.wait_for(bot.verified.wait(), 60.0)
            assert bot.player.verdict is not None and bot.player.verdict.ok
    assert known.seen[0] == ("remember", key)  # from the welcome on
    assert known.seen[-1] == ("forget", None)  # gone with the verdict
    assert KnownHosts(tmp_path).get("remember") is None


def test_the_seats_a_profile_holds_are_remembered_with_their_broker(tmp_path: Path) -> None:
    """What the menu offers back to a returning player: seated tables, with a broker."""
    known = KnownHosts(tmp_path)
    host = Identity.generate().key
    known.remember("duo", host)  # the welcome, before the seat is known
    known.remember("duo", host, broker="mqtt://10.0.0.2:1883", seated=True)
    known.remember("film", host, broker="mqtt://10.0.0.2:1883")  # watching
    known.remember("near", host, seated=True)  # an in-process broker: nowhere to look
    again = KnownHosts(tmp_path)  # a new process reads the file
    assert again.seats() == [("duo", host, "mqtt://10.0.0.2:1883")]
    again.forget("duo")
    assert KnownHosts(tmp_path).seats() == []

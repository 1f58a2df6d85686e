"""``stacks bench hostile``: a live table on its own Mosquitto, attacked by a rogue peer.

One run: a game without attack, the same table with a flood of 5,000 messages from a
rogue process (heartbeats and resyncs of a joined spectator that each would cost the
host a snapshot, joins from fresh keys, garbage), the same table with 5,000 fresh keys
of one rogue each joining as a spectator and asking for the history twice, and a hijack
of the table's retained announcement, and the same table while a rogue floods the
listing query with malformed nonces (``abcdefgh\n``...) and answers every lister with
announcements of malformed table names. It reports the game's duration and the longest
gap between public batches (as a spectator receives them) with and without the floods,
how long the host takes to put its announcement back, and how often the host lost its
link to the broker under the listing attack (each loss is the host's last will on its
announce topic, published by the broker; a host that took a newline into its reply topic
lost it hundreds of times a minute).

The hostile-peer tests (``tests/e2e/test_hostile.py``) run the same pieces.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import aiomqtt

from netplay.codec import TABLE_PROTOCOL, decode
from netplay.errors import FrameError
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.listing import QUERY, query_reply_topic
from netplay.lobby import list_tables
from netplay.names import is_table_name
from netplay.player_peer import BotPeer, Spectator
from netplay.playing.notices import Applied, Impostor
from netplay.topics import Topics
from netplay.wire import Sender
from stacks.rules_args import rule_words

THINK = 0.1
"""Seconds each bot thinks before it acts: a game of a few hundred batches lasts ~15 s."""
FLOODS = ("heartbeat", "resync", "join", "chat", "garbage", "mixed", "keys", "listing")
"""What the rogue can flood with (``stacks bench hostile --kind``); ``keys``: a third of
the messages are joins of fresh keys as spectators, then each key sends a heartbeat
``at: 0`` and a resync from batch 1 (budgets per key alone would let them all through);
``listing``: malformed nonces on the listing query (LISTING_NONCES in turn; every tenth
message on a malformed peer id's topic instead), while the rogue answers every lister's
query with announcements of malformed table names."""
LISTING_NONCES = (
    b"abcdefgh\n", b"abcdefgh\r\n", b"\nabcdefgh", b"abcd\nefgh", b"abcdefgh\r",
    b"abcd/efgh", b"abcd+efgh", b"abcdefg#", b"abcd\x00efgh", b"abcdefgh\x00",
    b"abcdefgh\t", b"abcd\x7fefgh", "abcd\x85efgh".encode(), "abcd\ufffeefgh".encode(),
    "abcd\u00e9fgh".encode(), b"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8", b"ABCDEFGH",
    b"abcdefg", b"a" * 33, b"abcdefgh\n" * 4, b"", b"a" * 1024,
)
"""What the listing attack sends as nonces: a trailing newline (a host that took it would
answer on a topic holding it, and Mosquitto would drop the host's link, again after each
reconnect),
other controls, levels, wildcards, NUL, noncharacters, bytes that are no UTF-8, wrong
case, lengths."""
LISTING_NAMES = ("t\n", "table\n", "\ntable", "t/x", "t+x", "t#", "t\x00", "T", "x" * 33, "",
                 "t\r\n", "t\x85")
"""Table names of the announcements the listing attack answers listers with."""
LISTING_PEERS = ("", "NOTAPEER", "0" * 31, "0" * 33, "g" * 32, "0" * 16 + " " * 16,
                 "\u00e9" * 32, "0123456789ABCDEF0123456789ABCDEF")
"""Peer ids (not ones) in the topics of every tenth message of the listing attack, on the
table's ``peer/<id>/out`` (topics Mosquitto takes: the host must drop them unread)."""
LISTING_BURST = 10
LISTING_PAUSE = 0.05
"""The listing attack sends its messages LISTING_BURST at a time, LISTING_PAUSE apart (200 a
second): it goes on for much of a game, as the answer loop it caused did."""
KEY_JOINS_SETTLE = 1.0
"""Seconds without a new welcome after which the many-keys rogue stops waiting for them."""


@dataclass
class GameRun:
    duration: float
    """Seconds from the deal to the spectator's last batch."""
    max_gap: float
    """The longest wait between two public batches at the spectator."""
    batches: int
    verified: bool
    flood_sent: int = 0
    impostor_warnings: int = 0
    gaps: list[float] = field(default_factory=list)
    seat_max_gap: float = 0.0
    """The longest wait between two batches at a seated player (its own stream)."""
    seat_gaps: list[float] = field(default_factory=list)
    finished: bool = True
    """Whether every peer verified the game within the time given (else ``verified`` is
    false, and the rest counts what happened until then)."""
    host_link_losses: int = 0
    """Times the host lost its link to the broker: its last will ("offline", which the
    broker publishes only for a link that dropped) seen live on the announce topic."""
    listings: int = 0
    """Table listings (``stacks tables``) made during the game (the listing attack)."""
    listed: int = 0
    """Of those, the ones that listed the table."""
    hostile_listed: int = 0
    """Tables with a malformed name those listings showed (the rogue's forged answers)."""


# -- the rogue (a process of its own: its sending must not load the table's loop) ------------


def _join(fresh: Identity, table: str, name: str) -> tuple[str, bytes]:
    return (Topics(table).outbox(fresh.peer_id), Sender(fresh, table).frame("join", {
        "name": name, "entropy_commit": os.urandom(32), "password": None, "watch": True,
        "at": 0}))


def _many_keys(count: int, table: str) -> tuple[list[tuple[str, bytes]],
                                                 list[tuple[str, bytes]]]:
    """The many-keys flood: joins of ``count // 3`` fresh keys, then a heartbeat ``at: 0``
    and a resync from batch 1 from each (``count`` messages in all)."""
    topics = Topics(table)
    keys = [Identity.generate() for _ in range(max(1, count // 3))]
    joins = [_join(key, table, f"k{i}") for i, key in enumerate(keys)]
    asks: list[tuple[str, bytes]] = []
    for key in keys:
        sender = Sender(key, table)
        asks.append((topics.outbox(key.peer_id), sender.frame("heartbeat", {"at": 0})))
        asks.append((topics.outbox(key.peer_id), sender.frame("resync", {
            "from": 1, "snapshot": False, "reason": "gap", "start": True})))
    return joins, asks[: max(0, count - len(joins))]


def _frames(kind: str, count: int, table: str, rogue: Identity) -> list[tuple[str, bytes]]:
    topics = Topics(table)
    sender = Sender(rogue, table)
    out = topics.outbox(rogue.peer_id)
    frames: list[tuple[str, bytes]] = []
    kinds = ["heartbeat", "resync", "join", "garbage"] if kind == "mixed" else [kind]
    for i in range(count):
        what = kinds[i % len(kinds)]
        if what == "heartbeat":
            frames.append((out, sender.frame("heartbeat", {"at": 0})))
        elif what == "resync":
            # The dearest resync: the start asked for again, then the batches from 1.
            frames.append((out, sender.frame("resync", {"from": 1, "snapshot": False,
                                                        "reason": "gap", "start": True})))
        elif what == "join":
            frames.append(_join(Identity.generate(), table, f"r{i}"))
        elif what == "chat":
            frames.append((topics.chat, sender.frame("chat", {"text": f"spam {i}",
                                                              "name": "rogue"})))
        else:
            frames.append((topics.outbox(os.urandom(16).hex()), os.urandom(200)))
    return frames


async def rogue_flood(url: str, table: str, kind: str, count: int, start_at: int) -> int:
    """Join ``table`` as a spectator, wait until its game reaches batch ``start_at``, then
    send ``count`` hostile messages as fast as the broker takes them (the listing attack:
    at LISTING_BURST / LISTING_PAUSE, and the forged answers to listers besides)."""
    from netplay.transport import BrokerAddress

    address = BrokerAddress.parse(url)
    rogue = Identity.generate()
    topics = Topics(table)
    joins: list[tuple[str, bytes]] = []
    if kind == "keys":
        joins, frames = _many_keys(count, table)
    elif kind == "listing":
        frames = [(topics.outbox(LISTING_PEERS[i // 10 % len(LISTING_PEERS)]), os.urandom(64))
                  if i % 10 == 9 else (QUERY, LISTING_NONCES[i % len(LISTING_NONCES)])
                  for i in range(count)]
    else:
        frames = _frames(kind, count, table, rogue)
    async with aiomqtt.Client(address.host, address.port, identifier=f"rogue-{os.getpid()}",
                              max_queued_outgoing_messages=count + 100) as client:
        await client.subscribe(topics.announce, qos=1)
        await client.subscribe(topics.events, qos=0)
        sender = Sender(rogue, table)
        async with asyncio.timeout(60):
            await _wait_for_game(client, topics, sender, rogue, start_at)
        if joins:
            await _join_all(client, topics, joins)
        if kind == "listing":
            return len(frames) + await _listing_attack(client, frames, rogue)
        for topic, payload in frames:
            await client.publish(topic, payload, qos=0)
    return len(joins) + len(frames)


def _forged_answers(rogue: Identity) -> list[bytes]:
    """Signed, complete announcements of tables with malformed names (LISTING_NAMES)."""
    return [Sender(rogue, name).frame("announce", {
        "name": name, "game": "sequence-stacks", "protocol": TABLE_PROTOCOL,
        "host": rogue.key, "players": 3, "seats": [None, None, None], "status": "lobby",
        "commit": os.urandom(32), "password": False, "block_window": 3.0, "rules": {},
    }) for name in LISTING_NAMES]


async def _listing_attack(client: aiomqtt.Client, frames: list[tuple[str, bytes]],
                          rogue: Identity) -> int:
    """Send ``frames`` (malformed nonces on the listing query) in bursts; meanwhile answer
    every well-formed query (a lister's) with the forged announcements. The answers sent."""
    await client.subscribe(QUERY, qos=0)
    forged = _forged_answers(rogue)
    answered = 0
    own = {payload for _topic, payload in frames}  # the rogue does not answer itself

    async def answer() -> None:
        nonlocal answered
        async for message in client.messages:
            payload = message.payload
            if message.topic.value != QUERY or not isinstance(payload, bytes) \
                    or payload in own:
                continue
            reply = query_reply_topic(payload)
            if reply is not None:
                for frame in forged:
                    await client.publish(reply, frame, qos=0)
                answered += len(forged)

    answering = asyncio.create_task(answer())
    try:
        for start in range(0, len(frames), LISTING_BURST):
            for topic, payload in frames[start : start + LISTING_BURST]:
                await client.publish(topic, payload, qos=0)
            await asyncio.sleep(LISTING_PAUSE)
    finally:
        answering.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await answering
    return answered


async def _join_all(client: aiomqtt.Client, topics: Topics,
                    joins: list[tuple[str, bytes]]) -> int:
    """Send every join, then wait until the host's welcomes stop coming (as many of the
    keys as it takes in are then spectators); how many were welcomed."""
    await client.subscribe(topics.inbox("+"), qos=0)
    for topic, payload in joins:
        await client.publish(topic, payload, qos=0)
    welcomed: set[str] = set()
    loop = asyncio.get_running_loop()
    quiet_until = loop.time() + 5 * KEY_JOINS_SETTLE  # the first welcome may take a while
    messages = aiter(client.messages)
    with contextlib.suppress(TimeoutError):
        while True:
            message = await asyncio.wait_for(anext(messages),
                                             max(0.0, quiet_until - loop.time()))
            payload = message.payload
            if not isinstance(payload, bytes) or not message.topic.matches(topics.inbox("+")):
                continue
            with contextlib.suppress(FrameError):
                if decode(payload).type == "welcome":
                    welcomed.add(message.topic.value)
                    quiet_until = loop.time() + KEY_JOINS_SETTLE
    return len(welcomed)


async def _wait_for_game(client: aiomqtt.Client, topics: Topics, sender: Sender,
                         rogue: Identity, start_at: int) -> None:
    """Join as a spectator (so that requests count as a known peer's), then wait for the
    host's heartbeat to say the game is at ``start_at``."""
    joined = False
    async for message in client.messages:
        payload = message.payload
        if not isinstance(payload, bytes) or not payload:
            continue
        try:
            frame = decode(payload)
        except FrameError:  # the rogue doesn't care what it can't read
            continue
        if not joined and frame.type == "announce":
            await client.publish(topics.outbox(rogue.peer_id), sender.frame("join", {
                "name": "rogue", "entropy_commit": os.urandom(32), "password": None,
                "watch": True}), qos=1)
            joined = True
        if frame.type == "heartbeat" and frame.body.get("at", 0) >= start_at:
            return


def _rogue_process(url: str, table: str, kind: str, count: int, start_at: int) -> \
        subprocess.Popen[bytes]:
    code = ("import asyncio, sys; from stacks.bench.hostile import rogue_flood; "
            "print(asyncio.run(rogue_flood(*sys.argv[1:3], sys.argv[3], int(sys.argv[4]), "
            "int(sys.argv[5]))))")
    return subprocess.Popen([sys.executable, "-c", code, url, table, kind, str(count),
                             str(start_at)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# -- a live game ------------------------------------------------------------------------------


def table_settings(table: str) -> HostSettings:
    return HostSettings(table, 3, bots=("greedy",), block_window=0.5, bot_delay=THINK)


def host_process(url: str, table: str, settings: HostSettings | None = None, *,
                 log: str | None = None) -> subprocess.Popen[bytes]:
    """``stacks host --headless`` for ``table`` (``settings``' seats, bots, Block window,
    bot delay and rules) in a process of its own, as in a real game: what the flood costs the host
    is then not mixed with what it costs the players. Its output goes to ``log`` (or
    nowhere): a pipe nobody reads would stop the host once it is full."""
    settings = settings or table_settings(table)
    code = "import sys; from stacks.cli import main; sys.exit(main(sys.argv[1:]))"
    with open(log or os.devnull, "ab") as out:  # the child keeps its own copy
        return subprocess.Popen(
            [sys.executable, "-c", code, "host", "--headless", "--table", table,
             "--players", str(settings.players), "--bots", str(len(settings.bots)),
             "--block-window", str(settings.block_window),
             "--bot-delay", str(settings.bot_delay), "--broker", url, "--record", os.devnull,
             "--no-advertise", "--verify-wait", "10", "--new",
             *(word for rule in rule_words(settings.rules) for word in ("--rule", rule))],
            stdout=out, stderr=subprocess.STDOUT,
        )


async def _last_wills(url: str, table: str, wills: list[bytes], ready: asyncio.Event) -> None:
    """Keep the sender of every "offline" frame published live on ``table``'s announce
    topic: the broker publishes a host's last will when the host's link drops."""
    from netplay.transport import BrokerAddress

    address = BrokerAddress.parse(url)
    announce = Topics(table).announce
    async with aiomqtt.Client(address.host, address.port,
                              identifier=f"wills-{os.getpid()}-{table}") as client:
        await client.subscribe(announce, qos=1)
        ready.set()
        async for message in client.messages:
            payload = message.payload
            if message.retain or not isinstance(payload, bytes) or not payload:
                continue
            with contextlib.suppress(FrameError):
                frame = decode(payload)
                if frame.type == "offline":
                    wills.append(frame.sender)


async def _listings(url: str, table: str, run: GameRun) -> None:
    """List the broker's tables again and again (as ``stacks tables`` does), counting those
    that show ``table`` and the tables of malformed names shown."""
    while True:
        tables = await list_tables(url, timeout=1.0)
        run.listings += 1
        run.listed += any(t.table == table for t in tables)
        run.hostile_listed += sum(1 for t in tables if not is_table_name(t.table))


async def live_game(url: str, table: str, *, flood: str | None = None, count: int = 5000,
                    start_at: int = 10, timeout: float = 300.0) -> GameRun:
    """A 3-seat table whose host (with one bot) runs in its own process, two bot peers and
    a spectator here; with ``flood``, a rogue process floods it from batch ``start_at``
    (the listing attack: and a lister lists the broker's tables all game long)."""
    arrivals: list[float] = []
    at_seat: list[float] = []
    wills: list[bytes] = []
    listing = GameRun(0.0, 0.0, 0, False)
    loop = asyncio.get_running_loop()
    rogue: subprocess.Popen[bytes] | None = None
    finished = True
    code: int | None = None
    watching_wills = asyncio.Event()
    will_watch = asyncio.create_task(_last_wills(url, table, wills, watching_wills))
    background: list[asyncio.Task[None]] = [will_watch]
    try:
        await asyncio.wait_for(watching_wills.wait(), 10)
    except TimeoutError:
        will_watch.cancel()
        raise
    host = host_process(url, table)
    watcher = Spectator(Identity.generate(), table, "gauge", broker=url)
    players = [BotPeer(Identity.generate(), table, broker=url, name=f"p{i}", think=THINK)
               for i in range(2)]
    try:
        async with watcher:
            async def gauge(peer: Spectator | BotPeer, times: list[float]) -> None:
                async for notice in peer.notices():
                    if isinstance(notice, Applied):
                        times.append(loop.time())

            measuring = asyncio.create_task(gauge(watcher, arrivals))
            if flood is not None:
                rogue = _rogue_process(url, table, flood, count, start_at)
            if flood == "listing":
                background.append(asyncio.create_task(_listings(url, table, listing)))
            seated: asyncio.Task[None] | None = None
            try:
                for player in players:
                    await player.__aenter__()
                seated = asyncio.create_task(gauge(players[0], at_seat))
                try:
                    async with asyncio.timeout(timeout):
                        await watcher.verified.wait()
                        for player in players:
                            await player.verified.wait()
                except TimeoutError:
                    finished = False  # said in the result, with what was counted until then
            finally:
                for player in players:
                    await player.close()
                for task in (measuring, seated):
                    if task is not None:
                        task.cancel()
                        with contextlib.suppress(asyncio.CancelledError):
                            await task
        code = await asyncio.to_thread(host.wait, 60) if finished else None
    finally:
        for task in background:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if host.returncode is None:
            host.kill()
            await asyncio.to_thread(host.wait)
    verdicts = [p.player.verdict for p in (watcher, *players)]
    verified = code == 0 and all(v is not None and v.ok for v in verdicts)
    sent = 0
    if rogue is not None:
        out, _err = await asyncio.to_thread(rogue.communicate, timeout=60)
        with contextlib.suppress(ValueError):
            sent = int(out.decode().strip() or 0)
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    seat_gaps = [b - a for a, b in itertools.pairwise(at_seat)]
    host_key = watcher.player.host_key
    return GameRun(
        duration=arrivals[-1] - arrivals[0] if arrivals else 0.0,
        max_gap=max(gaps, default=0.0), batches=len(arrivals), verified=verified,
        flood_sent=sent, gaps=gaps, seat_max_gap=max(seat_gaps, default=0.0),
        seat_gaps=seat_gaps, finished=finished,
        host_link_losses=sum(1 for key in wills if key == host_key),
        listings=listing.listings, listed=listing.listed,
        hostile_listed=listing.hostile_listed,
    )


async def hijack_restore_time(url: str, table: str, *, rogue_payload: bytes | None = None,
                              timeout: float = 10.0) -> tuple[float, bytes]:
    """Publish a rogue retained announcement (signed by a fresh key, or ``rogue_payload``,
    e.g. empty) on a live host's table; seconds until the host's is back, and its bytes."""
    from netplay.transport import BrokerAddress

    address = BrokerAddress.parse(url)
    topics = Topics(table)
    if rogue_payload is None:
        rogue = Identity.generate()
        rogue_payload = Sender(rogue, table).frame("announce", {
            "name": table, "game": "sequence-stacks", "protocol": TABLE_PROTOCOL, "host": rogue.key,
            "players": 3, "seats": [None, None, None], "status": "lobby",
            "commit": os.urandom(32), "password": False, "block_window": 3.0, "rules": {},
        })
    async with aiomqtt.Client(address.host, address.port,
                              identifier=f"hijacker-{os.getpid()}") as client:
        await client.subscribe(topics.announce, qos=1)
        messages = client.messages
        first = await asyncio.wait_for(anext(aiter(messages)), timeout)  # the host's, retained
        assert isinstance(first.payload, bytes)
        host_key = decode(first.payload).sender
        loop = asyncio.get_running_loop()
        sent = loop.time()
        await client.publish(topics.announce, rogue_payload, qos=1, retain=True)
        async with asyncio.timeout(timeout):
            async for message in messages:
                payload = message.payload
                if isinstance(payload, bytes) and payload and payload != rogue_payload:
                    with contextlib.suppress(FrameError):
                        if decode(payload).sender == host_key:
                            return loop.time() - sent, payload
    raise AssertionError("unreachable")


async def impostor_notices(player: BotPeer | Spectator) -> int:
    return sum(1 for n in player.player.notices if isinstance(n, Impostor))


# -- the command --------------------------------------------------------------------------------


async def _bench(args: argparse.Namespace) -> dict[str, object]:
    from broker.embedded import free_port
    from broker.mosquitto_runner import MosquittoProcess

    port = free_port()
    async with MosquittoProcess("127.0.0.1", port) as mosquitto:
        url = mosquitto.url
        quiet = await live_game(url, "quiet")
        flooded = await live_game(url, "flooded", flood=args.kind, count=args.messages)
        many = None
        if args.keys > 0:
            many = await live_game(url, "many-keys", flood="keys", count=3 * args.keys)
        listed = None
        if args.listing > 0:
            listed = await live_game(url, "listed", flood="listing", count=args.listing)
        restores = []
        async with Host(table_settings("hijacked"), broker=url):
            for _ in range(args.hijacks):
                seconds, _payload = await hijack_restore_time(url, "hijacked")
                restores.append(seconds * 1000)
                await asyncio.sleep(0.3)  # past the host's warning budget
    return {
        "load": os.getloadavg()[0],
        "quiet": {"duration_s": round(quiet.duration, 2), "max_gap_s": round(quiet.max_gap, 3),
                  "batches": quiet.batches, "verified": quiet.verified},
        "flooded": {"duration_s": round(flooded.duration, 2),
                    "max_gap_s": round(flooded.max_gap, 3), "batches": flooded.batches,
                    "verified": flooded.verified, "flood": args.kind,
                    "messages": flooded.flood_sent},
        "many_keys": None if many is None else {
            "duration_s": round(many.duration, 2), "max_gap_s": round(many.max_gap, 3),
            "seat_max_gap_s": round(many.seat_max_gap, 3),
            "batches": many.batches, "verified": many.verified, "keys": args.keys,
            "messages": many.flood_sent},
        "listing": None if listed is None else {
            "duration_s": round(listed.duration, 2), "max_gap_s": round(listed.max_gap, 3),
            "batches": listed.batches, "verified": listed.verified,
            "nonces": args.listing, "messages": listed.flood_sent,
            "host_link_losses": listed.host_link_losses, "listings": listed.listings,
            "listed": listed.listed, "malformed_names_listed": listed.hostile_listed},
        "restore_ms": {"median": round(sorted(restores)[len(restores) // 2], 2),
                       "max": round(max(restores), 2), "runs": len(restores)},
    }


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    result = asyncio.run(_bench(args))
    result["wall_s"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(result))
        return 0
    quiet, flooded, restore = result["quiet"], result["flooded"], result["restore_ms"]
    assert isinstance(quiet, dict) and isinstance(flooded, dict) and isinstance(restore, dict)
    print(f"load average {result['load']:.2f}")
    print(f"no attack      : game {quiet['duration_s']} s, longest gap between public batches "
          f"{quiet['max_gap_s']} s, {quiet['batches']} batches, verified {quiet['verified']}")
    print(f"{flooded['messages']} x {flooded['flood']:<9}: game {flooded['duration_s']} s, "
          f"longest gap {flooded['max_gap_s']} s, {flooded['batches']} batches, "
          f"verified {flooded['verified']}")
    many = result["many_keys"]
    if isinstance(many, dict):
        print(f"{many['keys']} fresh keys ({many['messages']} messages): game "
              f"{many['duration_s']} s, longest gap {many['max_gap_s']} s (at a seat "
              f"{many['seat_max_gap_s']} s), {many['batches']} batches, "
              f"verified {many['verified']}")
    listing = result["listing"]
    if isinstance(listing, dict):
        print(f"listing attack ({listing['nonces']} malformed nonces and peer ids, "
              f"{listing['messages'] - listing['nonces']} forged answers): host link losses "
              f"{listing['host_link_losses']}, game {listing['duration_s']} s, longest gap "
              f"{listing['max_gap_s']} s, verified {listing['verified']}; "
              f"{listing['listed']} of {listing['listings']} listings showed the table, "
              f"{listing['malformed_names_listed']} malformed names listed")
    print(f"hijacked announcement restored in {restore['median']} ms (median of "
          f"{restore['runs']}, max {restore['max']} ms)")
    return 0

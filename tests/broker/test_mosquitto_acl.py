"""A full game on Mosquitto with the shipped secure config (password file + topic ACL).

Every peer logs in with its peer id and a password; the broker itself then refuses a
seat that publishes as another seat or subscribes to another seat's private channel.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import aiomqtt
import pytest

from broker.acl import render_acl
from broker.embedded import free_port
from broker.mosquitto_runner import MosquittoProcess, find_mosquitto
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.player_peer import BotPeer
from netplay.topics import Topics

PASSWORD = "table-secret"


def _secure_files(
    tmp_path: Path, host: Identity, players: list[Identity], table: str = "acl"
) -> tuple[Path, Path]:
    passwords = tmp_path / "passwords"
    passwords.touch()
    for identity in (host, *players):
        subprocess.run(
            ["mosquitto_passwd", "-b", str(passwords), identity.peer_id, PASSWORD],
            check=True, capture_output=True,
        )
    acl = tmp_path / "acl"
    acl.write_text(render_acl([(host.peer_id, [table])]))
    return passwords, acl


@pytest.fixture
def need_mosquitto() -> None:
    try:
        find_mosquitto()
    except RuntimeError:
        pytest.skip("mosquitto is not installed")


@pytest.mark.asyncio
@pytest.mark.usefixtures("need_mosquitto")
async def test_secure_config_plays_a_game_and_refuses_impersonation(tmp_path: Path) -> None:
    host_id = Identity.generate()
    players = [Identity.generate() for _ in range(2)]
    passwords, acl = _secure_files(tmp_path, host_id, players)
    port = free_port()
    url = f"mqtt://:{PASSWORD}@127.0.0.1:{port}"
    table = "acl"
    topics = Topics(table)
    attacker, victim = players
    async with MosquittoProcess("127.0.0.1", port, secure=True, password_file=passwords,
                                acl_file=acl):
        # Anonymous and wrong-password logins are refused outright.
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", port, identifier="anon"):
                pass
        with pytest.raises(aiomqtt.MqttError):
            async with aiomqtt.Client("127.0.0.1", port, username=victim.peer_id,
                                      password="wrong", identifier="guess"):
                pass
        settings = HostSettings(table, 3, bots=("greedy",), block_window=0.3)
        # The attacker, logged in as itself, listens on the victim's sealed channel for the
        # whole game and tries to act as the victim; a monitor with the host's rights
        # watches the victim's outbox.
        async with aiomqtt.Client(
            "127.0.0.1", port, username=host_id.peer_id, password=PASSWORD,
            identifier="monitor",
        ) as monitor, aiomqtt.Client(
            "127.0.0.1", port, username=attacker.peer_id, password=PASSWORD,
            identifier="attacker",
        ) as spy:
            await monitor.subscribe(topics.outbox(victim.peer_id), qos=1)
            await spy.subscribe(topics.inbox(victim.peer_id), qos=1)
            stolen: list[bytes] = []
            seen: list[bytes] = []

            async def collect(client: aiomqtt.Client, sink: list[bytes]) -> None:
                async for message in client.messages:
                    if isinstance(message.payload, bytes):
                        sink.append(message.payload)

            listeners = [asyncio.create_task(collect(monitor, seen)),
                         asyncio.create_task(collect(spy, stolen))]
            async with Host(settings, broker=url, identity=host_id) as host:
                peers = [BotPeer(p, table, broker=url, name=f"p{i}")
                         for i, p in enumerate(players)]
                for peer in peers:
                    await peer.__aenter__()
                try:
                    await spy.publish(topics.outbox(victim.peer_id), b"forged", qos=1)
                    await spy.publish(topics.announce, b"fake table", qos=1, retain=True)
                    await asyncio.wait_for(host.finished(verify_wait=10), 120)
                    await asyncio.sleep(0.3)
                finally:
                    for peer in peers:
                        await peer.close()
            for listener in listeners:
                listener.cancel()
        game = host.host.game
        assert game is not None and game.over
        assert host.host.all_seats_verified()
        assert all(v["ok"] for v in host.host.verdicts.values())
        # The victim's channel carried its whole stream, but none of it reached the spy.
        victim_peer = peers[1]
        assert victim_peer.player.applied == len(host.host.batches)
        assert stolen == []
        # The forged frame never reached the victim's outbox, and the fake announcement
        # never replaced the host's.
        assert b"forged" not in seen
        assert all(peer.player.dropped == [] for peer in peers), [
            peer.player.dropped for peer in peers
        ]


@pytest.mark.asyncio
@pytest.mark.usefixtures("need_mosquitto")
async def test_the_shipped_acl_keeps_a_host_out_of_another_hosts_table(tmp_path: Path) -> None:
    one, two, peer = Identity.generate(), Identity.generate(), Identity.generate()
    passwords = tmp_path / "passwords"
    passwords.touch()
    for identity in (one, two, peer):
        subprocess.run(["mosquitto_passwd", "-b", str(passwords), identity.peer_id, PASSWORD],
                       check=True, capture_output=True)
    acl = tmp_path / "acl"
    acl.write_text(render_acl([(one.peer_id, ["one"]), (two.peer_id, ["two"])]))
    port = free_port()

    def client(identity: Identity, name: str) -> aiomqtt.Client:
        return aiomqtt.Client("127.0.0.1", port, username=identity.peer_id, password=PASSWORD,
                              identifier=name)

    async with MosquittoProcess("127.0.0.1", port, secure=True, password_file=passwords,
                                acl_file=acl):
        async with client(one, "rogue-host") as rogue, client(two, "owner") as owner, \
                client(peer, "listener") as listener:
            await listener.subscribe("sstacks/v1/+/#", qos=1)
            await owner.subscribe(Topics("two").all_outboxes, qos=1)
            heard: list[tuple[str, bytes]] = []

            async def collect(c: aiomqtt.Client) -> None:
                async for message in c.messages:
                    assert isinstance(message.payload, bytes)
                    heard.append((message.topic.value, message.payload))

            tasks = [asyncio.create_task(collect(listener)), asyncio.create_task(collect(owner))]
            two_t = Topics("two")
            # The host of table "one" tries to speak for table "two" on every host topic.
            await rogue.publish(two_t.announce, b"hijack", qos=1, retain=True)
            await rogue.publish(two_t.events, b"fake events", qos=1)
            await rogue.publish(two_t.inbox(peer.peer_id), b"fake inbox", qos=1)
            # It can't read the outboxes of table "two" either: a peer's join goes to "two"'s
            # host only.
            await rogue.subscribe(two_t.all_outboxes, qos=1)
            rogue_heard: list[bytes] = []

            async def spy() -> None:
                async for message in rogue.messages:
                    assert isinstance(message.payload, bytes)
                    rogue_heard.append(message.payload)

            tasks.append(asyncio.create_task(spy()))
            async with client(peer, "peer-out") as sender:
                await sender.publish(two_t.outbox(peer.peer_id), b"join two", qos=1)
            # Controls: each host does reach its own table.
            await owner.publish(two_t.events, b"real events", qos=1)
            await rogue.publish(Topics("one").events, b"one's events", qos=1)
            async with asyncio.timeout(10):
                while not {b"real events", b"one's events", b"join two"} <= {p for _, p in heard}:
                    await asyncio.sleep(0.02)
            await asyncio.sleep(0.3)
            for task in tasks:
                task.cancel()
        payloads = {p for _, p in heard}
        assert not payloads & {b"hijack", b"fake events", b"fake inbox"}
        assert rogue_heard == []

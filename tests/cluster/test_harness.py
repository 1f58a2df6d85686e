"""The cluster harness itself: hosts that are really apart, a broker cluster that really
forms, cut-offs that really cut and are really undone, and nothing left behind."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

import aiomqtt
import pytest

from broker.nats_runner import jetstream_request
from netplay.codec import Sequencer, encode
from netplay.identity import Identity
from stacks.bench.cluster.eavesdrop import Eavesdropper
from stacks.bench.cluster.harness import Cluster
from stacks.bench.cluster.netns import Net, ip, namespace_pids
from stacks.bench.cluster.services import NATS_CLIENT, NATS_CLUSTER, PG_PORT
from tests.cluster.conftest import need_namespaces
from tests.support import wait_until


async def _crosses(cluster: Cluster, source: str, target: str, topic: str) -> bool:
    """Whether a message published on ``source``'s broker node reaches a subscriber on
    ``target``'s, within a few seconds."""
    a, b = cluster.address(source), cluster.address(target)
    async with aiomqtt.Client(b, 1883, timeout=10) as listener:
        await listener.subscribe(topic, qos=0)
        async with aiomqtt.Client(a, 1883, timeout=10) as talker:
            try:
                async with asyncio.timeout(5):
                    while True:
                        await talker.publish(topic, b"hello", qos=0)
                        try:
                            async with asyncio.timeout(0.5):
                                async for message in listener.messages:
                                    return message.payload == b"hello"
                        except TimeoutError:
                            continue
            except TimeoutError:
                return False
    return False


def test_the_broker_nodes_form_one_cluster(cluster: Cluster) -> None:
    assert asyncio.run(_crosses(cluster, "n1", "n3", "sstacks/v1/harness/hello"))
    assert asyncio.run(_crosses(cluster, "n3", "n2", "sstacks/v1/harness/again"))


def test_mqtt_sessions_on_every_broker_node_messages_on_the_last(cluster: Cluster) -> None:
    # A cut of n1 (or n2) must stop neither new MQTT sessions nor QoS 1 and retained
    # publishes elsewhere: the session stream has a replica on each node, the message
    # streams live on n3, which no trial's fault strikes.
    def info(stream: str) -> dict[str, Any]:
        answer = jetstream_request(cluster.address("n1"), NATS_CLIENT,
                                   f"$JS.API.STREAM.INFO.{stream}", {})
        assert "error" not in answer, answer
        placed = answer["cluster"]
        assert isinstance(placed, dict)
        return placed

    sessions = info("$MQTT_sess")
    peers = {sessions["leader"]} | {r["name"] for r in sessions.get("replicas", [])}
    assert peers == {"stacks-n1", "stacks-n2", "stacks-n3"}
    for stream in ("$MQTT_msgs", "$MQTT_rmsgs"):
        placed = info(stream)
        assert placed["leader"] == "stacks-n3" and not placed.get("replicas"), placed


def test_every_node_reaches_the_database_and_is_apart(cluster: Cluster) -> None:
    pg = cluster.db
    done = cluster.net.run("n2", [sys.executable, "-c", (
        "import psycopg\n"
        f"with psycopg.connect({pg.url()!r}, connect_timeout=5) as c:\n"
        "    print(c.execute('select inet_client_addr()').fetchone()[0])")])
    assert done.returncode == 0, done.stderr
    # The database saw the node's own address: the node is a host of its own.
    assert done.stdout.strip() == cluster.address("n2")
    # Each host has its own ports: nothing of the database listens on a node.
    assert not cluster.reaches("n2", cluster.address("n2"), PG_PORT)


def test_cut_offs_cut_and_restore_puts_back(cluster: Cluster) -> None:
    db, peer = cluster.db.address, cluster.address("n2")
    assert cluster.reaches("n1", db, PG_PORT) and cluster.reaches("n1", peer, NATS_CLUSTER)
    try:
        cluster.cut("n1", "db")
        assert not cluster.reaches("n1", db, PG_PORT)
        assert cluster.reaches("n1", peer, NATS_CLUSTER)  # the broker is still there
        assert cluster.reaches("n2", db, PG_PORT)  # and the others still reach the db
        cluster.restore("n1")
        assert cluster.reaches("n1", db, PG_PORT)

        cluster.cut("n1", "broker")
        assert not cluster.reaches("n1", peer, NATS_CLUSTER)
        assert not cluster.reaches("n1", cluster.address("n3"), NATS_CLUSTER)
        assert cluster.reaches("n1", db, PG_PORT)
        cluster.restore("n1")
        assert cluster.reaches("n1", peer, NATS_CLUSTER)

        cluster.cut("n1", "both")
        assert not cluster.reaches("n1", db, PG_PORT, timeout=1)
        assert not cluster.reaches("n1", peer, NATS_CLUSTER, timeout=1)
        assert not cluster.reaches("n2", cluster.address("n1"), 1883, timeout=1)
    finally:
        cluster.restore("n1")
    assert cluster.reaches("n1", db, PG_PORT) and cluster.reaches("n1", peer, NATS_CLUSTER)
    # The broker node on n1 rejoins its cluster: messages cross again.
    wait_until(lambda: asyncio.run(_crosses(cluster, "n1", "n3", "sstacks/v1/harness/back")),
               "a message from n1's broker node to reach n3's after the restore", 60)


def test_kill_9_of_a_node_kills_its_processes_not_its_broker_node(cluster: Cluster) -> None:
    # A process that escaped its parent (a session of its own) dies too.
    proc = cluster.net.popen("n3", ["sh", "-c", "setsid sleep 600 & exec sleep 600"])
    wait_until(lambda: len(cluster.net.pids("n3")) >= 3, "n3's sleepers to start")
    killed = cluster.kill("n3")
    assert proc.pid in killed
    assert proc.wait(10) == -9
    assert cluster.net.pids("n3") == [cluster.broker.procs["n3"].pid]
    assert cluster.broker.procs["n3"].poll() is None


def test_the_eavesdropper_finds_a_batch_number_with_two_contents(cluster: Cluster) -> None:
    ears = Eavesdropper(cluster.broker.urls)
    ears.start()
    try:
        one, two = Identity.generate(), Identity.generate()
        body = {"n": 1, "action": None, "proof": None, "events": [], "hash": "0" * 32,
                "standin": False}
        other = {**body, "hash": "1" * 32}
        frames = [
            (cluster.address("n1"), "calm", encode(one, Sequencer(), "events", "calm", body)),
            # The same batch again, from another host and node: the same contents.
            (cluster.address("n2"), "calm", encode(two, Sequencer(), "events", "calm",
                                                   dict(reversed(body.items())))),
            (cluster.address("n1"), "split", encode(one, Sequencer(), "events", "split", body)),
            (cluster.address("n3"), "split", encode(two, Sequencer(), "events", "split", other)),
        ]

        async def publish() -> None:
            for address, table, frame in frames:
                async with aiomqtt.Client(address, 1883, timeout=10) as client:
                    await client.publish(f"sstacks/v1/{table}/events", frame, qos=1)

        asyncio.run(publish())
        wait_until(lambda: ears.batches("calm") and ears.conflicts(),
                   "the eavesdropper to hear the frames")
        wait_until(lambda: len(ears.table("split").batches[1]) == 2, "both contents heard")
        assert set(ears.conflicts()) == {"split"}
        assert len(ears.table("calm").batches[1]) == 1
    finally:
        ears.stop()


def test_a_net_is_removed_whole_even_when_its_user_fails() -> None:
    need_namespaces()
    net = Net()
    with pytest.raises(RuntimeError, match="on purpose"), net:
        net.host("a", 5)
        net.popen("a", ["sleep", "600"])
        namespace = net.hosts["a"].namespace
        wait_until(lambda: namespace_pids(namespace), "the sleeper to start")
        raise RuntimeError("on purpose")
    assert namespace not in ip("netns", "list")
    assert net.prefix not in ip("netns", "list")
    assert net.short not in ip("link", "show")
    assert all(proc.poll() is not None for proc in net.procs)
    assert subprocess.run(["ip", "netns", "pids", namespace], capture_output=True).returncode != 0

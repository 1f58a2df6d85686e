"""paho's housekeeping (keepalive pings) for every client of a process on one timer.

aiomqtt wakes a task per client every second for it; a process with the peers of a
hundred tables spent ~3% of its CPU on those wakes. Checked on a real
Mosquitto, which drops a client silent for 1.5 keepalives: idle links stay up on the
shared timer's pings, and the timer goes when its clients do.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import paho.mqtt.client as mqtt
import pytest

from netplay import mqtt_client
from netplay.transport import BrokerAddress, MqttTransport
from tests.broker.conftest import LOOPBACK, eventually

PINGS = 3


@pytest.mark.asyncio
async def test_idle_links_stay_up_on_one_shared_housekeeping_timer(
    mosquitto: int, monkeypatch: pytest.MonkeyPatch,
) -> None:
    pings: Counter[int] = Counter()
    send_pingreq = mqtt.Client._send_pingreq

    def counted(client: mqtt.Client) -> mqtt.MQTTErrorCode:
        pings[id(client)] += 1
        return send_pingreq(client)

    monkeypatch.setattr(mqtt.Client, "_send_pingreq", counted)
    loop = asyncio.get_running_loop()
    links = [MqttTransport(BrokerAddress(LOOPBACK, mosquitto), [f"idle/{i}"],
                           client_name=f"idle{i}", keepalive=1) for i in range(3)]
    for link in links:
        await link.start()
    try:
        await eventually(lambda: all(link.connected.is_set() for link in links))
        keeper = mqtt_client.KEEPERS[loop]
        papers = [id(link._live._client) for link in links if link._live is not None]
        assert len(papers) == 3 and len(keeper.clients) == 3  # one timer keeps all three
        # Nothing is published: only the keepalive keeps the links (Mosquitto drops a
        # client silent for 1.5 s here), so several pings each and still the first link.
        await eventually(lambda: all(pings[p] >= PINGS for p in papers), timeout=30)
        assert [link.connects for link in links] == [1, 1, 1]
        assert all(link.connected.is_set() for link in links)
    finally:
        for link in links:
            await link.stop()
    assert loop not in mqtt_client.KEEPERS  # gone with its last client

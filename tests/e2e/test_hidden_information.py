"""A subscriber to every topic of a real broker learns no hand (docs/protocol.md).

The game runs in this process (host, bot peers) over a Mosquitto in its own process; a
raw aiomqtt client subscribed to ``#`` captures every payload. After the game, the host's
full record says which card each seat drew; nothing the eavesdropper can decode may show
one of those cards before it was played face up.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiomqtt
import pytest

from engine.cards import HIDDEN
from engine.events import CardsDrawn, CardTaken, DrawPileFormed, Reshuffled
from engine.state import Zone
from netplay.codec import decode
from netplay.errors import FrameError
from netplay.host import HostSettings
from netplay.host_peer import Host
from netplay.identity import Identity
from netplay.player_peer import BotPeer
from netplay.transport import BrokerAddress
from tests.e2e.conftest import SCALE
from tests.netplay.harness import observe


async def _capture(url: str, sink: list[tuple[str, bytes]], ready: asyncio.Event) -> None:
    address = BrokerAddress.parse(url)
    async with aiomqtt.Client(address.host, address.port, identifier="eavesdropper") as client:
        await client.subscribe("#", qos=1)
        ready.set()
        async for message in client.messages:
            payload = message.payload
            if isinstance(payload, bytes):
                sink.append((message.topic.value, payload))


def _private_cards(batches: list[Any]) -> set[int]:
    """Every card id that was ever in a hidden place (drawn, dealt, taken from a hand)."""
    secret: set[int] = set()
    for batch in batches:
        for event in batch.events:
            if isinstance(event, CardsDrawn | DrawPileFormed | Reshuffled):
                secret.update(event.cards)
            elif isinstance(event, CardTaken) and event.zone == Zone.HAND:
                secret.add(event.card)
    return secret


def _hidden_fields(body: Any) -> list[list[int]]:
    """Card lists of hidden-information events found anywhere in a decoded body."""
    found: list[list[int]] = []
    if isinstance(body, dict):
        if body.get("type") in ("drawn", "draw_pile", "reshuffled"):
            found.append(list(body.get("cards", [])))
        if body.get("type") == "card_taken" and body.get("zone") == int(Zone.HAND):
            found.append([body.get("card")])
        for value in body.values():
            found += _hidden_fields(value)
    elif isinstance(body, list):
        for value in body:
            found += _hidden_fields(value)
    return found


@pytest.mark.asyncio
async def test_a_subscriber_to_every_topic_sees_no_hidden_card(mosquitto: str) -> None:
    captured: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    spy = asyncio.create_task(_capture(mosquitto, captured, ready))
    await asyncio.wait_for(ready.wait(), 10 * SCALE)
    table = "secrets"
    settings = HostSettings(table, 4, bots=("greedy",), block_window=0.3)
    async with Host(settings, broker=mosquitto) as host:
        peers = [BotPeer(Identity.generate(), table, broker=mosquitto, name=f"p{i}")
                 for i in range(3)]
        for peer in peers:
            await peer.__aenter__()
        try:
            await asyncio.wait_for(host.finished(verify_wait=10 * SCALE), 120 * SCALE)
            await asyncio.sleep(0.3)
        finally:
            for peer in peers:
                await peer.close()
    spy.cancel()
    batches = host.host.batches
    secret = _private_cards(batches) - {HIDDEN}
    assert len(secret) > 40, "the game should have dealt and drawn plenty of cards"
    assert len(captured) > len(batches), "the eavesdropper should have seen the whole game"
    sealed = boxes = 0
    for topic, payload in captured:
        if not payload:
            continue  # a cleared retained announcement
        try:
            frame = observe(payload)
        except FrameError as exc:
            raise AssertionError(f"an undecodable frame on {topic}: {exc}") from None
        if frame.type == "boxes":
            # Every seat's batch in one frame: no box opens for anyone but its seat.
            boxes += 1
            outsider = Identity.generate()
            for place, box in enumerate(frame.body["boxes"]):
                if box is not None:
                    with pytest.raises(FrameError):
                        decode(payload, opener=outsider, seat=place)
            continue
        if frame.type == "sealed":
            sealed += 1
            # Even a peer of this table can't open another seat's box.
            with pytest.raises(FrameError):
                decode(payload, opener=Identity.generate())
            continue
        for cards in _hidden_fields(frame.body):
            leaked = [c for c in cards if c != HIDDEN]
            assert not leaked, f"{frame.type} on {topic} shows hidden cards {leaked}"
    assert boxes >= len(batches) - 1, "each seat's stream travels sealed, in boxes"
    assert sealed > 0, "the players' actions travel sealed"

"""Walking decoded bodies for cards that should not be there (docs/protocol.md: nothing
secret travels in the clear; each seat's sealed stream is redacted for that seat)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.actions import Action
from engine.cards import HIDDEN, CardId
from engine.errors import MalformedError
from engine.events import CardsDrawn, CardTaken, DrawPileFormed, Event, Reshuffled
from engine.state import SPECTATOR, Audience, State, Zone
from netplay.codec import decode
from netplay.errors import FrameError
from netplay.player import PlayerSession

from .harness import Table, observe, opened, replay_states


def records(value: Any) -> Iterator[tuple[str, Any]]:
    """Every event, action and state map inside a body: ``("event", Event)``,
    ``("action", Action)``, ``("state", map)``; proofs (signed frames) are opened too."""
    if isinstance(value, dict):
        kind = value.get("type")
        if isinstance(kind, str):
            for family, name in ((Event, "event"), (Action, "action")):
                if kind in family._family:
                    try:
                        record = family.from_wire(value)
                    except MalformedError:
                        continue
                    yield name, record
        if "hands" in value and "draw_pile" in value:
            yield "state", value
        for item in value.values():
            yield from records(item)
    elif isinstance(value, list):
        for item in value:
            yield from records(item)
    elif isinstance(value, bytes) and value[:1] == b"\x92":
        try:
            frame = decode(value)
        except FrameError:
            return
        yield from records(frame.body)


def hidden_zones(state: State) -> set[CardId]:
    cards = set(state.draw_pile)
    for hand in state.hands:
        cards.update(hand)
    return cards


def event_problems(event: Event, audience: Audience) -> list[str]:
    """What ``event`` shows that ``audience`` (a seat or SPECTATOR) may not see."""
    if isinstance(event, DrawPileFormed | Reshuffled) and any(c != HIDDEN for c in event.cards):
        return [f"{event.TYPE} shows cards"]
    if (isinstance(event, CardsDrawn) and event.seat != audience
            and any(c != HIDDEN for c in event.cards)):
        return [f"seat {event.seat}'s draw {event.cards} shown to {audience}"]
    if (isinstance(event, CardTaken) and event.zone == Zone.HAND
            and audience not in (event.seat, event.target) and event.card != HIDDEN):
        return [f"a card taken from seat {event.target}'s hand shown to {audience}"]
    return []


def state_problems(state: dict[str, Any], audience: Audience) -> list[str]:
    problems = []
    if any(c != HIDDEN for c in state["draw_pile"]):
        problems.append("a snapshot shows the draw pile")
    for seat, hand in enumerate(state["hands"]):
        if seat != audience and any(c != HIDDEN for c in hand):
            problems.append(f"a snapshot for {audience} shows seat {seat}'s hand")
    return problems


def clear_leaks(table: Table) -> list[str]:
    """Everything an observer without keys can read in the broker log that it shouldn't."""
    states = replay_states(table)
    accepted = {b.proof for b in table.host.batches if b.proof is not None}
    published = 0
    leaks: list[str] = []
    for index, (topic, payload) in enumerate(table.broker.log):
        frame = observe(payload)
        if frame.type == "sealed":
            continue
        if topic == table.topics.events and frame.type == "events":
            published = max(published, frame.body["n"])
        secret = hidden_zones(states[published])
        for kind, item in records(frame.body):
            where = f"log[{index}] {frame.type} on {topic.rsplit('/', 2)[-2:]}"
            if kind == "event":
                leaks += [f"{where}: {p}" for p in event_problems(item, SPECTATOR)]
            elif kind == "state":
                leaks += [f"{where}: {p}" for p in state_problems(item, SPECTATOR)]
            elif payload not in accepted and frame.type != "events":
                card = getattr(item, "card", HIDDEN)
                if card in secret:
                    leaks.append(f"{where}: {item} names a card hidden in a hand")
    return leaks


def sealed_leaks(table: Table, session: PlayerSession) -> list[str]:
    """What a seated player's sealed stream shows of the other seats' secrets."""
    seat = session.seat
    assert seat is not None
    inbox = table.topics.inbox(session.peer_id)
    leaks: list[str] = []
    for topic, payload in table.broker.log:
        if topic != inbox:
            continue
        frame = observe(payload)
        if frame.type != "sealed":
            continue
        _, body = opened(session.identity, frame)
        for kind, item in records(body):
            if kind == "event":
                leaks += event_problems(item, seat)
            elif kind == "state":
                leaks += state_problems(item, seat)
    return leaks


def assert_public_view(table: Table, view: State | None, *, own: Audience = SPECTATOR) -> None:
    """``view`` shows no card of the draw pile, and of the hands (but ``own``) only those
    that went there in the open: a discard top taken with Steal a Card."""
    if view is None:
        return
    assert all(c == HIDDEN for c in view.draw_pile)
    known = {
        (e.seat, e.card)
        for b in table.host.batches
        for e in b.events
        if isinstance(e, CardTaken) and e.zone == Zone.DISCARD
    }
    for seat, hand in enumerate(view.hands):
        if seat == own:
            continue
        for card in hand:
            if card != HIDDEN:
                assert (seat, card) in known, f"seat {seat}'s hand is visible: {hand}"
                assert table.host.game is not None
                assert card in table.host.game.state.hands[seat]

"""When a join goes, driven alone with a fake clock and a stand-in for the session: a
pinned name joins at once, a bare one after listening, an unanswered join goes again,
and nothing goes to a closed table."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from netplay.hosts import HostTrust, fingerprint
from netplay.identity import Identity
from netplay.playing.joining import JOIN_RETRY, SETTLE, Joining


@dataclass
class _Peer:
    """The session as the join sees it, and the joins it sent (when)."""

    trust: HostTrust
    host_key: bytes | None = None
    announce: dict[str, Any] | None = None
    closed: bool = False
    joined: bool = False
    now: float = 0.0
    joins: list[float] = field(default_factory=list)


def _joining(pin: str | None = None) -> tuple[Joining, _Peer]:
    peer = _Peer(HostTrust(pin))

    def send_join() -> None:
        peer.joins.append(peer.now)
        joining.sent(peer.now)

    joining = Joining(peer, settle=SETTLE, send_join=send_join)
    return joining, peer


def _announced(peer: _Peer, key: bytes) -> None:
    body = {"host": key, "status": "lobby"}
    peer.trust.consider(key, body, joined=False)
    peer.host_key, peer.announce = key, body


def _tick(joining: Joining, peer: _Peer, now: float) -> None:
    peer.now = now
    joining.tick(now)


def test_a_bare_name_listens_before_its_first_join_then_retries_until_welcomed() -> None:
    joining, peer = _joining()
    assert joining.may_join(0.0) is False  # no host yet
    _announced(peer, Identity.generate().key)
    joining.join_if_allowed(0.0)
    assert peer.joins == [] and joining.settle_until == SETTLE
    assert joining.next_deadline(0.0) == SETTLE
    _tick(joining, peer, SETTLE - 0.01)
    assert peer.joins == []
    _tick(joining, peer, SETTLE)
    assert peer.joins == [SETTLE] and joining.asked
    assert joining.next_deadline(SETTLE) == SETTLE + JOIN_RETRY
    _tick(joining, peer, SETTLE + JOIN_RETRY)
    assert peer.joins == [SETTLE, SETTLE + JOIN_RETRY]
    joining.welcomed()
    peer.joined = True
    assert joining.next_deadline(10.0) is None


def test_a_pinned_name_joins_at_once_and_a_refusal_stops_the_joins() -> None:
    key = Identity.generate().key
    joining, peer = _joining(pin=fingerprint(key))
    _announced(peer, key)
    joining.join_if_allowed(0.0)
    assert peer.joins == [0.0]
    joining.refused()
    assert joining.next_deadline(1.0) is None
    joining.join_if_allowed(2.0)
    assert peer.joins == [0.0]  # refused: no join on the next announcement
    joining.again()  # the host restarted, say
    peer.now = 3.0
    joining.join_if_allowed(3.0)
    assert peer.joins == [0.0, 3.0]


def test_no_join_goes_to_a_closed_table_nor_is_retried_there() -> None:
    key = Identity.generate().key
    joining, peer = _joining(pin=fingerprint(key))
    _announced(peer, key)
    joining.join_if_allowed(0.0)
    assert peer.joins == [0.0]
    peer.closed = True
    assert joining.may_join(1.0) is False and joining.next_deadline(1.0) is None
    _tick(joining, peer, JOIN_RETRY + 1.0)
    assert peer.joins == [0.0]


def test_forgetting_the_host_forgets_the_join() -> None:
    joining, peer = _joining()
    _announced(peer, Identity.generate().key)
    joining.join_if_allowed(0.0)
    joining.forget()
    assert not joining.asked and joining.unanswered_since is None
    assert joining.settle_until is None and joining.next_deadline(5.0) is None

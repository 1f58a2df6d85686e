"""Which host a peer follows, driven alone through its own interface: the followed host's
announcement is taken (and a join goes), a second key claiming a bare name is followed by
nobody, a restarted host is joined again, another protocol is refused once, a closed
table is said, and only the will of the host's newest connection says it is gone."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pytest

from netplay.codec import TABLE_PROTOCOL
from netplay.errors import FrameError
from netplay.hosts import HostTrust, fingerprint
from netplay.identity import Identity
from netplay.messages import CONN_LEN
from netplay.playing.following import HostFollowing
from netplay.playing.joining import Joining
from netplay.playing.liveness import HostLiveness, HostState
from netplay.playing.notices import (
    HostOffline,
    HostsDisagree,
    Notice,
    Refused,
    TableClosed,
    TableSeen,
)

from .playing_game import Peer, follower_for


@dataclass
class _Session:
    """The session as the host's following and the join see it."""

    joined: bool = False
    games: frozenset[str] | None = None
    told: list[Notice] = field(default_factory=list)
    joins: int = 0
    following: HostFollowing | None = None

    @property
    def _following(self) -> HostFollowing:
        assert self.following is not None
        return self.following

    @property
    def host_key(self) -> bytes | None:
        return self._following.host_key

    @property
    def announce(self) -> dict[str, Any] | None:
        return self._following.announce

    @property
    def closed(self) -> bool:
        return self._following.liveness.closed

    @property
    def trust(self) -> HostTrust:
        return self._following.trust


def _following(pin: str | None) -> tuple[HostFollowing, _Session]:
    session = _Session()

    def send_join() -> None:
        session.joins += 1
        joining.sent(0.0)

    joining = Joining(session, settle=0.0, send_join=send_join)
    liveness = HostLiveness("t1", session.told.append)
    following = HostFollowing("t1", HostTrust(pin), session,
                              follower=follower_for(Peer()), liveness=liveness,
                              joining=joining, tell=session.told.append)
    session.following = following
    return following, session


def _announce(key: bytes, **fields: Any) -> dict[str, Any]:
    return {"host": key, "status": "lobby", "protocol": TABLE_PROTOCOL, "boot": None, **fields}


def test_the_pinned_hosts_announcement_is_followed_and_joined() -> None:
    key = Identity.generate().key
    following, session = _following(fingerprint(key))
    following.announced(key, 1, _announce(key), 5.0)
    assert following.host_key == key and isinstance(session.told[-1], TableSeen)
    assert following.liveness.state is HostState.HEARD and session.joins == 1
    other = Identity.generate().key
    with pytest.raises(FrameError):
        following.announced(other, 1, _announce(other), 6.0)
    assert following.host_key == key


def test_an_announcement_signed_by_another_key_than_it_names_is_refused() -> None:
    key = Identity.generate().key
    following, _ = _following(None)
    with pytest.raises(FrameError, match="not signed by the host it names"):
        following.announced(Identity.generate().key, 1, _announce(key), 0.0)


def test_two_keys_claiming_a_bare_name_leave_the_peer_following_none() -> None:
    first, second = Identity.generate().key, Identity.generate().key
    following, session = _following(None)
    following.announced(first, 1, _announce(first), 0.0)
    with pytest.raises(FrameError):
        following.announced(second, 1, _announce(second), 0.1)
    assert following.host_key is None and following.announce is None
    disagree = [n for n in session.told if isinstance(n, HostsDisagree)]
    assert len(disagree) == 1 and {c.key for c in disagree[0].claims} == {first, second}
    following.follow(second, 1.0)  # the user chose
    assert following.host_key == second


def test_a_restarted_host_is_joined_again() -> None:
    key = Identity.generate().key
    following, session = _following(fingerprint(key))
    following.announced(key, 1, _announce(key, boot=b"1" * 8), 0.0)
    following.announced(key, 2, _announce(key, boot=b"1" * 8), 1.0)
    assert session.joins == 1
    following.announced(key, 3, _announce(key, boot=b"2" * 8), 2.0)
    assert session.joins == 2


def test_a_host_of_another_protocol_is_refused_once_and_not_followed() -> None:
    key = Identity.generate().key
    following, session = _following(fingerprint(key))
    for seq in (1, 2):
        with pytest.raises(FrameError, match="protocol"):
            following.announced(key, seq, _announce(key, protocol=TABLE_PROTOCOL + 1), 0.0)
    assert len([n for n in session.told if isinstance(n, Refused)]) == 1
    assert following.host_key is None and session.joins == 0


def test_the_followed_hosts_close_is_said_and_its_silence_not_timed() -> None:
    key = Identity.generate().key
    following, session = _following(fingerprint(key))
    following.announced(key, 1, _announce(key), 0.0)
    following.announced(key, 2, _announce(key, status="closed"), 1.0)
    assert TableClosed() in session.told and following.liveness.next_deadline(1.0) is None


def test_only_the_will_of_the_hosts_newest_connection_says_it_is_gone() -> None:
    key = Identity.generate().key
    old, new = os.urandom(CONN_LEN), os.urandom(CONN_LEN)
    following, session = _following(fingerprint(key))
    following.announced(key, 5, _announce(key, conn=new), 0.0)
    with pytest.raises(FrameError, match="earlier connection"):
        following.will(key, 3, {"host": key, "conn": old}, 1.0)
    assert not following.liveness.offline
    following.will(key, 4, {"host": key, "conn": new}, 2.0)
    assert following.liveness.offline
    assert [n.reason for n in session.told if isinstance(n, HostOffline)] == ["will"]


def test_a_spectator_delay_is_taken_only_when_sensible() -> None:
    key = Identity.generate().key
    following, _ = _following(fingerprint(key))
    assert following.spectator_delay == 0.0
    for delay, taken in ((30, 30.0), (True, 0.0), (-1, 0.0), (1e9, 0.0), ("30", 0.0)):
        following.announce = _announce(key, spectator_delay=delay)
        assert following.spectator_delay == taken, delay

"""Finding tables by asking: a live host answers a lister's query with its signed
announcement, on the reply topic the query names, within a budget."""

from __future__ import annotations

from netplay.codec import decode
from netplay.host import HostSession, HostSettings
from netplay.identity import Identity
from netplay.listing import ANSWER_BURST, ANSWER_RATE, QUERY, reply_topic
from netplay.lobby import table_from_announcement


def _host() -> HostSession:
    host = HostSession(Identity.generate(), HostSettings("asked", 3, bots=("greedy",)), 0.0)
    host.data_to_send()  # the first announcement
    return host


def test_a_host_answers_a_query_with_its_current_announcement() -> None:
    host = _host()
    host.receive(QUERY, b"abcdef0123456789", 1.0)
    (answer,) = host.data_to_send()
    assert answer.topic == reply_topic("abcdef0123456789")
    assert not answer.retain
    frame = decode(answer.payload)
    assert frame.type == "announce" and frame.sender == host.identity.key
    info = table_from_announcement(answer.topic, answer.payload, "mqtt://x:1")
    assert info is not None
    assert info.table == "asked" and info.players == 3 and info.free == 2
    assert host.dropped == []


def test_a_query_without_a_valid_reply_nonce_gets_no_answer() -> None:
    host = _host()
    for bad in (b"", b"short", b"UPPERCASE0123456", b"a/b+c#d0123456789", b"x" * 33):
        host.receive(QUERY, bad, 1.0)
    assert host.data_to_send() == []


def test_a_flood_of_queries_is_answered_within_the_budget() -> None:
    host = _host()
    for i in range(100):
        host.receive(QUERY, f"flood{i:06d}".encode(), 1.0)
    assert len(host.data_to_send()) == ANSWER_BURST
    # The budget refills with the host's clock.
    for i in range(100):
        host.receive(QUERY, f"later{i:06d}".encode(), 2.0)
    assert len(host.data_to_send()) == int(ANSWER_RATE)


def test_an_answer_for_another_table_name_or_signer_is_not_listed() -> None:
    host = _host()
    host.receive(QUERY, b"abcdef0123456789", 1.0)
    (answer,) = host.data_to_send()
    # A reply topic carries the table inside the signed frame; tampering breaks the signature.
    tampered = answer.payload.replace(b"asked", b"askex")
    assert table_from_announcement(answer.topic, tampered, "mqtt://x:1") is None
    assert table_from_announcement("sstacks/v1/LOBBY/reply/../x", answer.payload, "m") is None

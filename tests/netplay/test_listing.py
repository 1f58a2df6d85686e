"""Finding tables by asking: a live host answers a lister's query with its signed
announcement, on the reply topic the query names, within a budget. Whose table it is: the
retained announcement's key; an answer of another key makes the table a conflict."""

from __future__ import annotations

import os

from netplay.codec import decode
from netplay.host import HostSession, HostSettings
from netplay.hosts import fingerprint
from netplay.identity import Identity
from netplay.listing import ANSWER_BURST, ANSWER_RATE, QUERY, reply_topic
from netplay.lobby import MAX_CLAIMS, Listing, table_from_announcement
from netplay.wire import Sender


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


# -- whose table it is: the retained announcement is the authority ---------------------------

URL = "mqtt://127.0.0.1:1883"


def _retained(host: HostSession) -> tuple[str, bytes]:
    """The host's announcement as the broker keeps it (retained on its announce topic)."""
    payload = host.watch.current
    assert payload is not None
    return host.topics.announce, payload


def _answer(host: HostSession, nonce: str = "listing0000000001") -> tuple[str, bytes]:
    """The host's answer to a listing's query."""
    host.receive(QUERY, nonce.encode(), 1.0)
    (answer,) = [out for out in host.data_to_send() if out.topic == reply_topic(nonce)]
    return answer.topic, answer.payload


def _beat(host: HostSession) -> tuple[str, bytes]:
    return host.topics.events, Sender(host.identity, host.settings.table).frame(
        "heartbeat", {"at": 0})


def test_a_rogue_answer_beside_the_retained_announcement_is_a_conflict() -> None:
    host, rogue = _host(), _host()  # the rogue announces the same table with its own key
    listing = Listing(URL)
    listing.receive(*_retained(host))
    listing.receive(*_answer(rogue))
    (table,) = listing.tables()
    host_fp, rogue_fp = fingerprint(host.identity.key), fingerprint(rogue.identity.key)
    assert table.conflict == (host_fp, rogue_fp)
    assert table.fingerprint == host_fp and table.host == host.identity.key  # the retained
    assert table.line().startswith(f"asked — two hosts claim it: {host_fp}, {rogue_fp} ")
    assert "join asked@FINGERPRINT" in table.line()
    # Before, the last answer won: the listing showed only the rogue's pin.
    assert f"asked@{rogue_fp}" not in table.line()
    # The host answering as well changes nothing: still two keys.
    listing.receive(*_answer(host, "listing0000000002"))
    assert listing.tables()[0].conflict == (host_fp, rogue_fp)


def test_an_answer_of_the_retained_key_updates_its_entry() -> None:
    host = _host()
    listing = Listing(URL)
    listing.receive(*_retained(host))  # 2 of 3 seats free
    ana = Identity.generate()
    host.receive(host.topics.outbox(ana.peer_id), Sender(ana, "asked").frame("join", {
        "name": "Ana", "entropy_commit": os.urandom(32), "password": None, "watch": False,
        "at": 0}), 1.0)
    host.data_to_send()
    listing.receive(*_answer(host))  # fresher: Ana took a seat
    (table,) = listing.tables(judge=True)  # and the answer proves the host live
    assert table.conflict == () and table.status == "lobby"
    assert table.free == 1 and "Ana" in table.seated
    assert table.pinned == f"asked@{fingerprint(host.identity.key)}"
    assert "two hosts" not in table.line() and "1 of 3 seats free" in table.line()


def test_without_a_retained_announcement_answers_are_all_there_is() -> None:
    # RabbitMQ never delivers retained messages to a wildcard subscription.
    host, rogue, third = _host(), _host(), _host()
    listing = Listing(URL)
    listing.receive(*_answer(host))
    (table,) = listing.tables()
    assert table.conflict == () and table.fingerprint == fingerprint(host.identity.key)
    listing.receive(*_answer(rogue))
    listing.receive(*_answer(third))
    (table,) = listing.tables()
    assert table.conflict == tuple(fingerprint(h.identity.key) for h in (host, rogue, third))
    assert table.fingerprint == "" and table.pinned == "asked"  # no authority to name
    assert table.line().startswith("asked — three hosts claim it: ")


def test_a_second_key_on_the_announce_topic_is_a_conflict() -> None:
    # A hijack under way while the listing listens: the rogue's announcement, then the
    # host's restored one, both on the announce topic.
    host, rogue = _host(), _host()
    listing = Listing(URL)
    listing.receive(*_retained(rogue))
    listing.receive(*_retained(host))
    (table,) = listing.tables()
    assert table.conflict == (fingerprint(host.identity.key), fingerprint(rogue.identity.key))


def test_a_departed_hosts_last_word_and_the_next_host() -> None:
    old, new = _host(), _host()
    will = old.last_will()
    listing = Listing(URL)
    listing.receive(will.topic, will.payload)
    assert listing.tables()[0].offline
    # The same host answering: it is back (the answer is fresher than its last will).
    listing.receive(*_answer(old))
    (table,) = listing.tables()
    assert not table.offline and table.conflict == ()
    # A departed host's will, then a new host's own retained announcement: the new host's.
    listing = Listing(URL)
    listing.receive(will.topic, will.payload)
    listing.receive(*_retained(new))
    (table,) = listing.tables()
    assert table.host == new.identity.key and table.conflict == ()


def test_the_offline_judgement_is_per_table_and_key() -> None:
    host, rogue = _host(), _host()
    listing = Listing(URL)
    listing.receive(*_retained(host))
    listing.receive(*_answer(rogue))  # heard: the rogue, not the host
    (table,) = listing.tables(judge=True)
    assert table.offline and len(table.conflict) == 2
    listing.receive(*_beat(rogue))  # the rogue's heartbeat does not make the host live
    assert listing.tables(judge=True)[0].offline
    listing.receive(*_beat(host))
    assert listing.tables(judge=True)[0].status == "lobby"


def test_a_flood_of_answering_keys_costs_a_bounded_list() -> None:
    host = _host()
    listing = Listing(URL)
    listing.receive(*_retained(host))
    for _ in range(3 * MAX_CLAIMS):
        listing.receive(*_answer(_host()))
    (table,) = listing.tables()
    assert len(table.conflict) == MAX_CLAIMS
    assert table.conflict[0] == fingerprint(host.identity.key)

"""Every name, nonce and id read from the network is checked with a full match, in
``netplay.names``: a trailing newline, a wildcard, a ``/`` or a control character never
gets into a topic, a file name or a log line (``abcdefgh\\n`` as a listing nonce would take
every host off Mosquitto)."""

from __future__ import annotations

from pathlib import Path

import pytest

from broker import acl
from netplay import names
from netplay.errors import ProfileError
from netplay.hosts import check_pin, split_pin
from netplay.identity import load_profile
from netplay.listing import QUERY, is_reply_topic, query_reply_topic, reply_topic
from netplay.topics import Topics, check_table_name

# What each check must refuse, whatever else it takes: the ways a name can smuggle a
# newline, a level, a wildcard or a control character into a topic or a line.
HOSTILE = [
    "", "\n", "abcdefgh\n", "abcdefgh\r", "abcdefgh\r\n", "\nabcdefgh", "abcd\nefgh",
    "abcd/efgh", "abcdefgh/", "abcd+efgh", "abcd#efgh", "+", "#", "abcd\x00efgh",
    "abcdefgh\x00", "abcd efgh", "abcdefgh\t", "abcd\x7fefgh", "abcd\x85efgh",
    "abcdéfgh", "abcd\u2028efgh", "abcdefgh\ufffe",
    "".join(chr(0xFF41 + i) for i in range(8)),  # full-width a-h
    "".join(chr(0x0660 + i) for i in range(10)),  # Arabic-Indic digits
]
PEER = "0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize("bad", HOSTILE)
def test_no_check_takes_a_hostile_name(bad: str) -> None:
    assert not names.is_table_name(bad)
    assert not names.is_nonce(bad)
    assert not names.is_nonce(bad.encode("utf-8", "surrogatepass"))
    assert not names.is_peer_id(bad)
    assert not names.is_profile_name(bad)
    assert not names.is_pin(bad)
    # The same with a good name around it: no check takes a prefix or a suffix.
    for good, check in ((PEER, names.is_peer_id), ("abcdefgh", names.is_nonce),
                        ("table", names.is_table_name), ("alice", names.is_profile_name)):
        assert check(good)
        if bad:
            assert not check(good + bad) and not check(bad + good)


@pytest.mark.parametrize("bad", HOSTILE[1:])
def test_a_hostile_name_is_refused_where_it_is_used(bad: str) -> None:
    """Alone, or where it makes a name of the right length with good characters."""
    for table in {bad, "table" + bad}:
        with pytest.raises(ValueError, match="table name"):
            check_table_name(table)
        with pytest.raises(ValueError):
            Topics(table)
        with pytest.raises(ValueError):
            split_pin(table)
        with pytest.raises(ValueError):
            acl.host_section(PEER, [table])
    for peer in {bad, PEER[: -len(bad)] + bad}:
        with pytest.raises(ValueError):
            acl.host_section(peer, ["table"])
        assert Topics("t").peer_of(Topics("t").outbox(peer)) is None
        assert Topics("t").peer_of(Topics("t").presence(peer)) is None
    for nonce in {bad, "abcdefgh"[: -len(bad)] + bad}:
        assert query_reply_topic(nonce.encode("utf-8", "surrogatepass")) is None
        assert not is_reply_topic(reply_topic(nonce))


def test_what_the_checks_take() -> None:
    assert names.is_table_name("a") and names.is_table_name("my_table-2")
    assert names.is_table_name("x" * 32) and not names.is_table_name("x" * 33)
    assert not names.is_table_name("Upper") and not names.is_table_name(None)
    with pytest.raises(ValueError, match="table name ''"):
        check_table_name("")
    assert names.is_nonce("abcdefgh") and names.is_nonce(b"0" * 32)
    assert not names.is_nonce("abcdefg") and not names.is_nonce("a" * 33)
    assert not names.is_nonce("ABCDEFGH")
    assert names.is_peer_id(PEER) and not names.is_peer_id(PEER.upper())
    assert not names.is_peer_id(PEER[:-1]) and not names.is_peer_id(PEER + "0")
    assert names.is_profile_name("Alice.2") and names.is_profile_name("a" * 32)
    assert not names.is_profile_name("a" * 33) and not names.is_profile_name(".hidden")
    assert not names.is_profile_name("-x")
    assert names.is_pin(names.plain_pin("3FA1-C2D4-0B9E-77AA")) and names.is_pin(PEER)
    assert not names.is_pin("3fa1c2d40b9e77a") and not names.is_pin("3fa1c2d40b9e77ag")
    assert check_pin("3fa1-c2d4-0b9e-77aa") == "3fa1c2d40b9e77aa"
    with pytest.raises(ValueError):
        check_pin("3fa1-c2d4-0b9e-77aa\n")


def test_a_listing_query_is_answered_on_the_nonce_it_names_and_no_other() -> None:
    assert query_reply_topic(b"abcdefgh") == "sstacks/v1/LOBBY/reply/abcdefgh"
    assert is_reply_topic("sstacks/v1/LOBBY/reply/abcdefgh")
    for bad in (b"abcdefgh\n", b"abcdefgh\r\n", b"abcdefgh\x00", b"abcd/efgh", b"abcd+efg",
                b"abcdefg#", b"\xff" * 8, b"abcdefgh" * 5):
        assert query_reply_topic(bad) is None, bad
    assert not is_reply_topic(QUERY)


def test_a_profile_name_with_a_newline_makes_no_folder(tmp_path: Path) -> None:
    for bad in ("alice\n", "alice/../x", "alice\x00", ""):
        with pytest.raises(ProfileError, match="profile name"):
            load_profile(bad, base=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert load_profile("alice", base=tmp_path).peer_id


def test_the_brokers_copies_of_the_patterns_agree_with_netplays() -> None:
    """broker/ imports nothing of netplay, so broker.acl keeps its own copies."""
    samples = [*HOSTILE, PEER, PEER.upper(), PEER[:-1], "table", "a", "x" * 32, "x" * 33,
               "my_table-2", "Table"]
    for text in samples:
        assert acl.is_peer_id(text) == names.is_peer_id(text), text
        assert acl.is_table_name(text) == names.is_table_name(text), text


@pytest.mark.parametrize("topic", [
    "", "a/+/b", "a/#", "+", "#", "a\x00b", "a\nb", "sstacks/v1/LOBBY/reply/abcdefgh\n",
    "a\rb", "a\tb", "a\x1fb", "a\x7fb", "a\x80b", "a\x9fb", "a\ufdd0b", "a\ufdefb",
    "a\ufffeb", "a\uffffb", "a\U0001fffeb", "a\U0010ffffb", "a\ud800b", "x" * 65536,
    "é" * 32768,
])
def test_a_topic_mosquitto_refuses_is_named_as_such(topic: str) -> None:
    assert names.publish_topic_problem(topic) is not None
    with pytest.raises(ValueError):
        names.check_publish_topic(topic)


@pytest.mark.parametrize("topic", [
    "sstacks/v1/table/peer/0123456789abcdef0123456789abcdef/in", "a", "/", "a//b", "a b",
    "x" * 65535, "é" * 32767, "a\ufdcfb", "a\ufdf0b", "a\ufffdb", "a\U0001fffdb", "a\xa0b",
    "a\u2028b", "$SYS/x",
])
def test_a_topic_mosquitto_takes_passes(topic: str) -> None:
    assert names.publish_topic_problem(topic) is None
    assert names.check_publish_topic(topic) == topic

"""The table on the list (``netplay.hosting.listing``): the signed, retained announcement
says who sits and how the table is; the last will is pre-signed, a new connection each
attempt; a lister's query is answered within a rate; a stranger's announcement is put
right."""

from __future__ import annotations

from netplay.codec import decode
from netplay.host import HostSession, HostSettings
from netplay.hosting.listing import GAME_NAME
from netplay.listing import ANSWER_BURST, QUERY

from .harness import SHORT, identity_for, observe


def _host() -> HostSession:
    host = HostSession(identity_for(11, "host"),
                       HostSettings("listed", 2, bots=("greedy",), rules=SHORT,
                                    title="Friday"), 0.0)
    host.data_to_send()
    return host


def test_the_announcement_says_who_sits_and_how_the_table_is() -> None:
    host = _host()
    host.listing.announce()
    (out,) = host.data_to_send()
    body = decode(out.payload).body
    assert out.retain and out.topic == host.topics.announce
    assert body["name"] == "Friday" and body["game"] == GAME_NAME
    assert body["status"] == "lobby" and body["conn"] == host.listing.conn
    assert body["seats"][0] is None and body["seats"][1]["bot"] is True
    assert "catching_up" not in body


def test_a_closed_table_says_so_and_answers_no_lister() -> None:
    host = _host()
    host.close_table()
    (out,) = host.data_to_send()
    assert decode(out.payload).body["status"] == "closed"
    host.listing.answer(b"abcdefgh")
    assert host.data_to_send() == []


def test_a_listers_query_gets_the_announcement_within_a_burst() -> None:
    host = _host()
    for n in range(ANSWER_BURST + 3):
        host.receive(QUERY, f"query{n:04d}".encode(), 0.0)
    answers = host.data_to_send()
    assert len(answers) == ANSWER_BURST
    assert all(out.payload == host.listing.watch.current for out in answers)


def test_each_last_will_after_the_first_names_a_new_connection() -> None:
    host = _host()
    first = host.last_will()
    conn = host.listing.conn
    second = host.last_will()
    assert host.listing.conn != conn
    assert decode(first.payload).body["conn"] == conn
    assert decode(second.payload).body["conn"] == host.listing.conn
    host.connected(1.0)  # the new connection is announced once
    assert [observe(o.payload).type for o in host.data_to_send()] == ["announce"]
    host.connected(2.0)
    assert host.data_to_send() == []


def test_someone_elses_announcement_is_put_right_and_the_players_hear_of_it() -> None:
    host = _host()
    mallory = HostSession(identity_for(11, "mallory"), HostSettings("listed", 2), 0.0)
    (forged, *_) = mallory.data_to_send()
    host.listing.seen(forged.payload)
    sent = host.data_to_send()
    assert sent[0].payload == host.listing.watch.current and sent[0].retain
    assert [observe(o.payload).type for o in sent[1:]] == ["impostor"]
    assert host.listing.watch.intrusions == 1

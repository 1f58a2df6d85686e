"""Finding tables by asking: a lister's query that every live host answers.

The retained announcement on ``<table>/announce`` is the first way to find a table, but
not every broker delivers it: RabbitMQ's MQTT plugin never delivers retained messages to
a wildcard subscription (``sstacks/v1/+/announce``), and keeps them on one node of a
cluster. So a lister also publishes a query; each live host answers with its current
signed announcement on the lister's reply topic (both plain, non-retained messages, which
every broker routes everywhere). ``LOBBY`` is upper case, so no table can be named so.
"""

from __future__ import annotations

from netplay.budget import Limit
from netplay.names import is_nonce
from netplay.topics import PREFIX

QUERY = f"{PREFIX}/LOBBY/query"
REPLY_PREFIX = f"{PREFIX}/LOBBY/reply/"

#: A host answers at most this many queries in a burst, then ANSWER_RATE a second:
#: queries are anonymous, and a flood of them must not cost a table its pace.
ANSWER_BURST = 8
ANSWER_RATE = 4.0
ANSWER_LIMIT = Limit(ANSWER_BURST, ANSWER_RATE)


def reply_topic(nonce: str) -> str:
    return REPLY_PREFIX + nonce


def query_reply_topic(payload: bytes) -> str | None:
    """The reply topic a query asks for, or ``None`` if the payload is not a query: a
    nonce of 8-32 lower-case letters and digits, nothing before or after (``\n`` neither:
    a host answering on a topic that held one would lose its Mosquitto link, see
    ``netplay.names``)."""
    if not is_nonce(payload):
        return None
    return reply_topic(payload.decode())


def is_reply_topic(topic: str) -> bool:
    return topic.startswith(REPLY_PREFIX) and is_nonce(topic.removeprefix(REPLY_PREFIX))

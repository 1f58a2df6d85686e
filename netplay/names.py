"""Names, nonces and ids that come from the network (or a user) and end up in a topic, a
file name or a log line: every check of their form is here, each a *full* match.

Why one place, and why ``fullmatch``: Python's ``$`` also matches before a final newline,
so ``re.compile(rb"^[a-z0-9]{8,32}$").match(b"abcdefgh\\n")`` succeeds. A lister's query
nonce so checked would make every host answer on a topic holding ``\\n``; Mosquitto 2.0
takes that for malformed UTF-8 and drops the host's connection, and the answer, re-sent
after each reconnect, would drop it again, hundreds of times a minute. The patterns below
carry no anchors and are private: the only way to check a name is a function of this
module, which uses ``fullmatch`` (a bare pattern's ``match`` would take any prefix).

:func:`publish_topic_problem` is the last line of defence: the transport asks it about
every topic before the frame is handed to the client library, with the rules Mosquitto
applies to a PUBLISH (``mosquitto_validate_utf8`` and the MQTT 3.1.1 topic rules), so
that a topic no check above caught is dropped here and never costs the link.

``broker/`` keeps its own copies of the table-name and peer-id patterns
(``broker.acl``): it imports nothing of ``netplay`` (the layers). A test checks that the
copies agree.
"""

from __future__ import annotations

import re

_TABLE_NAME = re.compile(r"[a-z0-9_-]{1,32}")
"""A table: the topic level ``sstacks/v1/<table>/...`` and the start of its journal's name."""
_NONCE = re.compile(r"[a-z0-9]{8,32}")
"""A lister's reply nonce: the last level of ``sstacks/v1/LOBBY/reply/<nonce>``."""
_NONCE_BYTES = re.compile(_NONCE.pattern.encode())
_PEER_ID = re.compile(r"[0-9a-f]{32}")
"""A peer id (32 hex digits of the key's hash): a level of ``peer/<id>/out`` and
``presence/<id>``, and the user name a peer logs in with."""
_PROFILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
"""A profile: a folder name in the user's config directory."""
FINGERPRINT_LEN = 16
"""Hex digits of a host fingerprint (``TABLE@FINGERPRINT`` pins it); a whole peer id
(32) pins it too."""
_HEX = re.compile(r"[0-9a-f]+")

MAX_TOPIC_BYTES = 65535
"""The longest topic MQTT can carry (a two-byte length)."""


def is_table_name(name: object) -> bool:
    return isinstance(name, str) and _TABLE_NAME.fullmatch(name) is not None


def check_table_name(name: str) -> str:
    """``name`` if it is a table name, else ``ValueError`` saying what one is."""
    if not is_table_name(name):
        raise ValueError(
            f"table name {name!r}: use 1-32 lower-case letters, digits, '_' or '-'"
        )
    return name


def is_nonce(nonce: str | bytes) -> bool:
    """Whether ``nonce`` (a query's payload, or a reply topic's last level) is a nonce."""
    if isinstance(nonce, bytes):
        return _NONCE_BYTES.fullmatch(nonce) is not None
    return _NONCE.fullmatch(nonce) is not None


def is_peer_id(text: object) -> bool:
    return isinstance(text, str) and _PEER_ID.fullmatch(text) is not None


def is_profile_name(name: object) -> bool:
    return isinstance(name, str) and _PROFILE_NAME.fullmatch(name) is not None


def plain_pin(pin: str) -> str:
    """A fingerprint as typed (``3fa1-c2d4-...``, ``3F:A1...``) as bare lower-case hex."""
    return pin.replace("-", "").replace(":", "").lower()


def is_pin(plain: str) -> bool:
    """Whether ``plain`` (see :func:`plain_pin`) is a fingerprint or a whole peer id."""
    return _HEX.fullmatch(plain) is not None and len(plain) in (FINGERPRINT_LEN, 32)


def _refused_character(ch: str) -> bool:
    """What Mosquitto 2.0 refuses as malformed UTF-8 in a topic (``mosquitto_validate_utf8``):
    NUL and the other C0 controls, DEL and the C1 controls, the noncharacters U+FDD0-U+FDEF
    and U+xFFFE/U+xFFFF of every plane (surrogates do not encode at all)."""
    code = ord(ch)
    return (code <= 0x1F or 0x7F <= code <= 0x9F or 0xFDD0 <= code <= 0xFDEF
            or (code & 0xFFFE) == 0xFFFE)


def publish_topic_problem(topic: str) -> str | None:
    """Why a broker would refuse a PUBLISH on ``topic`` (and drop the connection that sent
    it: MQTT 3.1.1 gives a broker no other answer), or ``None`` if it is a topic name."""
    if not topic:
        return "an empty topic"
    if "+" in topic or "#" in topic:
        return "a wildcard ('+' or '#') in a topic to publish on"
    try:
        size = len(topic.encode("utf-8"))
    except UnicodeEncodeError:
        return "a topic that is not UTF-8 (a lone surrogate)"
    if size > MAX_TOPIC_BYTES:
        return f"a topic of {size} bytes (at most {MAX_TOPIC_BYTES})"
    # Topics are ASCII but for a bug: look closer only when something is not printable.
    if not (topic.isascii() and topic.isprintable()):
        bad = next((ch for ch in topic if _refused_character(ch)), None)
        if bad is not None:
            return f"a control character or noncharacter ({bad!r}) in the topic"
    return None


def check_publish_topic(topic: str) -> str:
    """``topic`` if a broker would take a PUBLISH on it, else ``ValueError`` saying why."""
    problem = publish_topic_problem(topic)
    if problem is not None:
        raise ValueError(f"{problem}: {topic[:80]!r}")
    return topic

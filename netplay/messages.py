"""Bodies of protocol messages: typed reads from untrusted maps (docs/protocol.md)."""

from __future__ import annotations

import unicodedata
from typing import Any, TypeVar

from netplay.errors import FrameError

T = TypeVar("T")

MAX_NAME = 24
MAX_CHAT = 500
CONN_LEN = 8
"""Bytes of a connection nonce: a peer's last will, its ``online`` and its join, and a
host's will and announcements, name the broker connection they belong to (protocol 7)."""


def required(body: dict[str, Any], key: str, kind: type[T]) -> T:
    """``body[key]`` if it has type ``kind`` (bool is not an int here)."""
    if key not in body:
        raise FrameError(f"missing field {key!r}")
    value = body[key]
    if kind is int and type(value) is not int:
        raise FrameError(f"field {key!r} must be an integer")
    if not isinstance(value, kind):
        raise FrameError(f"field {key!r} must be {kind.__name__}")
    return value


def optional(body: dict[str, Any], key: str, kind: type[T]) -> T | None:
    """Like :func:`required`, but the value may be ``None``."""
    if body.get(key, 0) is None:
        return None
    return required(body, key, kind)


def clean_text(text: str, limit: int) -> str:
    """Printable text only (no control or escape characters), stripped and capped."""
    kept = "".join(
        ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " "
    ).strip()
    return kept[:limit]


def player_name(body: dict[str, Any]) -> str:
    name = clean_text(required(body, "name", str), MAX_NAME)
    if not name:
        raise FrameError("empty player name")
    return name


def key_bytes(body: dict[str, Any], key: str, size: int = 32) -> bytes:
    value = required(body, key, bytes)
    if len(value) != size:
        raise FrameError(f"field {key!r} must be {size} bytes")
    return value


def conn_of(body: dict[str, Any]) -> bytes | None:
    """The connection nonce ``body`` names, if it names a well-formed one."""
    conn = body.get("conn")
    return conn if isinstance(conn, bytes) and len(conn) == CONN_LEN else None

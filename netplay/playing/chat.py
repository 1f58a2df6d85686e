"""Which chat lines a peer shows, and under which name.

Anyone on the broker can write to a table's chat, so lines are budgeted (a seated
player's :data:`CHAT_PER_SEAT` each, everyone else's :data:`CHAT_OTHERS` together), and a
seated player speaks under its seat's name, whatever name its line claims.
"""

from __future__ import annotations

from typing import Any

from netplay.budget import Budget, Limit
from netplay.codec import Frame
from netplay.messages import MAX_CHAT, clean_text, required
from netplay.playing.notices import ChatLine
from netplay.verify import GameFacts

CHAT_PER_SEAT = Limit(5, 1)
"""Chat lines shown per seated player: 5 at once, then one a second."""
CHAT_OTHERS = Limit(20, 2)
"""Chat lines shown from everyone else (spectators, strangers) together."""


class ChatFilter:
    """Chat frames in, the lines to show out."""

    def __init__(self) -> None:
        self._per_seat = Budget("chat", CHAT_PER_SEAT, max_peers=64)
        self._others = Budget("chat", CHAT_OTHERS, max_peers=1)

    def line(self, frame: Frame, now: float, *, facts: GameFacts | None,
             names: tuple[str, ...], announce: dict[str, Any] | None,
             host_key: bytes | None) -> ChatLine | None:
        """The line a chat frame (checked: signed, this table's) shows, if any."""
        text = clean_text(required(frame.body, "text", str), MAX_CHAT)
        name = clean_text(required(frame.body, "name", str), 24) or "?"
        # A seated player speaks under its seat's name, whatever it claims.
        keys = facts.keys if facts else ()
        # Before the deal the seats are the host's announcement's (no facts yet).
        announced = {entry["key"]: clean_text(str(entry.get("name", "")), 24) or "?"
                     for entry in (announce or {}).get("seats") or ()
                     if isinstance(entry, dict) and isinstance(entry.get("key"), bytes)}
        seated = frame.sender in keys or frame.sender in announced \
            or frame.sender == host_key
        if seated and not self._per_seat.allow(frame.sender_id, now):
            return None
        if not seated and not self._others.allow("(others)", now):
            return None
        if frame.sender in keys:
            name = names[keys.index(frame.sender)]
        elif frame.sender in announced:
            name = announced[frame.sender]
        elif frame.sender == host_key:
            name = f"{name} (host)"
        else:
            name = f"{name} (watching)"
        return ChatLine(name, text) if text else None

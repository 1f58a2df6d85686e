"""Netplay's exception tree."""

from __future__ import annotations


class NetplayError(Exception):
    """Base of netplay errors."""


class FrameError(NetplayError):
    """A frame was dropped: malformed, oversized, badly signed, replayed or misplaced.

    ``reason`` is the words that go to the log.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class ProfileError(NetplayError):
    """A profile could not be loaded or created."""


class ConnectionLost(NetplayError):
    """The broker went away and could not be reached again in time."""

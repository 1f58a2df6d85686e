"""The engine's exception tree. Every error is a ``ValueError`` with a readable message."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of everything the engine raises on bad input."""


class ConfigError(EngineError):
    """A rules setting is out of range or unknown."""


class MalformedError(EngineError):
    """A wire record is not shaped like any action or event (wrong type, field, value)."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules don't allow now ("Red 4 can't go on Blue pile 2")."""


class InvalidEventError(EngineError):
    """An event does not fit the state it is applied to: a desync or a forged event."""

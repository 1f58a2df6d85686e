"""Plain-data wire form shared by actions, events and snapshots, in both games.

A record is a frozen dataclass whose fields are ints, bools, ``IntEnum`` values or
tuples of ints. ``to_wire()`` gives ``{"type": NAME, field: value, ...}`` with enums as
ints and tuples as lists; ``from_wire()`` accepts only exactly that shape, so untrusted
data either becomes a well-typed record or raises :class:`MalformedError`.

A snapshot (a state as plain data, each game's ``snapshot`` module) is decoded field by
field with :func:`snapshot_int` and its kin, inside :func:`decoding_snapshot`, which
turns any other failure into a :class:`MalformedError` and refuses an impossible state.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import IntEnum
from types import UnionType
from typing import Any, ClassVar, Self, TypeVar, get_args, get_origin

from engine.cards import HIDDEN
from engine.errors import EngineError, MalformedError
from engine.state import Outcome, Termination

_S = TypeVar("_S")

MAX_WIRE_INT = 1 << 31
MAX_WIRE_TUPLE = 256


def _int_field(name: str) -> typing.Callable[[object], object]:
    def decode(value: object) -> object:
        if type(value) is not int or not -MAX_WIRE_INT <= value < MAX_WIRE_INT:
            raise MalformedError(f"field {name!r} must be a small integer, not {value!r}")
        return value

    return decode


def _bool_field(name: str) -> typing.Callable[[object], object]:
    def decode(value: object) -> object:
        if type(value) is not bool:
            raise MalformedError(f"field {name!r} must be true or false, not {value!r}")
        return value

    return decode


def _enum_field(name: str, enum: type[IntEnum]) -> typing.Callable[[object], object]:
    # A dict lookup, not ``enum(value)``: the enum's call machinery costs more than the
    # rest of the decode. ``type(value) is int`` keeps bools (and floats equal to a
    # member's value) out, as before.
    members: dict[int, IntEnum] = {int(member): member for member in enum}

    def decode(value: object) -> object:
        if type(value) is not int:
            raise MalformedError(f"field {name!r} must be an integer, not {value!r}")
        member = members.get(value)
        if member is None:
            raise MalformedError(f"field {name!r}: {value} is no {enum.__name__}")
        return member

    return decode


def _tuple_field(name: str) -> typing.Callable[[object], object]:
    item = _int_field(name)

    def decode(value: object) -> object:
        if not isinstance(value, list | tuple) or len(value) > MAX_WIRE_TUPLE:
            raise MalformedError(f"field {name!r} must be a list of at most {MAX_WIRE_TUPLE} ints")
        return tuple(item(v) for v in value)

    return decode


def _optional(
    decode: typing.Callable[[object], object],
) -> typing.Callable[[object], object]:
    def optional(value: object) -> object:
        return None if value is None else decode(value)

    return optional


def _decoder_for(name: str, hint: Any) -> typing.Callable[[object], object]:
    origin = get_origin(hint)
    if origin in (typing.Union, UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) == 1:
            return _optional(_decoder_for(name, args[0]))
    if hint is bool:
        return _bool_field(name)
    if hint is int:
        return _int_field(name)
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return _enum_field(name, hint)
    if origin is tuple:
        return _tuple_field(name)
    raise TypeError(f"unsupported wire field type {hint!r} for {name}")


def _encoder_for(hint: Any) -> typing.Callable[[Any], object] | None:
    """How a field of type ``hint`` goes on the wire: ``None`` when its value goes as it
    is (ints, bools, ``None``), else the conversion to plain data (an enum to its int, a
    tuple to a list). Only types :func:`_decoder_for` accepts get here."""
    if get_origin(hint) in (typing.Union, UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        inner = _encoder_for(args[0]) if len(args) == 1 else None
        if inner is None:
            return None
        return lambda value: None if value is None else inner(value)
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return int
    if get_origin(hint) is tuple:
        return list
    return None


class _Codec:
    """One record type's wire form, worked out once from its fields' declared types:
    ``to_wire`` and ``from_wire`` then run through a short loop with no type tests."""

    __slots__ = ("decoders", "encoders", "expected")

    def __init__(self, record_type: type[Record]) -> None:
        fields = dataclasses.fields(record_type)  # type: ignore[arg-type]
        if not all(f.init for f in fields):
            raise TypeError(f"{record_type.__name__}: every wire field must be an init field")
        hints = typing.get_type_hints(record_type)
        self.encoders = tuple((f.name, _encoder_for(hints[f.name])) for f in fields)
        self.decoders = tuple((f.name, _decoder_for(f.name, hints[f.name])) for f in fields)
        self.expected = ", ".join(f.name for f in fields)
        """The fields, named in an error."""


class Record:
    """Base of wire records. Subclasses are frozen dataclasses with a ``TYPE`` tag."""

    __slots__ = ()
    TYPE: ClassVar[str]
    _family: ClassVar[dict[str, type[Record]]]
    _codec: ClassVar[_Codec | None]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_family" in cls.__dict__:
            return  # a family root (Action, Event)
        family = cls._family
        known = family.get(cls.TYPE)
        # dataclass(slots=True) re-creates the class: the same name may register twice.
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise TypeError(f"duplicate wire type {cls.TYPE!r}")
        family[cls.TYPE] = cls
        cls._codec = None  # made on first use: the type hints need every module loaded

    @classmethod
    def _wire_codec(cls) -> _Codec:
        codec = cls._codec
        if codec is None:
            codec = cls._codec = _Codec(cls)
        return codec

    def to_wire(self) -> dict[str, object]:
        codec = self._codec or self._wire_codec()  # one attribute load once it is made
        out: dict[str, object] = {"type": self.TYPE}
        for name, encode in codec.encoders:
            value = getattr(self, name)
            out[name] = value if encode is None else encode(value)
        return out

    @classmethod
    def from_wire(cls, data: object) -> Self:
        """Decode untrusted plain data into a record of this family (or this exact type)."""
        if not isinstance(data, dict):
            kind = cls.__name__.lower()
            raise MalformedError(f"a {kind} must be a map, not {type(data).__name__}")
        tag = data.get("type")
        record_type = cls._family.get(tag) if isinstance(tag, str) else None
        if record_type is None or not issubclass(record_type, cls):
            raise MalformedError(f"unknown {cls.__name__.lower()} type {tag!r}")
        codec = record_type._codec or record_type._wire_codec()
        decoders = codec.decoders
        if len(data) != len(decoders) + 1:
            raise MalformedError(f"{tag} takes exactly the fields: {codec.expected}")
        values = []
        for name, decode in decoders:
            try:
                value = data[name]
            except KeyError:
                raise MalformedError(f"{tag} is missing field {name!r}") from None
            values.append(decode(value))
        return record_type(*values)


def prepare_codecs() -> int:
    """Work out the wire codec of every record type loaded, now; how many were made.

    A codec is otherwise made the first time its type is encoded or decoded, and that
    costs about a millisecond (``typing.get_type_hints`` mostly): paid in the middle of a
    game by the first action of each kind, in every process, host and peers alike. A
    peer calls this as it starts, when every module the game needs is loaded."""
    made = 0
    roots = [Record]
    while roots:
        cls = roots.pop()
        roots.extend(cls.__subclasses__())
        if "_family" in cls.__dict__:
            for record_type in cls._family.values():
                if record_type._codec is None:
                    record_type._wire_codec()
                    made += 1
    return made


# -- snapshots --------------------------------------------------------------------------------


def snapshot_int(value: object, name: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise MalformedError(f"snapshot field {name} must be an integer {low}..{high}")
    return value


def snapshot_bool(value: object, name: str) -> bool:
    if type(value) is not bool:
        raise MalformedError(f"snapshot field {name} must be true or false")
    return value


def snapshot_list(value: object, name: str, most: int) -> list[object]:
    if not isinstance(value, list) or len(value) > most:
        raise MalformedError(f"snapshot field {name} must be a list of at most {most}")
    return value


def snapshot_cards(value: object, name: str, deck_size: int) -> list[int]:
    """A list of card ids of a ``deck_size``-card game, :data:`HIDDEN` allowed."""
    if not isinstance(value, list) or len(value) > deck_size:
        raise MalformedError(f"snapshot field {name} must be a list of cards")
    return [snapshot_int(v, name, HIDDEN, deck_size - 1) for v in value]


def outcome_to_wire(outcome: Outcome | None) -> list[int | None] | None:
    return None if outcome is None else [int(outcome.termination), outcome.winner]


def outcome_from_wire(value: object, winners: int) -> Outcome | None:
    """``[termination, winner]`` or ``null``; the winner (a seat or a team) is
    ``0..winners-1`` or ``null`` (a draw)."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise MalformedError("outcome is [termination, winner]")
    termination = Termination(snapshot_int(value[0], "termination", 0, len(Termination) - 1))
    winner = None if value[1] is None else snapshot_int(value[1], "winner", 0, winners - 1)
    return Outcome(termination, winner)


@contextmanager
def decoding_snapshot() -> Iterator[None]:
    """Decode a snapshot's fields inside this: a missing field or any engine error (a
    bad rules map, say) becomes a :class:`MalformedError`."""
    try:
        yield
    except KeyError as exc:
        raise MalformedError(f"snapshot is missing {exc.args[0]!r}") from None
    except EngineError as exc:
        if isinstance(exc, MalformedError):
            raise
        raise MalformedError(f"snapshot: {exc}") from exc


def possible(state: _S, check_invariants: Callable[[_S], list[str]]) -> _S:
    """``state`` if it passes the game's invariants, else a :class:`MalformedError`."""
    problems = check_invariants(state)
    if problems:
        raise MalformedError(f"snapshot of an impossible state: {problems[0]}")
    return state

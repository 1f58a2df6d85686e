"""What each audience may see, the same in both games: views, redacted events, the hash.

Both games hide the same zones: the draw pile from everyone, and each hand from every
audience but its seat (a teammate's too, in classic Sequence; table talk is not
allowed). The host (:data:`~engine.state.HOST`) sees all. An event that carries hidden
cards says so by its base: :class:`FaceDown` (cards only the host may know: the shuffled
draw pile) or :class:`DrawnCards` (cards the drawer and the host know).

The public hash of a state is the SHA-256 of the canonical JSON of its public part
(each game lists that part, :func:`engine.views.public_state`), equal on the host and
on every view of the same moment.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, Protocol, Self, TypeVar

from engine.cards import HIDDEN, CardId
from engine.state import HOST, SPECTATOR, Audience, Seat


class ViewState(Protocol):
    """What :func:`view_for` reads and hides of a game's state."""

    players: int
    audience: Audience
    draw_pile: list[CardId]
    hands: list[list[CardId]]

    def copy(self) -> Self: ...


S = TypeVar("S", bound=ViewState)


def view_for(state: S, audience: Audience) -> S:
    """A copy of ``state`` as ``audience`` (a seat, SPECTATOR or HOST) may see it.

    Hidden zones (the draw pile, other players' hands) hold :data:`HIDDEN` in place of
    every card. A view of a view keeps what the narrower audience may not see hidden.
    """
    if audience != HOST and audience != SPECTATOR and not 0 <= audience < state.players:
        raise ValueError(f"no seat {audience} at a {state.players}-player table")
    view = state.copy()
    view.audience = audience
    if audience == HOST:
        return view
    view.draw_pile = [HIDDEN] * len(state.draw_pile)
    for seat, hand in enumerate(view.hands):
        if seat != audience:
            view.hands[seat] = [HIDDEN] * len(hand)
    return view


def hide(cards: tuple[CardId, ...]) -> tuple[CardId, ...]:
    return (HIDDEN,) * len(cards)


class FaceDown:
    """An event whose ``cards`` only the host may see (a shuffle into the draw pile)."""

    __slots__ = ()
    cards: tuple[CardId, ...]

    def redacted_for(self, audience: Audience) -> Self:
        return self if audience == HOST else replace(self, cards=hide(self.cards))  # type: ignore[type-var]


class DrawnCards:
    """An event whose ``cards`` only the host and the drawing ``seat`` may see."""

    __slots__ = ()
    seat: Seat
    cards: tuple[CardId, ...]

    def redacted_for(self, audience: Audience) -> Self:
        if audience in (HOST, self.seat):
            return self
        return replace(self, cards=hide(self.cards))  # type: ignore[type-var]


class _Wire(Protocol):
    def to_wire(self) -> dict[str, Any]: ...


_CANONICAL = json.JSONEncoder(separators=(",", ":"), sort_keys=True, check_circular=False)
"""``json.dumps(data, separators=(",", ":"), sort_keys=True)``, byte for byte, for the
plain (acyclic) data of states, made once: the hash runs after every action."""


_MAKE_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_ONE_SHOT: Callable[[object, int], Iterable[str]] | None = (
    None if _MAKE_ENCODER is None
    else _MAKE_ENCODER(
        None, _CANONICAL.default, json.encoder.encode_basestring_ascii, _CANONICAL.indent,
        _CANONICAL.key_separator, _CANONICAL.item_separator, _CANONICAL.sort_keys,
        _CANONICAL.skipkeys, _CANONICAL.allow_nan,
    )
)
"""The C encoder ``_CANONICAL.encode`` makes anew for each call (``JSONEncoder.iterencode``
with the same arguments), made once: a tenth of the hash. ``None`` without the C
accelerator, where ``_CANONICAL.encode`` does the work."""


def canonical_json(data: list[Any] | dict[str, Any]) -> str:
    """``json.dumps(data, separators=(",", ":"), sort_keys=True)`` of a plain acyclic
    list or map."""
    if _ONE_SHOT is None:
        return _CANONICAL.encode(data)
    return "".join(_ONE_SHOT(data, 0))


@functools.lru_cache(maxsize=64)
def config_json(config: _Wire) -> str:
    """A table's rules as canonical JSON (cached: a table keeps its rules)."""
    return canonical_json(config.to_wire())


@functools.lru_cache(maxsize=64)
def _tail(text: str) -> bytes:
    """``,"text"]``: a list's last item ``text`` (a string), JSON-encoded, and the list's
    end, as UTF-8 bytes (the JSON is ASCII)."""
    return f",{canonical_json([text])[1:]}".encode()


def hash_public(public: list[object]) -> str:
    """SHA-256 (hex, 32 chars) of the canonical JSON of a state's public part.

    The part ends with the table's rules as a JSON string (:func:`config_json`), the
    same for every hash of a table and as long as the rest: that string is encoded
    once (:func:`_tail`) and its bytes follow the rest's, which are those of
    ``[a,...,y]`` without the ``]``, exactly as in the JSON of the whole list."""
    last = public[-1] if len(public) > 1 else None
    if type(last) is not str:
        return hashlib.sha256(canonical_json(public).encode()).hexdigest()[:32]
    digest = hashlib.sha256(canonical_json(public[:-1])[:-1].encode())
    digest.update(_tail(last))
    return digest.hexdigest()[:32]

"""What the reducers of both games share: dispatch, trial application, the card zones.

Each game has one reducer (:func:`engine.reducer.apply`, :func:`engine.classic.apply`):
one function per event type, run on the host's state and on every peer's view. The
skeleton around those functions is the same in both (:class:`Reducer`), and so are the
zones both games have, a face-down draw pile and hands that a view may hold as
:data:`~engine.cards.HIDDEN` (:class:`Zones`). An event that does not fit raises
:class:`InvalidEventError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

from engine.cards import HIDDEN, CardId
from engine.errors import InvalidEventError
from engine.state import HOST, Audience, Seat


class ZoneState(Protocol):
    """What :class:`Reducer` and :class:`Zones` read and change of a game's state."""

    players: int
    audience: Audience
    deck: tuple[CardId, ...]
    draw_pile: list[CardId]
    hands: list[list[CardId]]

    @property
    def phase(self) -> int: ...

    def copy(self) -> Self: ...


class _Typed(Protocol):
    TYPE: ClassVar[str]


S = TypeVar("S", bound=ZoneState)
E = TypeVar("E", bound=_Typed)


class Reducer(Generic[S, E]):
    """Dispatch on the event's type to one handler; nothing follows the end of the game."""

    __slots__ = ("game_over", "handlers")

    def __init__(self, handlers: Mapping[type[Any], Callable[[S, Any], None]], game_over: int):
        self.handlers = dict(handlers)
        self.game_over = game_over

    def apply(self, state: S, event: E) -> None:
        """Apply ``event`` to ``state`` in place."""
        handler = self.handlers.get(type(event))
        if handler is None:
            raise InvalidEventError(f"no reducer for {type(event).__name__}")
        if state.phase == self.game_over:
            raise InvalidEventError(f"the game is over; {event.TYPE} can't follow")
        handler(state, event)

    def apply_checked(self, state: S, event: E) -> None:
        """Apply an untrusted event: any inconsistency leaves ``state`` as it was.

        Works on a copy and swaps it in only on success, so a half-applied event can't
        leave a peer in a state nobody else has.
        """
        trial = state.copy()
        try:
            self.apply(trial, event)
        except InvalidEventError:
            raise
        except (IndexError, KeyError, ValueError, TypeError, AttributeError) as exc:
            raise InvalidEventError(f"{event.TYPE} does not fit this state: {exc}") from exc
        slots: tuple[str, ...] = type(state).__slots__  # type: ignore[attr-defined]
        for name in slots:
            setattr(state, name, getattr(trial, name))


def check_seat(state: ZoneState, seat: Seat) -> Seat:
    if type(seat) is not int or not 0 <= seat < state.players:
        raise InvalidEventError(f"no seat {seat} at a {state.players}-player table")
    return seat


class Zones:
    """The checks and changes of the zones both games have: a game's card ids are
    ``0..size-1``, ``deck`` names them in messages (``the deck``, ``the decks``) and
    ``name`` names one card (``Red 4``, ``5 of Hearts``, ``a hidden card``)."""

    __slots__ = ("deck", "name", "size")

    def __init__(self, size: int, deck: str, name: Callable[[CardId], str]) -> None:
        self.size = size
        self.deck = deck
        self.name = name

    def known(self, card: CardId) -> CardId:
        """A card that every audience must know (it goes face up)."""
        if type(card) is not int or not 0 <= card < self.size:
            raise InvalidEventError(f"{card!r} is not a card of {self.deck}")
        return card

    def visible(self, state: ZoneState, card: CardId, *seats: Seat) -> CardId:
        """A card that the host and ``seats`` must know; other audiences may see HIDDEN."""
        if card == HIDDEN:
            if state.audience == HOST or state.audience in seats:
                raise InvalidEventError("a hidden card where this view must know the card")
            return card
        return self.known(card)

    def remove_from_hand(self, hand: list[CardId], card: CardId) -> None:
        """Remove ``card`` from a hand that may hold hidden cards.

        A known card leaves as itself, or as one of the hidden ones. When an unknown card
        leaves (a blind steal seen by a third party), nobody watching can tell which one
        went, so every card of that hand becomes unknown to this view.
        """
        if card != HIDDEN:
            try:
                hand.remove(card)
                return
            except ValueError:
                pass
        if not hand:
            raise InvalidEventError(f"{self.name(card)} can't leave an empty hand")
        if card == HIDDEN:
            hand[:] = [HIDDEN] * (len(hand) - 1)
            return
        try:
            hand.remove(HIDDEN)
        except ValueError:
            raise InvalidEventError(f"{self.name(card)} is not in that hand") from None

    def form_draw_pile(self, state: ZoneState, cards: tuple[CardId, ...]) -> None:
        """The whole deck, shuffled, becomes the draw pile (bottom to top)."""
        if len(cards) != len(state.deck):
            raise InvalidEventError(f"the draw pile must hold {len(state.deck)} cards")
        for card in cards:
            self.visible(state, card)
        if HIDDEN not in cards and sorted(cards) != sorted(state.deck):
            raise InvalidEventError(f"the draw pile is not a permutation of {self.deck}")
        state.draw_pile = list(cards)

    def reshuffle(
        self, state: ZoneState, cards: tuple[CardId, ...], pool: list[CardId], what: str
    ) -> None:
        """The cards of ``pool`` (``what``: its name), shuffled, become the new draw
        pile; the caller empties the pool's zones."""
        if state.draw_pile:
            raise InvalidEventError("a reshuffle happens only when the draw pile is empty")
        if len(cards) != len(pool):
            raise InvalidEventError(f"{what}: {len(pool)} cards, not {len(cards)}")
        for card in cards:
            self.visible(state, card)
        if HIDDEN not in cards and sorted(cards) != sorted(pool):
            raise InvalidEventError(f"the reshuffled cards are not {what}")
        state.draw_pile = list(cards)

    def draw(self, state: ZoneState, seat: Seat, cards: tuple[CardId, ...]) -> None:
        """``seat`` takes ``cards`` from the top of the draw pile, in order."""
        check_seat(state, seat)
        count = len(cards)
        pile = state.draw_pile
        if count == 0 or count > len(pile):
            raise InvalidEventError(f"can't draw {count} cards from a pile of {len(pile)}")
        for card in cards:
            self.visible(state, card, seat)
        top = pile[-count:]
        top.reverse()
        for known, drawn in zip(top, cards, strict=True):
            if known != HIDDEN and known != drawn:
                raise InvalidEventError("the drawn cards are not the top of the draw pile")
        del pile[-count:]
        state.hands[seat].extend(cards)

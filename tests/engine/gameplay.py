"""Seeded games for the engine's property tests.

A :class:`Table` wraps a :class:`~engine.game.Game`. Beside the host state it keeps a
*shadow* host state and, on request, one view per seat and a spectator view. After every
step it applies the step's events one at a time to each of them (the views get the event
redacted for their audience), so a check can look at the table after every single event,
not only after every action.

Games are chosen by a seeded :class:`~engine.rng.Rng`, so every game here is a pure
function of ``(seed, players)``: a failure names the seed and players that reproduce it.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections import Counter
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any, TypeVar

from hypothesis import strategies as st

from engine.actions import (
    Action,
    Block,
    CloseBlockWindow,
    Discard,
    EndTurn,
    PassBlock,
    PlayCard,
    PlayReverse,
    PlaySkip,
    StealCard,
    StealChip,
)
from engine.cards import COLOUR, DECK_SIZE, HIDDEN, KIND, RANK, CardId, Colour, Kind, TwoPlayerDeck
from engine.classic.actions import SequenceAction
from engine.classic.events import SequenceEvent
from engine.config import (
    RulesConfig,
    SkipStacking,
    SkipTiming,
    StalemateResult,
    StealChipWin,
)
from engine.events import CardTaken, Event
from engine.game import Game
from engine.reducer import apply
from engine.rng import Rng, derive_seed
from engine.rules import legal_actions
from engine.state import NEW_PILE, SPECTATOR, Audience, Phase, Pile, PileId, Seat, State, Zone
from engine.views import view_for
from engine.wire import Record

EventCheck = Callable[["Table", Event], None]
StateCheck = Callable[["Table"], None]
T = TypeVar("T")

MAX_ACTIONS = 200_000
"""No game of these tests may take more actions than this (it would be a hang)."""


def table_seed(seed: int) -> bytes:
    """The host's deal/steal seed of property game ``seed``."""
    return derive_seed(seed, label="properties")


def chooser_rng(seed: int) -> Rng:
    """The generator that picks the actions of property game ``seed``."""
    return Rng(derive_seed(seed, label="properties-chooser"))


# -- configs -----------------------------------------------------------------------------------


def _pick(rng: Rng, options: Sequence[T]) -> T:
    return options[rng.below(len(options))]


def random_config(rng: Rng, players: int) -> RulesConfig:
    """A valid table config, each setting left at its DEFAULT about half of the time."""
    default = RulesConfig()
    choices: dict[str, list[Any]] = {
        "two_player_deck": list(TwoPlayerDeck),
        "first_player": [None, 0, players - 1],
        "hand_size": [1, 2, 3, 7, 20],
        "max_open_piles_per_colour": [0, 1, 3],
        "forced_play": [True],
        "unlimited_chips": [True],
        "chips_per_colour": [1, 2, 3],
        "reshuffle_includes_action_cards": [True],
        "steal_card_from_hand": [False],
        "block_from_discard": [True],
        "win_chips": [1, 2, 3, 8],
        "win_min_each_colour": [0, 1],
        "steal_chip_win": list(StealChipWin),
        "skip_stacking": list(SkipStacking),
        "skip_timing": list(SkipTiming),
        "stalemate_result": list(StalemateResult),
        "max_turns": [1, 5, 40, 150, 400],
        "max_plays_per_turn": [1, 2, 5],
    }
    values: dict[str, Any] = {}
    for name, options in choices.items():
        values[name] = _pick(rng, options) if rng.below(2) else getattr(default, name)
    # House rules can starve the game of wins (one chip per colour...): keep games short.
    values["max_turns"] = _pick(rng, choices["max_turns"])
    win_chips = values["win_chips"]
    values["win_min_each_colour"] = min(values["win_min_each_colour"], win_chips // 2)
    if rng.below(3) == 0:
        values["hand_limit"] = values["hand_size"] + rng.below(4)
    return RulesConfig(**values)


def config_for(seed: int, players: int) -> RulesConfig:
    """Game ``seed``'s config: the DEFAULT for a third of the seeds, house rules otherwise."""
    if seed % 3 == 0:
        return RulesConfig()
    return random_config(Rng(derive_seed(seed, label="properties-config")), players)


# -- the table ---------------------------------------------------------------------------------


class Table:
    """A host game plus replicas advanced event by event (see the module docstring)."""

    def __init__(
        self,
        players: int,
        seed: int,
        config: RulesConfig | None = None,
        *,
        views: bool = False,
        event_checks: list[EventCheck] | None = None,
    ) -> None:
        self.seed = seed
        self.players = players
        self.game = Game.new(players, table_seed(seed), config)
        self.state: State = self.game.state
        self.deal_events: list[Event] = list(self.game.log)
        self.shadow = self.state.copy()
        self.views: list[State] = (
            [view_for(self.state, seat) for seat in range(players)] if views else []
        )
        self.spectator: State | None = view_for(self.state, SPECTATOR) if views else None
        self.known: dict[Audience, list[set[CardId]]] = {
            viewer: [set() for _ in range(players)] for viewer in [*range(players), SPECTATOR]
        }
        """``known[viewer][holder]``: cards in ``holder``'s hand that ``viewer`` saw go there:
        a card taken from a (face-up) discard top, or taken from the viewer's own hand."""
        self.actions: list[Action] = []
        self.events: list[Event] = []
        self.event_checks: list[EventCheck] = list(event_checks or [])

    @property
    def over(self) -> bool:
        return self.state.outcome is not None

    def act(self, action: Action) -> list[Event]:
        """Step the host, then replay the events one by one on every replica."""
        events = self.game.act(action)
        self.actions.append(action)
        for event in events:
            self.events.append(event)
            apply(self.shadow, event)
            for seat, view in enumerate(self.views):
                apply(view, event.redacted_for(seat))
            if self.spectator is not None:
                apply(self.spectator, event.redacted_for(SPECTATOR))
            if self.views:
                self._learn(event)
            for check in self.event_checks:
                check(self, event)
        assert self.shadow == self.state, (
            f"{self.where()}: step's result is not the fold of apply over its events"
        )
        return events

    def _learn(self, event: Event) -> None:
        """Track what each seat may legitimately know about other seats' hands."""
        if isinstance(event, CardTaken):
            for viewer, known in self.known.items():
                if event.zone == Zone.DISCARD or viewer == event.target:
                    known[event.seat].add(event.card)
        for known in self.known.values():
            for holder, cards in enumerate(known):
                if cards:
                    cards.intersection_update(self.shadow.hands[holder])

    def where(self) -> str:
        """Where the table is, for failure messages: enough to reproduce it.

        (The rules are ``config_for(seed, players)``; play on with ``new_game`` and
        ``play``, or step through ``choose`` with ``chooser_rng(seed)``.)
        """
        return (
            f"seed={self.seed} players={self.players} "
            f"action#{len(self.actions)} event#{len(self.events)}"
        )


# -- choosing actions --------------------------------------------------------------------------


def window_options(state: State) -> list[Action]:
    """Everything any seat may do in an open Block window."""
    return [a for seat in range(state.players) for a in legal_actions(state, seat)]


def choose(table: Table, rng: Rng, eager: int) -> Action:
    """A random legal action; with ``eager`` percent it prefers playing on to ending the turn.

    In a Block window any seat may act (the race), and the host closes the window now
    and then before everyone has answered.
    """
    state = table.state
    if state.phase == Phase.BLOCK_WINDOW:
        options = window_options(state)
        if not options or rng.below(5) == 0:
            return CloseBlockWindow()
        return _pick(rng, options)
    legal = legal_actions(state, state.current)
    assert legal, f"{table.where()}: the seat to move has no legal action"
    if rng.below(100) < eager:
        plays = [a for a in legal if not isinstance(a, Discard | EndTurn)]
        if plays:
            return _pick(rng, plays)
    return _pick(rng, legal)


def play(
    table: Table,
    rng: Rng,
    *,
    eager: int | None = None,
    on_state: StateCheck | None = None,
) -> Table:
    """Play ``table`` to the end; ``on_state`` runs before every action and at the end."""
    if eager is None:
        eager = _pick(rng, [0, 50, 80, 95])
    while not table.over:
        assert len(table.actions) < MAX_ACTIONS, f"{table.where()}: the game does not end"
        if on_state is not None:
            on_state(table)
        table.act(choose(table, rng, eager))
    if on_state is not None:
        on_state(table)
    return table


def new_game(
    seed: int,
    players: int,
    *,
    views: bool = False,
    event_checks: list[EventCheck] | None = None,
    default_config: bool = False,
) -> tuple[Table, Rng]:
    """Property game ``seed`` at ``players`` seats, ready to :func:`play`."""
    config = RulesConfig() if default_config else config_for(seed, players)
    table = Table(players, seed, config, views=views, event_checks=event_checks)
    return table, chooser_rng(seed)


# -- checks on a host state --------------------------------------------------------------------


def zone_cards(state: State) -> list[CardId]:
    """Every card of every zone, the completed pile of an open Block window included."""
    cards = [*state.draw_pile, *state.out_of_play, *state.special_discard]
    for hand in state.hands:
        cards += hand
    for discard in state.discards:
        cards += discard
    for pile in state.piles:
        cards += pile.cards
    if state.window is not None:
        cards += state.window.pile.cards
    return cards


def card_zone_problems(state: State) -> list[str]:
    """Cards missing from every zone, in two zones, or not of this deck (host states)."""
    cards = zone_cards(state)
    cards.sort()
    if cards == list(state.deck):  # the deck is in id order
        return []
    counts = Counter(cards)
    deck = Counter(state.deck)
    problems = []
    if counts != deck:
        twice = sorted(c for c, n in counts.items() if n > 1)
        missing = sorted(deck.keys() - counts.keys())
        foreign = sorted(counts.keys() - deck.keys())
        problems.append(f"in two zones: {twice}; in none: {missing}; not in the deck: {foreign}")
    return problems


def chip_problems(state: State) -> list[str]:
    cfg = state.config
    problems = []
    for colour in Colour:
        held = [chips[colour] for chips in state.chips]
        if min(held) < 0 or state.supply[colour] < 0:
            problems.append(f"negative {colour.title} chips: held {held}, supply {state.supply}")
        if not cfg.unlimited_chips and sum(held) + state.supply[colour] != cfg.chips_per_colour:
            problems.append(
                f"{colour.title}: {sum(held)} held + {state.supply[colour]} in supply "
                f"!= {cfg.chips_per_colour}"
            )
    return problems


def pile_problems(pile: Pile, *, complete: bool) -> list[str]:
    """A pile runs 1, 2, ... in its own colour, wilds standing for the next number."""
    problems = []
    if complete != (pile.height == 5) or not 1 <= pile.height <= 5:
        problems.append(f"{pile.label()} has {pile.height} cards")
    for position, card in enumerate(pile.cards, start=1):
        if not 0 <= card < DECK_SIZE:
            problems.append(f"{pile.label()} holds card {card}")
            continue
        kind = KIND[card]
        if kind not in (Kind.NUMBER, Kind.WILD) or COLOUR[card] != pile.colour:
            problems.append(f"{pile.label()} holds card {card} at {position}")
        elif kind is Kind.NUMBER and RANK[card] != position:
            problems.append(f"{pile.label()} holds rank {RANK[card]} at {position}")
    return problems


def table_pile_problems(state: State, completing: PileId | None = None) -> list[str]:
    """Open piles are valid and 1-4 high; ``completing`` may be 5 high.

    (Between the ``CardPlayed`` that places a fifth card and the ``PileCompleted`` that
    follows it, the completed pile is still among the open piles.)
    """
    problems = []
    for pile in state.piles:
        problems += pile_problems(pile, complete=pile.id == completing and pile.height == 5)
    if state.window is not None:
        problems += pile_problems(state.window.pile, complete=True)
    ids = [p.id for p in state.piles]
    if len(set(ids)) != len(ids) or any(not 0 <= i < state.next_pile_id for i in ids):
        problems.append(f"pile ids {ids} with next id {state.next_pile_id}")
    limit = state.config.max_open_piles_per_colour
    for colour in Colour:
        if limit and state.open_piles(colour) > limit:
            problems.append(f"{state.open_piles(colour)} open {colour.title} piles")
    return problems


# -- views -------------------------------------------------------------------------------------


def masked(view: State) -> State:
    """``view`` with whatever it knows of other seats' hands forgotten."""
    copy = view.copy()
    for seat, hand in enumerate(copy.hands):
        if seat != view.audience:
            copy.hands[seat] = [HIDDEN] * len(hand)
    return copy


# -- wire --------------------------------------------------------------------------------------


def wire_key(record: Action | Event) -> str:
    """A canonical, hashable text of a record's wire form."""
    return json.dumps(record.to_wire(), sort_keys=True)


def plain_problems(value: object, path: str = "$") -> list[str]:
    """Where ``value`` holds anything but dict (str keys), list, int, bool, str or None."""
    if value is None or type(value) in (bool, int, str):
        return []
    if type(value) is list:
        return [p for i, item in enumerate(value) for p in plain_problems(item, f"{path}[{i}]")]
    if type(value) is dict:
        problems = []
        for key, item in value.items():
            if type(key) is not str:
                problems.append(f"{path}: key {key!r} is a {type(key).__name__}")
            problems += plain_problems(item, f"{path}.{key}")
        return problems
    return [f"{path}: {type(value).__name__} {value!r}"]


# -- random (mostly illegal) actions -----------------------------------------------------------


ACTION_TYPES: tuple[type[Action], ...] = (
    PlayCard,
    PlaySkip,
    PlayReverse,
    StealCard,
    StealChip,
    Discard,
    EndTurn,
    Block,
    PassBlock,
    CloseBlockWindow,
)


_CARD_KIND: dict[type[Action], tuple[Kind, ...]] = {
    PlayCard: (Kind.NUMBER, Kind.WILD),
    PlaySkip: (Kind.SKIP,),
    PlayReverse: (Kind.REVERSE,),
    StealCard: (Kind.STEAL_CARD,),
    StealChip: (Kind.STEAL_CHIP,),
    Block: (Kind.BLOCK,),
}


def random_action(state: State, rng: Rng) -> Action:
    """Any action shape, with fields near to and far from the legal ones."""
    n = state.players
    kind = _pick(rng, list(ACTION_TYPES))
    roll = rng.below(10)
    if roll < 5:
        seat: Seat = state.current
    elif roll < 9:
        seat = rng.below(n)
    else:
        seat = _pick(rng, [-1, n, 6, -(2**31), 2**31 - 1])
    own: list[CardId] = []
    if 0 <= seat < n:
        own = list(state.hands[seat]) + state.discards[seat][-2:]
    fitting = [c for c in own if KIND[c] in _CARD_KIND.get(kind, ())]
    roll = rng.below(10)
    if fitting and roll < 4:
        card = _pick(rng, fitting)
    elif own and roll < 6:
        card = _pick(rng, own)
    elif roll < 9:
        card = rng.below(DECK_SIZE)
    else:
        card = _pick(rng, [HIDDEN, DECK_SIZE, -(2**31), 2**31 - 1])
    piles = [p.id for p in state.piles]
    pile = _pick(rng, [*piles, *piles, NEW_PILE, NEW_PILE, state.next_pile_id, -2, 10**6])
    target = rng.below(n + 2) - 1
    zone = _pick(rng, list(Zone))
    colour = _pick(rng, list(Colour))
    if kind is PlayCard:
        return PlayCard(seat, card, pile)
    if kind is PlaySkip:
        return PlaySkip(seat, card)
    if kind is PlayReverse:
        return PlayReverse(seat, card)
    if kind is StealCard:
        return StealCard(seat, card, target, zone)
    if kind is StealChip:
        return StealChip(seat, card, target, colour)
    if kind is Discard:
        return Discard(seat, card)
    if kind is EndTurn:
        return EndTurn(seat)
    if kind is Block:
        return Block(seat, card)
    if kind is PassBlock:
        return PassBlock(seat)
    return CloseBlockWindow(seat)


# -- hypothesis strategies for records ---------------------------------------------------------

R = TypeVar("R", bound=Record)



def record_types(family: type[R]) -> list[type[R]]:
    """Every concrete record type of a family (``Action`` or ``Event``), by wire tag."""
    return sorted(
        (cls for cls in family._family.values() if issubclass(cls, family)),
        key=lambda cls: cls.TYPE,
    )


def small_ints() -> st.SearchStrategy[int]:
    """Ints near seats, cards and piles, and at the edges of the wire's range."""
    return st.one_of(
        st.integers(-2, 7),
        st.integers(HIDDEN, DECK_SIZE + 1),
        st.sampled_from([2**31 - 1, -(2**31), 10**6]),
    )


def _field(hint: Any) -> st.SearchStrategy[Any]:
    if hint is bool:
        return st.booleans()
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return st.sampled_from(list(hint))
    if hint is int:
        return small_ints()
    if typing.get_origin(hint) is tuple:
        return st.lists(small_ints(), max_size=6).map(tuple)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    assert len(args) == 1, f"no strategy for {hint!r}"
    return st.none() | _field(args[0])


def any_record(family: type[R]) -> st.SearchStrategy[R]:
    """Well-typed records of every type of ``family``, fields near and far from sense."""
    options = []
    for cls in record_types(family):
        hints = typing.get_type_hints(cls)
        fields = {f.name: _field(hints[f.name]) for f in dataclasses.fields(typing.cast(Any, cls))}
        options.append(st.builds(cls, **fields))
    return st.one_of(options)


def forget_codecs() -> list[type[Record]]:
    """Drop the wire codec of every record type of both games (as in a fresh process);
    the types."""
    families: list[type[Record]] = [Action, Event, SequenceAction, SequenceEvent]
    types = [t for family in families for t in family._family.values()]
    for record_type in types:
        record_type._codec = None
    return types

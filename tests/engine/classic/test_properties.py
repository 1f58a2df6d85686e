"""Properties of classic Sequence over seeded random games at every player count.

Checked after every event on the host's shadow state and every view: cards conserved
and every invariant holding; views hiding what they must; the public hash equal on the
host and every view; legal actions from a seat's view equal to the host's, each of them
accepted and nothing outside them accepted; replays reproducing a game exactly.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.classic.actions import SequenceAction
from engine.classic.cards import HIDDEN
from engine.classic.game import SequenceGame
from engine.classic.invariants import check_invariants
from engine.classic.rules import is_legal, legal_actions
from engine.classic.snapshot import state_from_wire, state_to_wire
from engine.classic.state import Phase
from engine.classic.views import public_hash, view_for
from engine.rng import Rng, derive_seed
from engine.state import HOST, SPECTATOR
from tests.engine.classic.gameplay import PLAYERS, Table, random_action

GAMES = settings(
    max_examples=24,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
SEEDS = st.integers(0, 2**32)


def invariants_everywhere(table: Table) -> None:
    for state in (table.shadow, *table.views):
        problems = check_invariants(state)
        assert not problems, f"{table.where()} audience {state.audience}: {problems}"


def cards_conserved(table: Table) -> None:
    state = table.shadow
    zones = [*state.draw_pile, *(c for h in state.hands for c in h)]
    zones += [c for d in state.discards for c in d]
    assert Counter(zones) == Counter(range(104)), table.where()


def piles_never_both_empty(table: Table) -> None:
    """§3.5: cards live in the draw pile, the hands and the discard piles; hands hold at
    most ``players x hand size`` cards, so the draw and discard piles are never both
    empty once the cards are dealt."""
    state = table.shadow
    if state.phase == Phase.SETUP:
        return
    held = sum(len(hand) for hand in state.hands)
    assert held <= state.players * state.hand_size, table.where()
    assert state.draw_pile or any(state.discards), table.where()


def hashes_agree(table: Table) -> None:
    expected = public_hash(table.shadow)
    for view in table.views:
        assert public_hash(view) == expected, f"{table.where()} audience {view.audience}"


def views_hide_hands(table: Table) -> None:
    host = table.shadow
    shuffled = host.phase != Phase.SETUP or host.draw_pile != list(range(104))
    for view in table.views:
        # Before the shuffle the decks lie in id order, which everyone knows.
        assert not shuffled or set(view.draw_pile) <= {HIDDEN}, table.where()
        for seat, hand in enumerate(view.hands):
            if seat == view.audience:
                assert hand == host.hands[seat], table.where()
            else:
                assert set(hand) <= {HIDDEN} and len(hand) == len(host.hands[seat])
        assert view.chips == host.chips and view.discards == host.discards


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS))
def test_cards_conserved_and_invariants_hold_after_every_event(seed: int, players: int) -> None:
    Table(seed, players, [cards_conserved, invariants_everywhere]).play()


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS))
def test_draw_and_discard_piles_are_never_both_empty_after_every_event(
    seed: int, players: int
) -> None:
    Table(seed, players, [piles_never_both_empty]).play()


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS))
def test_views_hide_hands_and_hashes_agree_after_every_event(seed: int, players: int) -> None:
    Table(seed, players, [views_hide_hands, hashes_agree]).play()


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS))
def test_legal_actions_from_a_view_are_the_hosts_and_exactly_the_accepted_ones(
    seed: int, players: int
) -> None:
    table = Table(seed, players, [])
    probe = Rng(seed.to_bytes(8, "big"))
    while not table.game.over:
        state = table.state
        seat = state.current
        legal = legal_actions(state, seat)
        assert legal, table.where()
        assert legal_actions(table.views[seat], seat) == legal, table.where()
        for other in range(players):
            if other != seat:
                assert legal_actions(state, other) == [], table.where()
        listed = set(legal)
        for action in legal[:: max(1, len(legal) // 12)]:
            assert is_legal(state, action), f"{table.where()}: {action} refused"
        for _ in range(12):
            action = random_action(state, probe)
            assert is_legal(state, action) == (action in listed), f"{table.where()}: {action}"
        table.step(table.choose())


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS))
def test_a_game_replays_from_its_seed_and_actions(seed: int, players: int) -> None:
    table = Table(seed, players, [])
    table.play()
    replay = SequenceGame.new(players, _seed_of(table), table.state.config)
    for action in table.actions:
        replay.act(action)
    assert replay.log == table.game.log
    assert public_hash(replay.state) == public_hash(table.state)
    assert table.state.outcome is not None
    assert table.state.outcome == replay.state.outcome


def _seed_of(table: Table) -> bytes:
    return derive_seed(table.seed, label="classic")


@GAMES
@given(seed=SEEDS, players=st.sampled_from(PLAYERS), cut=st.integers(0, 400))
def test_snapshots_of_every_view_round_trip(seed: int, players: int, cut: int) -> None:
    table = Table(seed, players, [])
    while not table.game.over and len(table.actions) < cut:
        table.step(table.choose())
    for audience in (HOST, SPECTATOR, *range(players)):
        view = view_for(table.state, audience)
        back = state_from_wire(state_to_wire(view))
        assert public_hash(back) == public_hash(view)
        assert back.hands == view.hands and back.draw_pile == view.draw_pile
        assert back.sequences == view.sequences and back.locked == view.locked
        assert legal_actions(back, back.current) == legal_actions(view, view.current)


def test_every_player_count_plays_to_an_end() -> None:
    for players in PLAYERS:
        table = Table(7, players, [])
        table.play()
        assert table.state.outcome is not None
        assert isinstance(table.actions[0], SequenceAction)

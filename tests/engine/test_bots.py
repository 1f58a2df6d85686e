"""Bots: legal choices from their own view only, samples consistent with it, fair ties,
reproducible decisions, and the levels by name."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.actions import Action, PassBlock, StealCard
from engine.bots import LEVELS, GreedyBot, SearchBot, canonical, make_bot
from engine.bots.determinize import Determinizer, ViewError, unknown_cards
from engine.bots.search import action_key
from engine.cards import HIDDEN, CardId
from engine.events import CardTaken, Event
from engine.game import Game
from engine.invariants import check_invariants
from engine.reducer import apply
from engine.rules import legal_actions
from engine.runner import game_seed, play_game
from engine.state import HOST, Phase, Seat, State, Zone
from engine.views import public_hash, view_for
from tests.engine.scenario import Cards, table


class Watched:
    """Plays a game like the runner does, handing each bot its own view kept by redacted
    events, and lets a check look at every decision with the host's state beside it."""

    def __init__(self, players: int, seed: bytes) -> None:
        self.game = Game.new(players, seed, keep_log=True)
        self.views = [State.new(self.game.state.config, players) for _ in range(players)]
        self.revealed: list[set[int]] = [set() for _ in range(players)]
        for seat, view in enumerate(self.views):
            view.audience = seat
        self._deliver(list(self.game.log))

    def _deliver(self, events: list[Event]) -> None:
        for seat, view in enumerate(self.views):
            for event in events:
                seen = event.redacted_for(seat)
                apply(view, seen)
                # A card taken from a discard top (in public), or between this seat and
                # an opponent's hand, is one it may know to sit in the taker's hand.
                if isinstance(seen, CardTaken) and seen.card != HIDDEN and (
                    seen.zone == Zone.DISCARD or seat in (seen.seat, seen.target)
                ):
                    self.revealed[seat].add(seen.card)

    def decider(self) -> Seat:
        state = self.game.state
        if state.phase == Phase.BLOCK_WINDOW:
            window = state.window
            assert window is not None
            for offset in range(1, state.players):
                seat = (window.seat + offset) % state.players
                if legal_actions(self.views[seat], seat):
                    return seat
        return state.current

    def play(self, bots: list[object], on_decision: object = None, limit: int = 10_000) -> None:
        for _ in range(limit):
            if self.game.over:
                return
            seat = self.decider()
            view = self.views[seat]
            legal = legal_actions(view, seat)
            if callable(on_decision):
                on_decision(seat, view, legal)
            action = bots[seat].choose(view, seat, legal)  # type: ignore[attr-defined]
            assert action in legal, (action, legal)
            self._deliver(self.game.act(action))
        raise AssertionError("the game did not end")


def assert_view_shows_only_what_the_seat_may_see(
    host: State, view: State, seat: Seat, revealed: set[int]
) -> None:
    assert view.audience == seat
    assert view.hands[seat] == host.hands[seat]  # its own hand, exactly
    assert set(view.draw_pile) <= {HIDDEN} and len(view.draw_pile) == len(host.draw_pile)
    for other, hand in enumerate(view.hands):
        if other == seat:
            continue
        assert len(hand) == len(host.hands[other])
        for card in hand:
            # Either hidden, or a card it handed over or took itself (and it is there).
            assert card == HIDDEN or (card in revealed and card in host.hands[other]), (
                other, card)
    assert public_hash(view) == public_hash(host)  # every public zone as the host has it


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_every_level_plays_legal_actions_from_a_view_with_only_its_own_and_public_faces(
    players: int,
) -> None:
    for index in range(1):
        table_ = Watched(players, game_seed(11, index * 10 + players))
        bots: list[object] = [
            SearchBot(bytes([seat, index]), iterations=4) if seat == 0
            else make_bot(LEVELS[seat % 3], bytes([seat, index]))
            for seat in range(players)
        ]

        def check(seat: Seat, view: State, legal: list[Action], t: Watched = table_) -> None:
            assert legal
            assert_view_shows_only_what_the_seat_may_see(t.game.state, view, seat,
                                                         t.revealed[seat])

        table_.play(bots, check)


def test_a_view_knows_a_card_it_had_stolen_from_it_and_the_check_sees_it() -> None:
    # The view check above is not vacuous: a stolen card is known in the thief's hand.
    for index in range(40):
        table_ = Watched(3, game_seed(12, index))
        bots: list[object] = [make_bot("medium", bytes([s, index])) for s in range(3)]
        known: list[int] = []

        def note(seat: Seat, view: State, legal: list[Action],
                 known: list[int] = known) -> None:
            for other, hand in enumerate(view.hands):
                if other != seat:
                    known.extend(c for c in hand if c != HIDDEN)

        table_.play(bots, note)
        if known:
            return
    raise AssertionError("no game of 40 showed a known card in an opponent's hand")


# -- the determinizer ---------------------------------------------------------------------------


def positions(players: int, count: int) -> list[tuple[State, Seat]]:
    """Host states met in greedy games, with the seat that decides there."""
    out: list[tuple[State, Seat]] = []
    for index in range(count):
        table_ = Watched(players, game_seed(13, index))
        bots: list[object] = [make_bot("medium", bytes([s, index])) for s in range(players)]
        picks: list[tuple[State, Seat]] = []

        def keep(seat: Seat, view: State, legal: list[Action], t: Watched = table_,
                 picks: list[tuple[State, Seat]] = picks) -> None:
            if len(picks) < 200 and t.game.state.turn % 3 == 0:
                picks.append((t.game.state.copy(), seat))

        table_.play(bots, keep)
        out.extend(picks[:: max(1, len(picks) // 6)])
    return out


@pytest.mark.parametrize("players", [2, 4, 5])
def test_samples_agree_with_the_view_and_deal_only_unseen_cards_into_hidden_slots(
    players: int,
) -> None:
    rng = random.Random(5)
    for host, seat in positions(players, 4):
        view = view_for(host, seat)
        sampler = Determinizer(view)
        unseen = Counter(unknown_cards(view))
        # The unseen cards are exactly the host's hidden ones (other hands, draw pile).
        hidden = Counter(host.draw_pile)
        for other, hand in enumerate(host.hands):
            if other != seat:
                hidden.update(hand)
        assert unseen == hidden
        for _ in range(5):
            sample = sampler.sample(rng)
            assert sample.audience == HOST
            assert HIDDEN not in sample.draw_pile
            assert not check_invariants(sample), check_invariants(sample)
            assert public_hash(sample) == public_hash(view)
            assert sample.hands[seat] == view.hands[seat]
            for other in range(players):
                assert len(sample.hands[other]) == len(view.hands[other])
                for mine, shown in zip(sample.hands[other], view.hands[other], strict=True):
                    assert shown == HIDDEN or mine == shown
            filled = Counter(sample.draw_pile)
            for other in range(players):
                if other != seat:
                    filled.update(c for c, shown in zip(sample.hands[other], view.hands[other],
                                                        strict=True) if shown == HIDDEN)
            assert filled == unseen
            # The sample is a real position: the game goes on from it under the rules.
            assert legal_actions(sample, sample.current) or sample.phase != Phase.PLAY


def test_samples_keep_a_known_card_in_an_opponents_hand_and_vary_the_rest() -> None:
    c = Cards()
    steal, mine = c("STEAL_CARD"), c("B5")
    state = table(hands={1: [mine, c("R2")], 2: [steal, *c.many("R1", "B1", "BW")]},
                  current=2)
    # Seat 2 steals Blue 5 from seat 1's hand: seat 1 knows where it is.
    from engine.rng import Rng
    from engine.rules import step

    for seed in range(50):
        trial = state.copy()
        events = step(trial, StealCard(2, steal, 1, Zone.HAND), Rng(bytes([seed])))
        taken = next(e for e in events if isinstance(e, CardTaken))
        if taken.card == mine:
            break
    else:
        raise AssertionError("no seed stole the Blue 5")
    view = view_for(state, 1)
    for event in events:
        apply(view, event.redacted_for(1))
    assert mine in view.hands[2]
    sampler = Determinizer(view)
    rng = random.Random(1)
    samples = [sampler.sample(rng) for _ in range(200)]
    assert all(mine in s.hands[2] for s in samples)
    # The other cards of seat 2's hand vary from sample to sample.
    others = {tuple(sorted(set(s.hands[2]) - {mine})) for s in samples}
    assert len(others) > 100


def test_a_view_whose_counts_do_not_add_up_is_refused() -> None:
    state = table(hands={1: Cards().many("R1", "R2")})
    view = view_for(state, 1)
    view.draw_pile.append(HIDDEN)
    with pytest.raises(ViewError, match="hidden slots"):
        Determinizer(view)
    with pytest.raises(ViewError, match="seat"):
        Determinizer(view_for(state, -1))


# -- reproducible, fair, unpredictable -----------------------------------------------------------


@pytest.mark.parametrize("method", ["ismcts", "paired"])
def test_the_same_seed_and_iterations_give_the_same_decisions(method: str) -> None:
    def decisions(seed: bytes) -> list[Action]:
        chosen: list[Action] = []

        class Recorder:
            name = "hard"

            def __init__(self) -> None:
                self.bot = SearchBot(seed, iterations=12 if method == "ismcts" else 4,
                                     method=method)

            def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
                action = self.bot.choose(view, seat, legal)
                chosen.append(action)
                return action

        play_game(2, [Recorder(), GreedyBot(b"fixed")], game_seed(14, 0))
        return chosen

    first = decisions(b"one")
    assert first == decisions(b"one")
    assert first != decisions(b"two")


def test_a_search_decision_searches_the_given_number_of_iterations() -> None:
    for host, seat in positions(2, 2)[:4]:
        view = view_for(host, seat)
        legal = legal_actions(view, seat)
        bot = SearchBot(b"s", iterations=25)
        action = bot.choose(view, seat, legal)
        assert action in legal
        if len({action_key(view, a) for a in legal}) > 1:
            assert bot.stats.iterations == 25
        else:
            assert bot.stats.iterations == 0  # one real choice: nothing to search


@pytest.mark.parametrize("method", ["ismcts", "paired"])
def test_the_search_reads_the_clock_often_enough_to_stop_on_time(method: str) -> None:
    import time

    reads = 0

    def clock() -> float:
        nonlocal reads
        reads += 1
        return time.perf_counter()

    for host, seat in positions(4, 2):
        view = view_for(host, seat)
        legal = legal_actions(view, seat)
        bot = SearchBot(b"t", budget=0.05, method=method, clock=clock)
        reads = 0
        started = time.thread_time()
        bot.choose(view, seat, legal)
        used = time.thread_time() - started
        if bot.stats.iterations:
            # At most 8 playout steps (about a third of a millisecond) between two readings
            # of the clock, and the work done fits the budget (CPU time: what the search
            # controls; a loaded machine's pauses come on top of it in wall time).
            assert bot.stats.steps <= 8 * reads + 8 * bot.stats.iterations
            assert used <= 0.05 * 1.2, used


def test_greedy_breaks_ties_with_its_generator_not_by_seat_order() -> None:
    c = Cards()
    steal = c("STEAL_CARD")
    # Seats 0, 2 and 3 look alike to seat 1: same hand sizes, same discard tops, no chips.
    state = table(4, hands={1: [steal, c("R3")], 0: c.many("B2", "B3"),
                            2: c.many("B4", "R4"), 3: c.many("R5", "B5")})
    view = view_for(state, 1)
    legal = legal_actions(view, 1)
    targets = Counter()
    for seed in range(300):
        action = GreedyBot(bytes([seed % 256, seed // 256])).choose(view, 1, legal)
        if isinstance(action, StealCard):
            targets[action.target] += 1
    assert set(targets) == {0, 2, 3}
    assert min(targets.values()) > 60, targets


def test_bots_made_without_a_seed_are_unpredictable() -> None:
    host, seat = positions(3, 1)[0]
    view = view_for(host, seat)
    legal = legal_actions(view, seat)
    if len(legal) < 2:
        pytest.skip("a position with one legal action")
    picks = {make_bot("random").choose(view, seat, legal) for _ in range(60)}
    assert len(picks) > 1


def test_the_levels_and_the_old_names() -> None:
    assert LEVELS == ("easy", "medium", "hard")
    assert canonical("greedy") == "medium" and canonical("HARD") == "hard"
    assert canonical("random") == "random"
    assert isinstance(make_bot("greedy"), GreedyBot)
    assert isinstance(make_bot("hard", budget=0.1), SearchBot)
    with pytest.raises(ValueError, match="unknown bot 'expert'"):
        make_bot("expert")


def test_the_search_blocks_a_winning_completion() -> None:
    from engine.actions import Block, PlayCard
    from engine.cards import Colour
    from engine.rng import Rng
    from engine.rules import step
    from tests.engine.scenario import pile

    c = Cards()
    five = c("R5")
    state = table(2, hands={1: [five, *c.many("B1", "B2")], 0: [c("BLOCK"), c("R1")]},
                  piles=[pile(0, Colour.RED, c.many("R1", "R2", "R3", "R4"))],
                  chips={1: (1, 3)}, current=1)
    step(state, PlayCard(1, five, 0), Rng(b"w"))  # the Red chip would win the game
    view = view_for(state, 0)
    legal = legal_actions(view, 0)
    assert {type(a) for a in legal} == {Block, PassBlock}
    assert isinstance(SearchBot(b"b", iterations=200).choose(view, 0, legal), Block)
    assert isinstance(SearchBot(b"b", iterations=50, method="paired").choose(view, 0, legal),
                      Block)


def test_the_search_steals_a_chip_from_the_player_about_to_win() -> None:
    from engine.actions import StealChip

    c = Cards()
    state = table(3, hands={1: [c("STEAL_CHIP"), *c.many("B3", "R4")],
                            0: c.many("R1", "B1", "B2"), 2: c.many("R2", "B4", "BW")},
                  chips={0: (1, 1), 2: (2, 2)}, current=1)
    view = view_for(state, 1)
    legal = legal_actions(view, 1)
    choice = SearchBot(b"c", iterations=300).choose(view, 1, legal)
    assert isinstance(choice, StealChip) and choice.target == 2, choice


def test_a_decision_after_the_bots_own_move_tops_up_the_reused_subtree() -> None:
    """The subtree of the move just made holds iterations of the next decision of the
    same turn: with a fixed count only the rest is searched, never more than the count."""
    counts: list[int] = []

    class Recorder:
        name = "hard"

        def __init__(self) -> None:
            self.bot = SearchBot(b"reuse", iterations=30)

        def choose(self, view: State, seat: Seat, legal: list[Action]) -> Action:
            action = self.bot.choose(view, seat, legal)
            if self.bot.stats.iterations:
                counts.append(self.bot.stats.iterations)
            return action

    play_game(2, [Recorder(), GreedyBot(b"fixed")], game_seed(14, 1))
    assert counts and max(counts) == 30
    assert any(n < 30 for n in counts), counts


def _wild_only_mid_pile(players: int) -> tuple[State, CardId]:
    """Seat 0 to play; its only plays put a wild on a red pile it would not finish (both
    red piles open, at 1 and 2); its blue cards have no pile."""
    from engine.cards import Colour
    from tests.engine.scenario import pile

    c = Cards()
    wild = c("RW")
    hands = {0: [wild, *c.many("B3", "B4", "B5", "R5")]}
    for seat in range(1, players):
        hands[seat] = c.many("B2", "B3", "B4", "B5", "R5")
    state = table(players, hands=hands, current=0,
                  piles=[pile(0, Colour.RED, c.many("R1")),
                         pile(1, Colour.RED, c.many("R1", "R2"))])
    return state, wild


def test_medium_plays_every_play_it_can_and_the_holding_greedy_keeps_the_wild() -> None:
    from engine.actions import Discard, PlayCard

    state, wild = _wild_only_mid_pile(2)
    view = view_for(state, 0)
    legal = legal_actions(view, 0)
    assert {a.card for a in legal if isinstance(a, PlayCard)} == {wild}
    assert isinstance(GreedyBot(b"m").choose(view, 0, legal), PlayCard)
    kept = GreedyBot(b"h", hold_below=0.0).choose(view, 0, legal)
    assert isinstance(kept, Discard) and kept.card != wild


@pytest.mark.parametrize("players", [2, 4])
def test_the_search_prefers_its_own_holding_policy_and_models_opponents_as_medium(
    players: int,
) -> None:
    """With one iteration the search plays its prior's favourite: its own policy keeps a
    wild it would only play mid-pile; the opponents' moves in its tree and playouts are
    medium's, which plays it."""
    from engine.actions import Discard, PlayCard
    from engine.bots.search import StacksGame, hold_below

    state, wild = _wild_only_mid_pile(players)
    view = view_for(state, 0)
    legal = legal_actions(view, 0)
    choice = SearchBot(b"one", iterations=1).choose(view, 0, legal)
    assert isinstance(choice, Discard) and choice.card != wild
    assert hold_below(players) is not None
    game = StacksGame(GreedyBot(b"m"), potential=False,
                      own=GreedyBot(b"h", hold_below=hold_below(players)), me=1)
    host = state.copy()
    assert isinstance(game.playout(host, 0, legal_actions(host, 0)), PlayCard)
    game.me = 0
    assert isinstance(game.playout(host, 0, legal_actions(host, 0)), Discard)


# -- the search's variants: opponents played by the policy, paranoid backups -------------------

VARIANTS = [
    {"opponents": "policy"},
    {"opponents": "tree"},
    {"opponents": "tree", "backup": "paranoid"},
    {"opponents": "policy", "c_puct": 0.7},
]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_search_variant_plays_legal_actions_and_the_same_seed_repeats_them(
    variant: dict[str, object],
) -> None:
    def decisions(seed: bytes) -> list[Action]:
        chosen: list[Action] = []
        table_ = Watched(4, game_seed(15, 0))
        bots: list[object] = [SearchBot(seed, iterations=6, **variant)]  # type: ignore[arg-type]
        bots += [GreedyBot(bytes([seat])) for seat in range(1, 4)]

        def record(seat: Seat, view: State, legal: list[Action]) -> None:
            if seat == 0:
                chosen.append(bots[0].choose(view, seat, legal))  # type: ignore[attr-defined]
                assert chosen[-1] in legal

        table_.play(bots, record)
        return chosen

    first = decisions(b"one")
    assert first and first == decisions(b"one")
    assert first != decisions(b"two")


def test_with_the_opponents_played_by_the_policy_the_tree_holds_only_the_bots_own_choices(
) -> None:
    from engine.bots.ismcts import Node

    def seats(node: Node) -> set[Seat]:
        out = {node.to_move} if node.visits > 1 else set()
        for child in node.children.values():
            out.add(child.seat)
            out |= seats(child)
        return out

    searched = others = 0
    for host, seat in positions(4, 2):
        view = view_for(host, seat)
        legal = legal_actions(view, seat)
        for opponents in ("policy", "tree"):
            bot = SearchBot(b"own", iterations=60, opponents=opponents)
            assert bot.choose(view, seat, legal) in legal
            root = bot._search.root
            if not bot.stats.iterations or root is None:
                continue
            found = seats(root) - {-1, -2}
            if opponents == "policy":
                searched += 1
                assert found == {seat}, found
            else:
                assert seat in found
                others += len(found) > 1  # the searched tree holds opponents' choices
    assert searched and others


@pytest.mark.parametrize("variant", VARIANTS[:3])
def test_every_search_variant_keeps_to_its_budget(variant: dict[str, object]) -> None:
    import time

    for host, seat in positions(4, 1):
        view = view_for(host, seat)
        legal = legal_actions(view, seat)
        bot = SearchBot(b"t", budget=0.05, **variant)  # type: ignore[arg-type]
        started = time.thread_time()
        assert bot.choose(view, seat, legal) in legal
        assert time.thread_time() - started <= 0.05 * 1.2


def test_unknown_search_variants_are_refused() -> None:
    with pytest.raises(ValueError, match="opponent model"):
        SearchBot(b"x", opponents="psychic")
    with pytest.raises(ValueError, match="backup"):
        SearchBot(b"x", backup="optimistic")


@pytest.mark.parametrize(("players", "model"), [(2, "tree"), (3, "policy"), (4, "policy")])
def test_by_default_the_opponents_are_searched_at_two_players_and_played_by_the_policy_beyond(
    players: int, model: str,
) -> None:
    from engine.bots.search import opponent_model

    assert opponent_model(players) == model
    host, seat = positions(players, 1)[0]
    view = view_for(host, seat)
    bot = SearchBot(b"d", iterations=3)
    assert bot.choose(view, seat, legal_actions(view, seat)) in legal_actions(view, seat)
    assert bot._search.opponents == model
    pinned = SearchBot(b"d", iterations=3, opponents="tree")
    pinned.choose(view, seat, legal_actions(view, seat))
    assert pinned._search.opponents == "tree"

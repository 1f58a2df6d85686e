"""Engine properties over seeded games at 2-6 players: views: no hidden faces, the host's
public hash, built from the redacted deal.

How the games are chosen and played: :mod:`tests.engine.seeded`. Each seeded test has a
``slow`` soak twin with ten times the games (``pytest -m slow``).
"""

from __future__ import annotations

from collections import Counter

import pytest

from engine.cards import HIDDEN
from engine.events import (
    Event,
)
from engine.game import Game
from engine.reducer import apply
from engine.state import SPECTATOR, State
from engine.views import public_hash, view_for
from tests.engine.gameplay import (
    Table,
    config_for,
    masked,
    new_game,
    play,
    table_seed,
)
from tests.engine.seeded import SOAK, at, audiences, seeded_games

# -- 4. views hold no hidden faces; 5. public hashes agree ---------------------------------------




def check_secrecy(table: Table, event: Event) -> None:
    host = table.shadow
    for audience, view in audiences(table):
        assert view.audience == audience
        assert all(card == HIDDEN for card in view.draw_pile), (
            f"{at(table, event)}: seat {audience} sees faces in the draw pile"
        )
        for seat, hand in enumerate(view.hands):
            if seat == audience:
                assert hand == host.hands[seat], f"{at(table, event)}: seat {seat}'s own hand"
                continue
            faces = [card for card in hand if card != HIDDEN]
            if not faces:
                continue
            unknown = set(faces) - table.known[audience][seat]
            assert not unknown, (
                f"{at(table, event)}: {audience} sees {sorted(unknown)} in seat {seat}'s hand"
            )
            assert not Counter(faces) - Counter(host.hands[seat]), (
                f"{at(table, event)}: {audience} believes seat {seat} holds {faces}, "
                f"it holds {host.hands[seat]}"
            )


def check_views_are_view_for(table: Table) -> None:
    """What a view knows beyond ``view_for`` of the host is only what was checked above."""
    for audience, view in audiences(table):
        assert masked(view) == view_for(table.state, audience), f"{table.where()}: {audience}"


def run_secrecy(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True, event_checks=[check_secrecy])
    play(table, rng, on_state=check_views_are_view_for)


@seeded_games(60)
def test_views_never_hold_another_seats_hidden_cards(seed: int, players: int) -> None:
    run_secrecy(seed, players)


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_views_never_hold_another_seats_hidden_cards_soak(seed: int, players: int) -> None:
    run_secrecy(seed, players)


def check_hashes(table: Table, event: Event) -> None:
    expected = public_hash(table.shadow)
    for audience, view in audiences(table):
        assert public_hash(view) == expected, f"{table.where()} after {event}: view {audience}"


def run_hashes(seed: int, players: int) -> None:
    table, rng = new_game(seed, players, views=True, event_checks=[check_hashes])
    play(table, rng)


@seeded_games(60)
def test_every_view_has_the_hosts_public_hash_after_every_event(seed: int, players: int) -> None:
    run_hashes(seed, players)


@pytest.mark.slow
@seeded_games(60 * SOAK)
def test_every_view_has_the_hosts_public_hash_soak(seed: int, players: int) -> None:
    run_hashes(seed, players)


def run_deal_views(seed: int, players: int) -> None:
    config = config_for(seed, players)
    game = Game.new(players, table_seed(seed), config)
    for audience in [*range(players), SPECTATOR]:
        view = State.new(config, players)
        view.audience = audience
        for event in game.log:
            apply(view, event.redacted_for(audience))
        assert view == view_for(game.state, audience), f"seed={seed} players={players}"
        assert public_hash(view) == public_hash(game.state)


@seeded_games(300)
def test_views_built_from_the_redacted_deal_equal_view_for(seed: int, players: int) -> None:
    run_deal_views(seed, players)


@pytest.mark.slow
@seeded_games(300 * SOAK)
def test_views_built_from_the_redacted_deal_equal_view_for_soak(seed: int, players: int) -> None:
    run_deal_views(seed, players)

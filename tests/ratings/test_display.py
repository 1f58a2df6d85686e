"""Ratings as people read them: points around 1500, a provisional mark, plural words."""

from __future__ import annotations

from ratings.compute import MU, SIGMA
from ratings.display import change_text, points, provisional, rating_text, record_text


def test_a_newcomer_is_1500_and_provisional() -> None:
    assert points(MU) == 1500
    assert provisional(SIGMA)
    assert rating_text(MU, SIGMA) == "1500?"


def test_a_settled_rating_has_no_mark_and_one_beta_is_200_points() -> None:
    assert rating_text(MU + 25 / 6, 2.0) == "1700"
    assert rating_text(MU - 25 / 6, 3.9) == "1300"


def test_a_change_is_whole_points_with_its_sign() -> None:
    assert change_text(25.0, 25.5) == "+24"
    assert change_text(25.0, 24.8) == "-10"
    assert change_text(25.0, 25.001) == "±0"


def test_counts_are_words_people_say() -> None:
    assert record_text(2, 1) == "2 games, 1 win"
    assert record_text(1, 0) == "1 game, 0 wins"

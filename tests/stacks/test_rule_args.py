"""House rules on the command line: ``stacks play`` / ``stacks host --rule NAME=VALUE``."""

from __future__ import annotations

import pytest

from engine.classic import NoPlay, SequenceConfig
from engine.config import RulesConfig, SkipStacking, StalemateResult, TwoPlayerDeck
from stacks.cli import main
from stacks.commands.ui import launch_from
from stacks.parser import build_parser
from stacks.rules_args import rule_words, table_rules


def test_every_kind_of_setting_is_read_from_its_words() -> None:
    args = build_parser("host").parse_args([
        "host", "--headless", "--players", "2",
        "--rule", "two_player_deck=FULL", "--rule", "forced-play=yes",
        "--rule", "steal_card_from_hand=off", "--rule", "win_chips=9",
        "--rule", "hand_limit=12", "--rule", "first_player=1",
        "--rule", "skip_stacking=redundant",
    ])
    assert table_rules(args) == RulesConfig(
        two_player_deck=TwoPlayerDeck.FULL, forced_play=True, steal_card_from_hand=False,
        win_chips=9, hand_limit=12, first_player=1, skip_stacking=SkipStacking.REDUNDANT)


def test_the_last_word_on_a_setting_counts_and_none_unsets_it() -> None:
    args = build_parser("play").parse_args(
        ["play", "--rule", "hand_limit=9", "--rule", "hand_limit=none"])
    assert table_rules(args) == RulesConfig()


def test_a_classic_table_takes_its_own_rules_beside_teams() -> None:
    args = build_parser("host").parse_args([
        "host", "--game", "sequence", "--players", "6", "--teams", "3",
        "--rule", "no_play=pass", "--rule", "sequences_to_win=1", "--rule", "board=standard",
    ])
    assert table_rules(args) == SequenceConfig(teams=3, no_play=NoPlay.PASS,
                                               sequences_to_win=1, board="standard")


def test_rules_written_back_as_words_read_as_the_same_rules() -> None:
    """What a test or a script hands a host in a child process is what the host plays."""
    rules = RulesConfig(two_player_deck=TwoPlayerDeck.GR, hand_size=8, forced_play=True,
                        hand_limit=10, stalemate_result=StalemateResult.MOST_CHIPS,
                        win_chips=10)
    words = rule_words(rules)
    assert len(words) == 6
    argv = ["play"] + [w for word in words for w in ("--rule", word)]
    assert table_rules(build_parser("play").parse_args(argv)) == rules
    assert rule_words(RulesConfig()) == []


def test_play_hands_its_rules_to_the_game_it_opens() -> None:
    args = build_parser("play").parse_args(["play", "--rule", "win_chips=3",
                                            "--rule", "win_min_each_colour=1"])
    launch, _, _ = launch_from(args)
    assert launch is not None
    assert launch.rules == RulesConfig(win_chips=3, win_min_each_colour=1)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--rule", "win_chips"], "a rule is NAME=VALUE (e.g. win_chips=7), not 'win_chips'"),
        (["--rule", "=3"], "a rule is NAME=VALUE"),
        (["--rule", "wild_cards=3"], "Sequence Stacks has no rule 'wild_cards'; its rules: "
                                     "two_player_deck, first_player"),
        (["--rule", "win_chips=many"], "win_chips must be a whole number, not 'many'"),
        (["--rule", "win_chips=0"], "win_chips must be 1..1000, not 0"),
        (["--rule", "two_player_deck=half"], "two_player_deck must be one of gh, gr, full"),
        (["--rule", "forced_play=maybe"], "forced_play must be true or false, not 'maybe'"),
        (["--rule", "win_chips=none"], "win_chips must be a whole number, not None"),
        (["--players", "3", "--rule", "first_player=4"], "first_player 4 is not a seat at 3"),
        (["--game", "sequence", "--rule", "win_chips=3"], "Sequence has no rule 'win_chips'"),
        (["--game", "sequence", "--rule", "board=moon"], "board"),
        (["--resume", "friday", "--rule", "win_chips=3"], "--rule can't change a resumed game"),
    ],
)
def test_a_rule_the_game_does_not_have_is_refused_in_words_before_anything_starts(
    capsys: pytest.CaptureFixture[str], args: list[str], words: str,
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["host", "--headless", *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert words in err
    # The host command's usage and name, not the top level's ("stacks: error").
    assert err.startswith("usage: stacks host ") and "stacks host: error:" in err, err

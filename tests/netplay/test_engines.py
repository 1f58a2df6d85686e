"""Outside programs as bots (``netplay.engines``): each misbehaviour a program can show is
refused in words, the stand-in plays that decision, and the game goes on.

Each test runs a purpose-built engine (``tests/netplay/engines/misbehaving.py MODE``) as a
real child process and asks it for decisions of a real game, applying every answer with
the engine's own rules: an action that was not legal would raise there.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import pytest

from engine.classic import SequenceConfig, SequenceGame
from engine.config import RulesConfig
from engine.game import Game
from engine.games import game_def
from netplay.engines import EngineBot, EngineError, EngineSpec
from tests.support import SCALE

HERE = Path(__file__).parent / "engines"
BUDGET = 0.5 * SCALE


def misbehaving(mode: str, *extra: str) -> EngineSpec:
    return EngineSpec(mode, (sys.executable, str(HERE / "misbehaving.py"), mode, *extra))


def engine(mode: str, *extra: str, said: list[str], **kwargs: object) -> EngineBot:
    bot = EngineBot(misbehaving(mode, *extra), budget=BUDGET, say=said.append,
                    handshake_timeout=10 * SCALE, **kwargs)  # type: ignore[arg-type]
    bot.start()
    return bot


def play(bot: EngineBot, decisions: int, game: str = "stacks") -> None:
    """A 2-player game in which ``bot`` plays seat 0 and medium seat 1, until ``bot`` has
    made ``decisions`` decisions (or the game ends). ``game.act`` refuses an illegal action."""
    definition = game_def(game)
    table = (Game.new(2, b"engine-test" * 2, RulesConfig(), keep_log=False) if game == "stacks"
             else SequenceGame.new(2, b"engine-test" * 2, SequenceConfig(), keep_log=False))
    medium = definition.make_bot("medium", b"medium")
    made = 0
    while not table.over and made < decisions:
        for seat in definition.to_move(table.state):
            view = definition.view_for(table.state, seat)
            legal = definition.legal_actions(view, seat)
            if not legal:
                continue
            if seat == 0:
                made += 1
                action = bot.choose(view, seat, legal)
            else:
                action = medium.choose(view, seat, legal)
            assert action in legal
            table.act(action)
            break
    bot.finish(0, table.state.outcome, definition.view_for(table.state, 0))


def test_a_good_engine_plays_a_whole_game_of_each_game_itself() -> None:
    for game in ("stacks", "sequence"):
        said: list[str] = []
        bot = engine("good", said=said)
        try:
            play(bot, 10_000, game)
        finally:
            bot.close()
        assert bot.tally.decisions > 5 and bot.tally.standin == 0, said
        assert said == []


def test_too_slow_the_standin_plays_that_turn_said_and_the_next_turn_is_its_own() -> None:
    said: list[str] = []
    bot = engine("slow", said=said)
    try:
        play(bot, 4)
    finally:
        bot.close()
    assert bot.tally.too_slow == 2 and bot.tally.answered == 2
    assert any("took longer than" in line and "stand-in (medium) played this turn" in line
               for line in said), said


def test_a_late_answer_is_not_taken_for_the_next_decision() -> None:
    said: list[str] = []
    bot = engine("slow", said=said)
    try:
        play(bot, 3)
    finally:
        bot.close()
    # The late answer to the first question came while the second was asked: ignored.
    assert any("came after its time" in line for line in said), said


def test_a_crashed_engine_is_started_again_and_plays_on() -> None:
    said: list[str] = []
    bot = engine("crash_once", str(Path(__file__).parent / ".never"), said=said)
    state = Path(__file__).parent / ".never"
    state.unlink(missing_ok=True)
    try:
        play(bot, 6)
    finally:
        bot.close()
        state.unlink(missing_ok=True)
    assert bot.tally.crashes == 1 and bot.tally.restarts == 1
    assert bot.tally.answered == 5, said
    assert any("stopped (exit code 3)" in line and "starting it again (1 of 3)" in line
               for line in said), said


def test_an_engine_that_keeps_crashing_is_given_up_after_the_limit() -> None:
    said: list[str] = []
    bot = engine("crash", said=said, restarts=2)
    try:
        play(bot, 12)
    finally:
        bot.close()
    assert bot.tally.restarts == 2 and bot.tally.crashes == 3
    assert any("plays on for it" in line for line in said), said
    assert bot.tally.decisions == 12  # every decision was made, the last ones by the stand-in


@pytest.mark.parametrize(("mode", "words"), [
    ("junk", "refused a line: not JSON"),
    ("unknown_id", "not one of the"),
    ("illegal", "which is not legal now"),
])
def test_a_bad_answer_is_refused_in_words_and_the_standin_plays(mode: str, words: str) -> None:
    said: list[str] = []
    bot = engine(mode, said=said)
    try:
        play(bot, 4)
    finally:
        bot.close()
    assert any(words in line for line in said), said
    assert bot.tally.answered >= 2


def test_a_flood_of_lines_is_dropped_said_and_the_game_goes_on() -> None:
    said: list[str] = []
    chats: list[str] = []
    bot = engine("flood", said=said, on_chat=chats.append)
    try:
        play(bot, 4)
    finally:
        bot.close()
    assert bot.tally.decisions == 4
    assert len(said) < 20, "complaints are rate-limited"


def test_a_flood_that_never_stops_gets_the_program_stopped_and_started_again(
    tmp_path: Path,
) -> None:
    said: list[str] = []
    bot = engine("torrent", str(tmp_path / "flooded"), said=said)
    try:
        play(bot, 6)
    finally:
        bot.close()
    assert any("floods its output (over 2,000 lines in 10 s): it is stopped" in line
               for line in said), said
    assert bot.tally.restarts == 1 and bot.tally.answered >= 4


def test_a_line_too_long_is_refused() -> None:
    said: list[str] = []
    bot = engine("long_line", said=said)
    try:
        play(bot, 3)
    finally:
        bot.close()
    assert any("over 64 KiB was refused" in line for line in said), said
    assert bot.tally.answered >= 2


def test_stderr_noise_goes_to_the_log_rate_limited(caplog: pytest.LogCaptureFixture) -> None:
    said: list[str] = []
    caplog.set_level(logging.INFO, logger="netplay.engines")
    bot = engine("noise", said=said)
    try:
        play(bot, 3)
        time.sleep(0.2)  # the drain thread's last lines (nothing waits on it)
    finally:
        bot.close()
    noise = [r for r in caplog.records if "(stderr): debug noise" in r.getMessage()]
    assert 0 < len(noise) <= 20
    assert bot.tally.answered == 3 and said == []


def test_a_program_that_stops_reading_never_blocks_a_decision() -> None:
    said: list[str] = []
    bot = engine("unread", said=said)
    started = time.monotonic()
    try:
        play(bot, 5)
    finally:
        bot.close()
    assert bot.tally.too_slow == 5
    assert time.monotonic() - started < 5 * BUDGET + 5 * SCALE


def test_a_wrong_protocol_version_is_refused_at_the_handshake_in_words() -> None:
    bot = EngineBot(misbehaving("wrong_version"), handshake_timeout=10 * SCALE)
    with pytest.raises(EngineError) as caught:
        bot.start()
    assert "speaks engine protocol 99; this program speaks version 1 only" in str(caught.value)


def test_a_mute_program_or_a_missing_one_is_refused_in_words() -> None:
    bot = EngineBot(misbehaving("mute"), handshake_timeout=0.5)
    with pytest.raises(EngineError, match=r"did not say hello within 0\.5 s"):
        bot.start()
    bot.close()
    missing = EngineBot(EngineSpec("nope", ("/nonexistent/engine",)))
    with pytest.raises(EngineError, match="can't start '/nonexistent/engine'"):
        missing.start()


def test_engine_spec_reads_name_and_command_in_words() -> None:
    spec = EngineSpec.parse("mine=python3 'my bot.py' --fast")
    assert spec == EngineSpec("mine", ("python3", "my bot.py", "--fast"))
    assert EngineSpec.parse("node bots/alpha.js", named=False).name == "alpha"
    with pytest.raises(ValueError, match="NAME=COMMAND"):
        EngineSpec.parse("python3 bot.py")

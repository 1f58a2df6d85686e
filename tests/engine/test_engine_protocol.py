"""The engine protocol's messages (engine/engine_protocol.py): built from a seat's view
only, and a program's lines read strictly, each refusal in words."""

from __future__ import annotations

import json

import pytest

from engine.classic import SequenceConfig, SequenceGame
from engine.config import RulesConfig
from engine.engine_protocol import (
    Answer,
    Chat,
    EngineProtocolError,
    Handshake,
    check_handshake,
    decide_message,
    end_message,
    game_message,
    parse_line,
    view_data,
)
from engine.game import Game
from engine.games import game_def
from engine.state import HOST

SEED = b"protocol-test-seed"


@pytest.mark.parametrize("name", ["stacks", "sequence"])
def test_a_decision_shows_the_seat_its_own_cards_and_no_other(name: str) -> None:
    definition = game_def(name)
    table = (Game.new(3, SEED, RulesConfig(), keep_log=False) if name == "stacks"
             else SequenceGame.new(3, SEED, SequenceConfig(), keep_log=False))
    seat = definition.to_move(table.state)[0]
    view = definition.view_for(table.state, seat)
    message = json.loads(json.dumps(decide_message(
        view, seat, definition.legal_actions(view, seat), 1, 2.0)))
    shown = message["view"]
    assert shown["hands"][seat] == list(table.state.hands[seat])
    for other, hand in enumerate(shown["hands"]):
        if other != seat:
            assert set(hand) == {-1}
    assert set(shown["draw_pile"]) == {-1}
    assert {int(c) for c in shown["cards"]} >= set(table.state.hands[seat])
    assert [c["id"] for c in message["legal"]] == list(range(len(message["legal"])))
    assert all(c["text"] for c in message["legal"])
    with pytest.raises(ValueError, match="must be that seat's view"):
        view_data(definition.view_for(table.state, HOST), seat)
    start = game_message(view, seat, ["a", "b", "c"])
    assert start["game"] == name and start["seat"] == seat and start["players"] == 3
    if name == "sequence":
        assert len(start["board"]) == 10 and start["team"] == seat % start["teams"]
    assert end_message(seat, None, None, "max_turns", None) == {
        "type": "end", "termination": "max_turns", "winner": None, "won": False}


def test_a_program_s_lines_are_read_or_refused_in_words() -> None:
    assert parse_line('{"type":"action","request":3,"id":1}') == Answer(3, 1)
    assert parse_line('{"type":"action","request":3,"action":{"type":"pass"}}') == Answer(
        3, -1, {"type": "pass"})
    assert parse_line('{"type":"chat","text":"  gg   all "}') == Chat("gg all")
    said = parse_line('{"type":"hello","name":"x","protocol":1,"games":["sequence"]}')
    assert said == Handshake("x", "", 1, ("sequence",))
    for line, words in [
        ("nope", "not JSON"),
        ("[" * 60_000, "not JSON"),
        ("[1]", "not a JSON object"),
        ('{"type":"move"}', "unknown message type 'move'"),
        ('{"type":"action","request":"3","id":1}', "whole numbers 'request' and 'id'"),
        ('{"type":"action","request":3,"id":true}', "whole numbers"),
        ('{"type":"hello","name":"x"}', "the protocol version it speaks"),
        ('{"type":"hello","protocol":1}', "the program's 'name'"),
        ('{"type":"chat","text":""}', "needs some 'text'"),
    ]:
        with pytest.raises(EngineProtocolError, match=words):
            parse_line(line)
    with pytest.raises(EngineProtocolError, match="plays go; this program offers"):
        check_handshake(Handshake("x", "", 1, ("go",)))

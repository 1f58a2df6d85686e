#!/usr/bin/env python3
"""A minimal engine for Sequence Stacks and Sequence (docs/engine-protocol.md).

Standard library only. It reads one JSON object per line on stdin and answers on stdout;
anything it wants to say to a person goes to stderr (the table's log keeps it).

Run it at a table:   stacks bot TABLE --engine 'python3 examples/engines/minimal.py'
Or measure it:       stacks tournament --engine mini='python3 examples/engines/minimal.py' \
                         --bots medium
"""

import json
import random
import sys

# Rough preferences by the kind of action (the "type" of each legal action's wire form).
# Block whenever it can, play onto piles before opening one, discard last; in classic
# Sequence any chip on the board beats passing or turning in a card.
PREFER = {
    "block": 5, "steal_chip": 4, "play": 2, "skip": 1, "steal_card": 1, "reverse": 0,
    "pass_block": 0, "discard": -1, "end_turn": -1,
    "place": 2, "remove": 1, "dead_card": 3, "pass": 0,
}


def score(choice):
    action = choice["action"]
    value = PREFER.get(action["type"], 0)
    if action["type"] == "play" and action["pile"] != -1:
        value += 1  # onto a pile that is already open
    return value


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "name": "minimal-py", "author": "the examples",
                  "protocol": 1, "games": ["stacks", "sequence"]})
        elif kind == "game":
            print(f"playing {message['game']} in seat {message['seat'] + 1}", file=sys.stderr)
        elif kind == "decide":
            best = max(score(choice) for choice in message["legal"])
            pick = random.choice([c for c in message["legal"] if score(c) == best])
            send({"type": "action", "request": message["request"], "id": pick["id"]})
        elif kind == "end":
            print("won" if message["won"] else "lost", file=sys.stderr)
        elif kind in ("quit", "error"):
            return


if __name__ == "__main__":
    main()

"""An engine that misbehaves one way, named by its argument (the tests' purpose-built
engines): ``slow``, ``crash``, ``crash_once``, ``junk`` (not JSON), ``unknown_id``,
``illegal``, ``flood``, ``torrent`` (a flood that never stops, once), ``long_line``,
``noise`` (stderr), ``wrong_version``, ``mute`` (never says hello), ``unread`` (stops
reading its input), ``good``. Otherwise it plays the first legal action, so the game goes
on. Standard library only."""

import json
import os
import sys
import time

MODE = sys.argv[1]
STATE = sys.argv[2] if len(sys.argv) > 2 else ""
"""A file that outlives one run (``crash_once``: crash the first run only)."""


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if MODE == "mute":
                time.sleep(60)
            send({"type": "hello", "name": f"bad-{MODE}", "author": "tests",
                  "protocol": 99 if MODE == "wrong_version" else 1,
                  "games": ["stacks", "sequence"]})
            continue
        if message["type"] == "quit":
            return
        if message["type"] != "decide":
            continue
        decisions += 1
        request, legal = message["request"], message["legal"]
        answer = {"type": "action", "request": request, "id": legal[0]["id"]}
        if MODE == "slow" and decisions in (1, 3):
            time.sleep(message["budget_ms"] / 1000 + 0.3)  # too late: the stand-in plays
        elif MODE == "crash" and decisions == 2:
            os._exit(3)
        elif MODE == "crash_once" and decisions == 2 and not os.path.exists(STATE):
            open(STATE, "w").close()
            os._exit(3)
        elif MODE == "junk" and decisions % 2 == 1:
            sys.stdout.write("this is not json {\n")
        elif MODE == "unknown_id" and decisions % 2 == 1:
            answer["id"] = len(legal) + 7
        elif MODE == "illegal" and decisions % 2 == 1:
            action = dict(legal[0]["action"])
            action["seat"] = (action["seat"] + 1) % 2
            answer = {"type": "action", "request": request, "action": action}
        elif MODE == "flood" and decisions == 1:
            for n in range(5000):
                sys.stdout.write(json.dumps({"type": "chat", "text": f"spam {n}"}) + "\n")
        elif MODE == "torrent" and decisions == 1 and not os.path.exists(STATE):
            open(STATE, "w").close()
            while True:  # never stops: the adapter stops it
                sys.stdout.write('{"type": "chat", "text": "spam"}\n' * 100)
        elif MODE == "long_line" and decisions == 1:
            sys.stdout.write("x" * 300_000 + "\n")
        elif MODE == "noise":
            for n in range(50):
                sys.stderr.write(f"debug noise {n}\n")
            sys.stderr.flush()
        elif MODE == "unread" and decisions == 1:
            time.sleep(3600)
        elif MODE == "chat" and decisions == 1:
            send({"type": "chat", "text": "good luck"})
        send(answer)


if __name__ == "__main__":
    main()

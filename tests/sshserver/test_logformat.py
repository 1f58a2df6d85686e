"""The JSON log's lines: one object each, whatever is logged, tracebacks included."""

from __future__ import annotations

import io
import json
import logging

from sshserver.logformat import JsonFormatter, event


def test_every_record_is_one_json_line_with_its_event_and_fields() -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("tests.logformat")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        event(logger, "login_refused", "refused key K for 'eve'\nsecond line", cause="x",
              peer="203.0.113.9")
        logger.warning("a library's warning: %s", "ünïcode")
        try:
            raise ValueError("bad\ninput")
        except ValueError:
            logger.exception("it failed")
    finally:
        logger.removeHandler(handler)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    first, second, third = (json.loads(line) for line in lines)
    assert first["event"] == "login_refused" and first["cause"] == "x"
    assert first["message"] == "refused key K for 'eve'\nsecond line"
    assert first["level"] == "info" and first["logger"] == "tests.logformat"
    assert first["time"].endswith("Z")
    assert second["event"] == "log" and second["message"].endswith("ünïcode")
    assert third["level"] == "error" and "ValueError: bad" in third["exception"]

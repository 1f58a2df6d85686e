"""``stacks serve --log-format``: the server's log as text lines (the default: what a
person reads on the terminal) or as JSON lines, one object a line, for log shippers.

Each JSON line has ``time`` (UTC, ISO 8601 with milliseconds), ``level``, ``logger``,
``message`` and ``event`` (what kind of line it is: ``listening``, ``status``,
``keys_reloaded``, ``key_refused``, ``stopped``, ``notice`` for the server's other news
in words, ``log`` for a library's or a module's own log record), and ``exception`` when
a traceback goes with it. A few lines carry more fields of their own (``sessions``,
``tables``, ``keys``).

Plain standard-library logging with a small `logging.Formatter`: nothing to add for
five fields.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from types import TracebackType
from typing import TextIO

FORMATS = ("text", "json")
EVENT = "event"
"""The ``extra`` key a log call names its kind of line with (``extra={"event": ...}``)."""
FIELDS = "fields"
"""The ``extra`` key of a line's own fields (a dict of JSON values)."""


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "event": getattr(record, EVENT, None) or "log",
        }
        fields = getattr(record, FIELDS, None)
        if isinstance(fields, dict):
            for key, value in fields.items():
                data.setdefault(str(key), value)
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            data["exception"] = record.exc_text
        return json.dumps(data, ensure_ascii=False, default=str)


def use_json_logs(stream: TextIO | None = None) -> None:
    """Send every log record to ``stream`` (standard output) as JSON lines: the server's
    own news at INFO, everything else from WARNING, Python's warnings and an uncaught
    exception's traceback included."""
    handler = logging.StreamHandler(stream or sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in ("sshserver", "webserver", "ratings"):
        logging.getLogger(name).setLevel(logging.INFO)
    logging.getLogger("amqtt").setLevel(logging.CRITICAL)
    logging.getLogger("mqtt").setLevel(logging.ERROR)
    logging.captureWarnings(True)  # a library's warning too is a line of JSON, not text
    sys.excepthook = _log_uncaught


def _log_uncaught(kind: type[BaseException], exc: BaseException,
                  trace: TracebackType | None) -> None:
    """A traceback that would end the program: one JSON line too."""
    logging.getLogger("sshserver").critical("stacks serve failed: %s", exc,
                                            exc_info=(kind, exc, trace),
                                            extra={EVENT: "failed"})


def event(logger: logging.Logger, kind: str, message: str, *, level: int = logging.INFO,
          **fields: object) -> None:
    """Log ``message`` as an event of ``kind`` with its own ``fields``."""
    logger.log(level, "%s", message, extra={EVENT: kind, FIELDS: fields})

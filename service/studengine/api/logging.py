"""structlog set-up: one JSON object per line on stdout.

Handlers bind ``hand_id``, ``seq``, ``seat``, ``action`` with
``structlog.contextvars.bind_contextvars``; the call interceptor adds ``method``, ``code`` and
``duration_ms`` and writes the line. As a last guard, fields that could carry a secret
(cards, deck, salt, keys, sealed state) are dropped from every line whatever bound them.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

#: Never written to a log line, whoever binds them.
SECRET_FIELDS = frozenset(
    {"cards", "card", "deck", "salt", "key", "keys", "state", "sealed_state", "hole_cards"}
)


_encode = json.JSONEncoder(separators=(",", ":"), default=repr).encode


class _Stamp:
    """Adds ``timestamp`` (ISO 8601 UTC, microseconds) and the static fields, and drops
    secret fields: one processor, cheap (the date part is formatted once a second)."""

    def __init__(self, static: dict[str, Any]) -> None:
        self.static = static
        self.second = -1
        self.prefix = ""

    def __call__(
        self, _logger: Any, _name: str, event: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        now = time.time()
        second = int(now)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        event["timestamp"] = f"{self.prefix}.{int((now - second) * 1e6):06d}Z"
        for name, value in self.static.items():
            event.setdefault(name, value)
        if not SECRET_FIELDS.isdisjoint(event):
            for name in SECRET_FIELDS.intersection(event):
                del event[name]
        return event


def configure_logging(level: str = "info", stream: TextIO | None = None, **static: Any) -> None:
    """JSON lines at ``level`` and above; ``static`` fields (e.g. ``worker=1``) go on every line."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _Stamp({"pid": os.getpid(), **static}),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=lambda event, **_: _encode(event)),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.WriteLoggerFactory(file=stream or sys.stdout),
        cache_logger_on_first_use=True,
    )

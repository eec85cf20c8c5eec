"""structlog set-up: one JSON object per line on stdout.

Handlers bind ``hand_id``, ``seq``, ``seat``, ``action`` with
``structlog.contextvars.bind_contextvars``; the call interceptor adds ``method``, ``code`` and
``duration_ms`` and writes the line. As a last guard, fields that could carry a secret
(cards, deck, salt, keys, sealed state) are dropped from every line whatever bound them.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

#: Never written to a log line, whoever binds them.
SECRET_FIELDS = frozenset(
    {"cards", "card", "deck", "salt", "key", "keys", "state", "sealed_state", "hole_cards"}
)


def _drop_secrets(
    _logger: Any, _name: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    if not SECRET_FIELDS.isdisjoint(event):
        for name in SECRET_FIELDS.intersection(event):
            del event[name]
    return event


def configure_logging(level: str = "info", stream: TextIO | None = None, **static: Any) -> None:
    """JSON lines at ``level`` and above; ``static`` fields (e.g. ``worker=1``) go on every line."""
    extra = {"pid": os.getpid(), **static}

    def _add_static(
        _logger: Any, _name: str, event: MutableMapping[str, Any]
    ) -> MutableMapping[str, Any]:
        for name, value in extra.items():
            event.setdefault(name, value)
        return event

    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _add_static,
            _drop_secrets,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.WriteLoggerFactory(file=stream or sys.stdout),
        cache_logger_on_first_use=True,
    )

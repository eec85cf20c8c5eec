"""structlog set-up: one JSON object per line on stdout.

Writing a line costs the caller no system call: lines queue in memory and a daemon thread
writes them every 50 ms (and at exit), in chunks of whole lines of
at most PIPE_BUF bytes, so workers sharing one stdout pipe never interleave inside a line.

Handlers bind ``hand_id``, ``seq``, ``seat``, ``action`` with
``structlog.contextvars.bind_contextvars``; the call interceptor adds ``method``, ``code`` and
``duration_ms`` and writes the line. As a last guard, fields that could carry a secret
(cards, deck, salt, keys, sealed state) are dropped from every line whatever bound them.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import select
import sys
import threading
import time
from collections import deque
from collections.abc import MutableMapping
from typing import Any, TextIO, cast

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


class LineWriter:
    """File-like sink for structlog's WriteLogger: ``write`` only queues the line (it never
    releases the GIL or blocks on I/O on a call's path); a daemon thread writes the queue."""

    INTERVAL = 0.05

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._lines: deque[str] = deque()  # append / popleft are thread-safe
        self._lock = threading.Lock()  # one drainer at a time
        threading.Thread(target=self._run, name="log-writer", daemon=True).start()
        atexit.register(self.drain)

    def write(self, text: str) -> None:
        self._lines.append(text)

    def flush(self) -> None:
        """WriteLogger flushes after every line: the thread does the writing instead."""

    def _run(self) -> None:
        while True:
            time.sleep(self.INTERVAL)
            self.drain()

    def drain(self) -> None:
        """Write every queued line now."""
        with self._lock:
            chunk: list[bytes] = []
            size = 0
            while self._lines:
                data = self._lines.popleft().encode()
                if chunk and size + len(data) > select.PIPE_BUF:
                    self._write(b"".join(chunk))
                    chunk, size = [], 0
                chunk.append(data)
                size += len(data)
            if chunk:
                self._write(b"".join(chunk))

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:  # stdout closed: nobody is reading the logs
            return


_writer: LineWriter | None = None


def configure_logging(level: str = "info", stream: TextIO | None = None, **static: Any) -> None:
    """JSON lines at ``level`` and above; ``static`` fields (e.g. ``worker=1``) go on every line.

    Without ``stream``: stdout, through the queue of a ``LineWriter``; a given stream is
    written to directly (tests)."""
    global _writer
    if stream is None:
        sys.stdout.flush()
        if _writer is None:
            _writer = LineWriter(sys.stdout.fileno())
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
        logger_factory=structlog.WriteLoggerFactory(file=stream or cast(TextIO, _writer)),
        cache_logger_on_first_use=True,
    )

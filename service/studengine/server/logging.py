"""structlog set-up: one JSON object per line on stdout.

Writing a line costs the caller no system call: lines queue in memory (a bounded queue:
lines beyond it are dropped and counted) and a daemon thread writes them every 50 ms (and
at exit, for a bounded time), in chunks of whole lines of at most PIPE_BUF bytes, so
workers sharing one stdout pipe never interleave inside a line.

Handlers bind ``hand_id``, ``seq``, ``seat``, ``action`` with ``api.logfields.bind`` (one
ContextVar per call, merged into every line written in the call's context); the call
interceptor adds ``method``, ``code`` and ``duration_ms`` and writes the line. As a last
guard, fields that could carry a secret (cards, deck, salt, keys, sealed state) are
dropped from every line whatever bound them.
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
from collections.abc import Callable, MutableMapping
from typing import Any, TextIO, cast

import orjson
import structlog

from studengine.api.logfields import CALL_FIELDS

#: Never written to a log line, whoever binds them.
SECRET_FIELDS = frozenset(
    {"cards", "card", "deck", "salt", "key", "keys", "state", "sealed_state", "hole_cards"}
)


_encode_stdlib = json.JSONEncoder(separators=(",", ":"), default=repr).encode


def _encode(event: MutableMapping[str, Any], **_: Any) -> str:
    """The line as compact JSON, by orjson (a tenth of the standard library's cost). The
    values are the standard library's; the text differs only in that non-ASCII characters
    are written as UTF-8 (not ``\\u`` escapes), NaN and infinities as null, and floats
    below 1e-4 are spelt differently (1e-05: 0.00001, 2.5e-07: 2.5e-7). What orjson
    refuses (an integer beyond 64 bits, a key that is not a string) goes through the
    standard library's encoder. Values JSON has no type for are written as their
    ``repr``."""
    try:
        return orjson.dumps(event, default=repr).decode()
    except TypeError:  # orjson.JSONEncodeError
        return _encode_stdlib(event)


def _merge_call_fields(
    _logger: Any, _name: str, event: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Adds the call's log fields (``api.logfields``); a field the line names itself wins."""
    fields = CALL_FIELDS.get(None)
    if fields:
        for name, value in fields.items():
            event.setdefault(name, value)
    return event


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
        second, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        event["timestamp"] = f"{self.prefix}.{nanoseconds // 1000:06d}Z"
        for name, value in self.static.items():
            event.setdefault(name, value)
        if not SECRET_FIELDS.isdisjoint(event):
            for name in SECRET_FIELDS.intersection(event):
                del event[name]
        return event


class LineWriter:
    """File-like sink for structlog's WriteLogger: ``write`` only queues the line (it never
    releases the GIL or blocks on I/O on a call's path); a daemon thread writes the queue.

    The queue holds at most ``limit`` lines: when stdout is read slower than lines come
    (or not at all), further lines are dropped and counted (``dropped``, and
    ``count_drops``' hook: the metric). At exit the writer thread is stopped and what is left is
    written within twice ``EXIT_SECONDS`` without taking the writer's lock, then dropped:
    a stalled stdout never holds up the exit.
    """

    INTERVAL = 0.05
    EXIT_SECONDS = 2.0

    def __init__(self, fd: int, limit: int = 10_000) -> None:
        self._fd = fd
        self.limit = limit
        self._lines: deque[str] = deque()  # append / popleft are thread-safe
        self._lock = threading.Lock()  # one drainer at a time
        self._stop = threading.Event()
        self.dropped = 0  # lines dropped so far (only ever grows)
        self._drop_lock = threading.Lock()
        self._on_drop: Callable[[int], None] | None = None
        self._thread = threading.Thread(target=self._run, name="log-writer", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def write(self, text: str) -> None:
        if len(self._lines) < self.limit:
            self._lines.append(text)
        else:
            self._drop(1)

    def _drop(self, lines: int) -> None:
        with self._drop_lock:
            self.dropped += lines
            if self._on_drop is not None:
                self._on_drop(lines)

    def count_drops(self, on_drop: Callable[[int], None]) -> None:
        """Tell ``on_drop`` of every line dropped from now on, and of those dropped so far."""
        with self._drop_lock:
            self._on_drop = on_drop
            if self.dropped:
                on_drop(self.dropped)

    def flush(self) -> None:
        """WriteLogger flushes after every line: the thread does the writing instead."""

    def _run(self) -> None:
        while not self._stop.wait(self.INTERVAL):
            self.drain()

    def _take(self) -> list[bytes]:
        """The queued lines as chunks of whole lines of at most PIPE_BUF bytes (when the
        lines are that short), so that processes sharing a pipe never mix inside a line."""
        chunks: list[bytes] = []
        chunk: list[bytes] = []
        size = 0
        while self._lines:
            data = self._lines.popleft().encode()
            if chunk and size + len(data) > select.PIPE_BUF:
                chunks.append(b"".join(chunk))
                chunk, size = [], 0
            chunk.append(data)
            size += len(data)
        if chunk:
            chunks.append(b"".join(chunk))
        return chunks

    def drain(self) -> None:
        """Write every queued line now (one drainer at a time: the lines stay in order)."""
        with self._lock:
            for chunk in self._take():
                self._write(chunk, None)

    def close(self) -> None:
        """At exit: stop the thread (waiting ``EXIT_SECONDS`` at most), then write what is
        left within ``EXIT_SECONDS`` more and drop the rest. Takes no lock: the thread may
        be stuck writing to a full pipe."""
        self._stop.set()
        self._thread.join(self.EXIT_SECONDS)  # at once, unless stuck writing to a full pipe
        deadline = time.monotonic() + self.EXIT_SECONDS
        for chunk in self._take():
            if not self._write(chunk, deadline):
                self._drop(chunk.count(b"\n"))
                break
        while self._lines:
            self._lines.popleft()
            self._drop(1)

    def _write(self, data: bytes, deadline: float | None) -> bool:
        """Write ``data``; False if stdout is closed or (with a deadline) stays full."""
        view = memoryview(data)
        try:
            while view:
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([], [self._fd], [], left)[1]:
                        return False
                    view = view[os.write(self._fd, view[: select.PIPE_BUF]) :]
                else:
                    view = view[os.write(self._fd, view) :]
        except OSError:  # stdout closed: nobody is reading the logs
            return False
        return True


_writer: LineWriter | None = None


def count_dropped_lines(on_drop: Callable[[int], None]) -> None:
    """Report the lines stdout's writer drops (and has dropped) to ``on_drop`` (a metric)."""
    if _writer is not None:
        _writer.count_drops(on_drop)


def _trace_fields() -> list[Any]:
    """The processor that puts the current span's ``trace_id`` and ``span_id`` on a line,
    when tracing is on (off, no line pays for looking)."""
    from studengine.server import tracing

    return [tracing.log_fields] if tracing.enabled() else []


def configure_logging(
    level: str = "info",
    stream: TextIO | None = None,
    queue_lines: int = 10_000,
    **static: Any,
) -> None:
    """JSON lines at ``level`` and above; ``static`` fields (e.g. ``worker=1``) go on every line.

    Without ``stream``: stdout, through the queue of a ``LineWriter`` holding at most
    ``queue_lines`` lines; a given stream is written to directly (tests)."""
    global _writer
    if stream is None:
        sys.stdout.flush()
        if _writer is None:
            _writer = LineWriter(sys.stdout.fileno(), queue_lines)
        _writer.limit = queue_lines
    structlog.configure(
        processors=[
            _merge_call_fields,
            structlog.processors.add_log_level,
            _Stamp({"pid": os.getpid(), **static}),
            *_trace_fields(),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(serializer=_encode),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.WriteLoggerFactory(file=stream or cast(TextIO, _writer)),
        cache_logger_on_first_use=True,
    )

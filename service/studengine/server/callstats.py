"""What every call does on either port, written once: its ``grpc_server_*`` metric
children, the one JSON log line when it ends, its span when tracing is on, and whether
it may start (the worker's drain, the bound on the calls a port holds at once). The gRPC interceptor
(``interceptors``) and the HTTP port (``http``) both use it, so a method's calls add up
over the two ports under the same labels."""

from __future__ import annotations

import time
from typing import Any

import grpc
import structlog

from studengine.api.errors import ApiError, draining, too_many_calls
from studengine.server import metrics, tracing
from studengine.server.drain import Gate

_log = structlog.get_logger("studengine.rpc")


class MethodStats:
    """One method's metric children, cached (``labels()`` takes a lock and a dict walk),
    and its log line; ``protocol`` (``"http"``), when given, is a field of that line. Its
    logger is resolved once (built on a method's first call, after logging is configured):
    structlog's module-level proxy resolves itself again on every line."""

    __slots__ = (
        "full",
        "handled",
        "handling",
        "labels",
        "log",
        "log_fields",
        "name",
        "receiving",
        "seconds",
        "started",
        "tracer",
    )

    def __init__(self, full: str, kind: str, protocol: str | None = None) -> None:
        service, _, name = full.lstrip("/").rpartition("/")
        self.full = full
        self.name = name
        self.labels = (service, name, kind)
        self.started = metrics.GRPC_STARTED.labels(*self.labels)
        self.seconds = metrics.GRPC_HANDLING_SECONDS.labels(*self.labels)
        self.receiving = metrics.GRPC_IN_FLIGHT.labels(*self.labels, "receiving")
        self.handling = metrics.GRPC_IN_FLIGHT.labels(*self.labels, "handling")
        self.handled: dict[grpc.StatusCode, Any] = {}
        self.log_fields = {} if protocol is None else {"protocol": protocol}
        self.log = _log.bind()
        current = tracing.tracer()  # None: tracing off, no traced path at all
        system = "grpc" if protocol is None else "connect_rpc"
        self.tracer = None if current is None else tracing.CallTracer(current, full, system)

    def start(self) -> float:
        """Count the call as started; the time it started, for ``finish``."""
        self.started.inc()
        return time.perf_counter()

    def finish(
        self,
        t0: float,
        code: grpc.StatusCode,
        span: tracing.CallSpan | None = None,
        reason: str | None = None,
    ) -> None:
        """Count the call as handled with ``code``, time it, write its log line, and end
        its ``span`` (refused with ErrorInfo ``reason``, if given). A sampled span's
        trace id is the exemplar of the call's histogram bucket."""
        elapsed = time.perf_counter() - t0
        child = self.handled.get(code)
        if child is None:
            child = self.handled[code] = metrics.GRPC_HANDLED.labels(*self.labels, code.name)
        child.inc()
        if span is None:
            self.seconds.observe(elapsed)
        else:
            trace_id = tracing.trace_id()
            self.seconds.observe(elapsed, None if trace_id is None else {"trace_id": trace_id})
        self.log.info(
            "rpc",
            method=self.full,
            code=code.name,
            duration_ms=round(elapsed * 1000, 3),
            **self.log_fields,
        )
        if span is not None:
            span.end(code.name, reason)


class Admission:
    """Whether a port starts one more call: not once the worker drains (``gate``: the
    call is refused UNAVAILABLE, SERVER_DRAINING), nor beyond ``limit`` calls at once
    (RESOURCE_EXHAUSTED, SERVER_BUSY; None: no bound). ``active`` counts the calls open
    now, on the port's event loop only."""

    def __init__(self, limit: int | None, gate: Gate | None = None) -> None:
        self.limit = limit
        self.gate = gate or Gate()
        self.active = 0

    def refusal(self, method: str) -> ApiError | None:
        """The refusal of a call to ``method`` that is not to start, or None."""
        if self.gate.draining:
            self.gate.refused()
            return draining(method)
        if self.limit is not None and self.active >= self.limit:
            return too_many_calls(method, self.limit)
        return None

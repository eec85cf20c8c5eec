"""What every call does on either port, written once: its ``grpc_server_*`` metric
children, the one JSON log line when it ends, and the bound on the calls a port holds at
once. The gRPC interceptor (``interceptors``) and the HTTP port (``http``) both use it,
so a method's calls add up over the two ports under the same labels."""

from __future__ import annotations

import time
from typing import Any

import grpc
import structlog

from studengine.server import metrics

_log = structlog.get_logger("studengine.rpc")


class MethodStats:
    """One method's metric children, cached (``labels()`` takes a lock and a dict walk),
    and its log line; ``protocol`` (``"http"``), when given, is a field of that line."""

    __slots__ = (
        "full",
        "handled",
        "handling",
        "labels",
        "log_fields",
        "receiving",
        "seconds",
        "started",
    )

    def __init__(self, full: str, kind: str, protocol: str | None = None) -> None:
        service, _, name = full.lstrip("/").rpartition("/")
        self.full = full
        self.labels = (service, name, kind)
        self.started = metrics.GRPC_STARTED.labels(*self.labels)
        self.seconds = metrics.GRPC_HANDLING_SECONDS.labels(*self.labels)
        self.receiving = metrics.GRPC_IN_FLIGHT.labels(*self.labels, "receiving")
        self.handling = metrics.GRPC_IN_FLIGHT.labels(*self.labels, "handling")
        self.handled: dict[grpc.StatusCode, Any] = {}
        self.log_fields = {} if protocol is None else {"protocol": protocol}

    def start(self) -> float:
        """Count the call as started; the time it started, for ``finish``."""
        self.started.inc()
        return time.perf_counter()

    def finish(self, t0: float, code: grpc.StatusCode) -> None:
        """Count the call as handled with ``code``, time it, and write its log line."""
        elapsed = time.perf_counter() - t0
        child = self.handled.get(code)
        if child is None:
            child = self.handled[code] = metrics.GRPC_HANDLED.labels(*self.labels, code.name)
        child.inc()
        self.seconds.observe(elapsed)
        _log.info(
            "rpc",
            method=self.full,
            code=code.name,
            duration_ms=round(elapsed * 1000, 3),
            **self.log_fields,
        )


class CallLimit:
    """The calls a port holds at once (``limit``; None: no bound), counted on its event
    loop only. One more is refused RESOURCE_EXHAUSTED at once, before any handler."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.active = 0

    def full(self) -> bool:
        return self.limit is not None and self.active >= self.limit

    def refuse(self, method: MethodStats, t0: float) -> str:
        """Report a call refused for the limit (metric, log line); the refusal's message."""
        metrics.rejected("too_many_calls")
        method.finish(t0, grpc.StatusCode.RESOURCE_EXHAUSTED)
        return f"this server holds {self.limit} calls at once (its limit); retry with backoff"

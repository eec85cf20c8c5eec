"""The call interceptor: gRPC server metrics and one JSON log line per call.

Runs on every call, so it stays small: the method name is split and the metric children
are looked up once per method (and per status code); each call runs in a fresh
``contextvars.Context``, so the fields the handler binds for the log line need no clearing;
the line is written once, when the call ends. ``grpc_server_started_total`` counts a call
when its handler begins (calls gRPC refuses before that, over the concurrency or message
size limit, are in neither counter); the handling time runs from when the server received
the call. Streams that hold no thread (the health Watch) keep holding none.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import structlog

from studengine.server import metrics

_log = structlog.get_logger("studengine.rpc")
_clear_context: Callable[[], None] = structlog.contextvars.clear_contextvars


class _Method:
    """Metric children of one method, cached (``labels()`` takes a lock and a dict walk)."""

    __slots__ = ("full", "handled", "labels", "seconds", "started")

    def __init__(self, full: str, kind: str) -> None:
        service, _, name = full.lstrip("/").rpartition("/")
        self.full = full
        self.labels = (service, name, kind)
        self.started = metrics.GRPC_STARTED.labels(*self.labels)
        self.seconds = metrics.GRPC_HANDLING_SECONDS.labels(*self.labels)
        self.handled: dict[grpc.StatusCode, Any] = {}

    def finish(self, t0: float, code: grpc.StatusCode) -> None:
        elapsed = time.perf_counter() - t0
        child = self.handled.get(code)
        if child is None:
            child = metrics.GRPC_HANDLED.labels(*self.labels, code.name)
            self.handled[code] = child
        child.inc()
        self.seconds.observe(elapsed)
        _log.info("rpc", method=self.full, code=code.name, duration_ms=round(elapsed * 1000, 3))


def _code_of(context: grpc.ServicerContext, failed: bool) -> grpc.StatusCode:
    code = context.code()  # type: ignore[attr-defined]  # set by abort() / set_code()
    if isinstance(code, grpc.StatusCode):
        return code
    return grpc.StatusCode.UNKNOWN if failed else grpc.StatusCode.OK


def _kind(handler: Any) -> str:
    if handler.request_streaming:
        return "bidi_stream" if handler.response_streaming else "client_stream"
    return "server_stream" if handler.response_streaming else "unary"


class ObservingInterceptor(grpc.ServerInterceptor):  # type: ignore[type-arg]
    """Counts, times and logs every call (metrics with the usual ``grpc_server_*`` names)."""

    def __init__(self) -> None:
        self._methods: dict[str, _Method] = {}

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        details: grpc.HandlerCallDetails,
    ) -> Any:
        # ``handler`` is grpc's RpcMethodHandler namedtuple: swap in the observed behavior
        handler: Any = continuation(details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return None
        full: str = details.method
        method = self._methods.get(full)
        if method is None:
            method = self._methods[full] = _Method(full, _kind(handler))
        t0 = time.perf_counter()
        if handler.unary_unary is not None:
            return handler._replace(unary_unary=_unary(handler.unary_unary, method, t0))
        if handler.unary_stream is not None:
            if getattr(handler.unary_stream, "experimental_non_blocking", False):
                return handler._replace(
                    unary_stream=_non_blocking(handler.unary_stream, method, t0)
                )
            return handler._replace(unary_stream=_streaming(handler.unary_stream, method, t0))
        if handler.stream_unary is not None:
            return handler._replace(stream_unary=_unary(handler.stream_unary, method, t0))
        return handler._replace(stream_stream=_streaming(handler.stream_stream, method, t0))


def _unary(
    behavior: Callable[[Any, grpc.ServicerContext], Any], method: _Method, t0: float
) -> Callable[[Any, grpc.ServicerContext], Any]:
    def run(request: Any, context: grpc.ServicerContext) -> Any:
        method.started.inc()
        failed = True
        try:
            response = behavior(request, context)
            failed = False
            return response
        finally:
            method.finish(t0, _code_of(context, failed))

    def observed(request: Any, context: grpc.ServicerContext) -> Any:
        # a fresh context per call: what the handler binds for the log line starts empty
        # and goes away with the call (cheaper than clearing the thread's context)
        return contextvars.Context().run(run, request, context)

    return observed


def _streaming(
    behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]], method: _Method, t0: float
) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
    def observed(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        _clear_context()
        method.started.inc()
        failed = True
        try:
            yield from behavior(request, context)
            failed = False
        except GeneratorExit:  # the client went away: grpc closes the generator
            failed = False
            raise
        finally:
            code = _code_of(context, failed)
            if code is grpc.StatusCode.OK and not context.is_active():
                code = grpc.StatusCode.CANCELLED
            method.finish(t0, code)

    return observed


def _non_blocking(behavior: Any, method: _Method, t0: float) -> Any:
    """A stream that answers through callbacks and holds no thread while open (the health
    Watch): it stays that way, and is counted when gRPC ends it."""

    def observed(request: Any, context: grpc.ServicerContext, send_response_callback: Any) -> Any:
        method.started.inc()

        def ended() -> None:  # a watch its client closes counts as OK
            method.finish(t0, _code_of(context, False))

        context.add_callback(ended)
        return behavior(request, context, send_response_callback=send_response_callback)

    observed.experimental_non_blocking = True  # type: ignore[attr-defined]
    observed.experimental_thread_pool = behavior.experimental_thread_pool  # type: ignore[attr-defined]
    return observed

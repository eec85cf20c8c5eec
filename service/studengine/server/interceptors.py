"""The call interceptor (``grpc.aio``): limits, gRPC server metrics and one JSON log line
per call.

Every call is counted in ``grpc_server_in_flight`` from the moment its headers arrive,
by stage: ``receiving`` until its request message has arrived in full, then ``handling``.
A unary request is read here, not by gRPC: the method is served as if its request were
a stream, so that (1) a call over ``max_concurrent_rpcs`` is refused with
RESOURCE_EXHAUSTED at once, without waiting for a body that may never come, and (2) a
request that has not arrived in full within ``receive_timeout`` seconds (a stalled or
very slow client) is answered DEADLINE_EXCEEDED and its stream closed; gRPC core has no
such bound per stream. One timer watches all the calls receiving (``_ReceiveWatch``), not
one per call. The health service is exempt from the limit, so that probes are
answered however many calls are open. Once the worker drains (``drain.Gate``), a call not
yet started is refused with UNAVAILABLE. Every refusal here is an ``ApiError`` (ErrorInfo,
and RetryInfo where a retry may succeed), as the handlers' are.

``grpc_server_started_total`` counts a call when its headers arrive; the handling time
runs from then to the end. Each call runs in its own task, so the fields the handler
binds for the log line (``api.logfields``, a ContextVar) go away with it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1.health import SERVICE_NAME as HEALTH_SERVICE

from studengine.api.errors import ApiError, bad_request, mark_refused, receive_timeout, to_status
from studengine.server import metrics
from studengine.server.callstats import Admission, MethodStats
from studengine.server.drain import Gate

Behavior = Callable[..., Any]


def _kind(handler: Any) -> str:
    if handler.request_streaming:
        return "bidi_stream" if handler.response_streaming else "client_stream"
    return "server_stream" if handler.response_streaming else "unary"


class _Stage:
    """Which ``grpc_server_in_flight`` stage a call is counted in."""

    __slots__ = ("gauge", "method")

    def __init__(self, method: MethodStats) -> None:
        self.method = method
        self.gauge = method.receiving
        self.gauge.inc()

    def received(self) -> None:
        self.gauge.dec()
        self.gauge = self.method.handling
        self.gauge.inc()

    def end(self) -> None:
        self.gauge.dec()


class _ReceiveWatch:
    """The calls whose request is still arriving, and one timer for them all: it runs every
    tenth of ``timeout`` while calls are receiving and cancels those that have been at it
    for ``timeout`` seconds, so a stalled request is refused after ``timeout`` to
    ``1.1 * timeout`` seconds. Cheaper than a timer per call (``asyncio.timeout``), which
    pushes onto and cancels from the event loop's timer heap on every call."""

    __slots__ = ("calls", "expired", "period", "timeout", "timer")

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.period = timeout / 10
        self.calls: dict[asyncio.Task[Any], float] = {}  # deadlines, in the order they come
        self.expired: set[asyncio.Task[Any]] = set()  # cancelled here, not yet told
        self.timer: asyncio.TimerHandle | None = None

    def watch(self, task: asyncio.Task[Any]) -> None:
        loop = asyncio.get_running_loop()
        self.calls[task] = loop.time() + self.timeout
        if self.timer is None:
            self.timer = loop.call_later(self.period, self._sweep)

    def received(self, task: asyncio.Task[Any]) -> None:
        self.calls.pop(task, None)

    def timed_out(self, task: asyncio.Task[Any]) -> bool:
        """Whether the CancelledError ``task`` got is this watch's doing alone (then the
        cancellation is withdrawn: the call is to be answered DEADLINE_EXCEEDED)."""
        if task not in self.expired:
            return False
        self.expired.discard(task)
        return task.uncancel() == 0  # no other cancellation asked (the client's, a stop)

    def _sweep(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for task, deadline in list(self.calls.items()):
            if deadline > now:  # the later ones came later
                break
            del self.calls[task]
            self.expired.add(task)
            task.cancel()
        self.timer = loop.call_later(self.period, self._sweep) if self.calls else None


async def _respond(behavior: Behavior, request: Any, context: Any) -> None:
    """Run a response-streaming behavior: an async generator, or one that writes itself."""
    result = behavior(request, context)
    if inspect.isasyncgen(result):
        async for response in result:
            await context.write(response)
    else:
        await result


class ObservingInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """Counts, limits, times and logs every call (metrics with the usual ``grpc_server_*``
    names). ``max_concurrent_rpcs``: calls this server holds at once, health excluded;
    ``receive_timeout``: seconds a request may take to arrive in full (None: no bound);
    ``gate``: the worker's drain."""

    def __init__(
        self,
        max_concurrent_rpcs: int | None = None,
        receive_timeout: float | None = None,
        gate: Gate | None = None,
    ) -> None:
        self._handlers: dict[str, tuple[Any, Any]] = {}  # method: (grpc's, observed)
        self.admission = Admission(max_concurrent_rpcs, gate)  # health excluded
        self.receive_timeout = receive_timeout
        self._watch = None if receive_timeout is None else _ReceiveWatch(receive_timeout)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        details: grpc.HandlerCallDetails,
    ) -> Any:
        handler: Any = await continuation(details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return None
        # the observed handler is built once per method (grpc hands back the same one)
        observed = self._handlers.get(details.method)
        if observed is None or observed[0] is not handler:
            observed = self._handlers[details.method] = (handler, self._observe(handler, details))
        return observed[1]

    def _observe(self, handler: Any, details: grpc.HandlerCallDetails) -> Any:
        """``handler`` (grpc's RpcMethodHandler namedtuple) with the observed behavior."""
        full: str = details.method
        method = MethodStats(full, _kind(handler))
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(requests: Any, context: Any, stage: _Stage) -> Any:
                request = await self._receive(requests, context, stage, method)
                return await inner(request, context)

            return handler._replace(
                request_streaming=True, unary_unary=None, stream_unary=self._observed(unary, method)
            )
        if handler.unary_stream is not None:
            inner = handler.unary_stream

            async def server_stream(requests: Any, context: Any, stage: _Stage) -> None:
                request = await self._receive(requests, context, stage, method)
                await _respond(inner, request, context)

            return handler._replace(
                request_streaming=True,
                unary_stream=None,
                stream_stream=self._observed(server_stream, method),
            )
        if handler.stream_unary is not None:
            inner = handler.stream_unary

            async def client_stream(requests: Any, context: Any, stage: _Stage) -> Any:
                stage.received()  # messages come and go as the stream goes on
                return await inner(requests, context)

            return handler._replace(stream_unary=self._observed(client_stream, method))
        inner = handler.stream_stream

        async def bidi_stream(requests: Any, context: Any, stage: _Stage) -> None:
            stage.received()
            await _respond(inner, requests, context)

        return handler._replace(stream_stream=self._observed(bidi_stream, method))

    async def _receive(
        self, requests: Any, context: Any, stage: _Stage, method: MethodStats
    ) -> Any:
        """The one request message of a unary request, within ``receive_timeout``."""
        watch = self._watch
        if watch is None:
            request = await context.read()
        else:
            task = asyncio.current_task()
            assert task is not None
            watch.watch(task)
            try:
                request = await context.read()
            except asyncio.CancelledError:
                if not watch.timed_out(task):
                    raise
                await _refuse(context, receive_timeout(method.name, watch.timeout))
            finally:
                watch.received(task)
        if request is grpc.aio.EOF:  # type: ignore[attr-defined]
            await _refuse(context, bad_request("request", "no request message"))
        stage.received()
        return request

    def _observed(
        self, body: Callable[[Any, Any, _Stage], Awaitable[Any]], method: MethodStats
    ) -> Callable[[Any, Any], Awaitable[Any]]:
        admission = self.admission
        counted = method.labels[0] != HEALTH_SERVICE  # health is never refused

        async def observed(requests: Any, context: Any) -> Any:
            t0 = method.start()
            tracer = method.tracer
            span = None if tracer is None else tracer.begin(context.invocation_metadata())
            refusal = admission.refusal(method.name) if counted else None
            if refusal is not None:
                method.finish(t0, refusal.code, span, refusal.reason.value)
                await _refuse(context, refusal)
            if counted:
                admission.active += 1
            stage = _Stage(method)
            code = grpc.StatusCode.UNKNOWN
            try:
                result = await body(requests, context, stage)
                code = context.code() or grpc.StatusCode.OK
                return result
            except grpc.aio.AbortError:
                code = context.code() or grpc.StatusCode.UNKNOWN
                raise
            except asyncio.CancelledError:  # the client went away, or the server stops
                code = grpc.StatusCode.CANCELLED
                raise
            finally:
                stage.end()
                if counted:
                    admission.active -= 1
                method.finish(t0, code, span)

        return observed


async def _refuse(context: Any, error: ApiError) -> None:
    """Answer the call with the refusal's status (counted by its label, and its reason on
    the call's span if it is still open); raises."""
    metrics.rejected(error.metric_label)
    mark_refused(error)
    await context.abort_with_status(to_status(error))

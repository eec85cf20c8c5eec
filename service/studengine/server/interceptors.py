"""The call interceptor (``grpc.aio``): limits, gRPC server metrics and one JSON log line
per call.

Every call is counted in ``grpc_server_in_flight`` from the moment its headers arrive,
by stage: ``receiving`` until its request message has arrived in full, then ``handling``.
A unary request is read here, not by gRPC: the method is served as if its request were
a stream, so that (1) a call over ``max_concurrent_rpcs`` is refused with
RESOURCE_EXHAUSTED at once, without waiting for a body that may never come, and (2) a
request that has not arrived in full within ``receive_timeout`` seconds (a stalled or
very slow client) is answered DEADLINE_EXCEEDED and its stream closed; gRPC core has no
such bound per stream. The health service is exempt from the limit, so that probes are
answered however many calls are open.

``grpc_server_started_total`` counts a call when its headers arrive; the handling time
runs from then to the end. Each call runs in its own task, so the fields the handler
binds for the log line (structlog contextvars) go away with it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from grpc_health.v1.health import SERVICE_NAME as HEALTH_SERVICE

from studengine.server import metrics
from studengine.server.callstats import CallLimit, MethodStats

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
    ``receive_timeout``: seconds a request may take to arrive in full (None: no bound)."""

    def __init__(
        self, max_concurrent_rpcs: int | None = None, receive_timeout: float | None = None
    ) -> None:
        self._methods: dict[str, MethodStats] = {}
        self.calls = CallLimit(max_concurrent_rpcs)  # calls open now, health excluded
        self.receive_timeout = receive_timeout

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[Any]],
        details: grpc.HandlerCallDetails,
    ) -> Any:
        # ``handler`` is grpc's RpcMethodHandler namedtuple: swap in the observed behavior
        handler: Any = await continuation(details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return None
        full: str = details.method
        method = self._methods.get(full)
        if method is None:
            method = self._methods[full] = MethodStats(full, _kind(handler))
        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(requests: Any, context: Any, stage: _Stage) -> Any:
                return await inner(await self._receive(requests, context, stage), context)

            return handler._replace(
                request_streaming=True, unary_unary=None, stream_unary=self._observed(unary, method)
            )
        if handler.unary_stream is not None:
            inner = handler.unary_stream

            async def server_stream(requests: Any, context: Any, stage: _Stage) -> None:
                await _respond(inner, await self._receive(requests, context, stage), context)

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

    async def _receive(self, requests: Any, context: Any, stage: _Stage) -> Any:
        """The one request message of a unary request, within ``receive_timeout``."""
        try:
            async with asyncio.timeout(self.receive_timeout):
                request = await context.read()
        except TimeoutError:
            metrics.rejected("receive_timeout")
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"the request did not arrive in full within {self.receive_timeout:g} s",
            )
        if request is grpc.aio.EOF:  # type: ignore[attr-defined]
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "no request message")
        stage.received()
        return request

    def _observed(
        self, body: Callable[[Any, Any, _Stage], Awaitable[Any]], method: MethodStats
    ) -> Callable[[Any, Any], Awaitable[Any]]:
        calls = self.calls
        counted = method.labels[0] != HEALTH_SERVICE  # health is never refused

        async def observed(requests: Any, context: Any) -> Any:
            t0 = method.start()
            if counted and calls.full():
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, calls.refuse(method, t0))
            if counted:
                calls.active += 1
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
                    calls.active -= 1
                method.finish(t0, code)

        return observed

"""stud-table's traces by OTLP, off unless configured the OpenTelemetry way (as
stud-server: ``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_TRACES_SAMPLER``,
``OTEL_SDK_DISABLED``, ...). On, every HTTP request (and each WebSocket's upgrade) is a
server span, its parent the caller's ``traceparent``; the engine client's calls made while
handling it are its children (``studclients.engine``: a client span each, its
``traceparent`` sent as gRPC metadata). Attributes: the method, the route's pattern and
the status; never a path's values, a token or a name."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

from aiohttp import web
from opentelemetry import trace
from opentelemetry.propagate import extract

SERVICE_NAME = "stud-table"
SWITCHES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_TRACES_EXPORTER",
)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def setup() -> Callable[[], None] | None:
    """Set this process's tracer provider up from the environment if it asks for traces;
    its shutdown (the spans still queued go out), or None when tracing is off."""
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    exporter = os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none" or not any(os.environ.get(name, "").strip() for name in SWITCHES):
        return None
    if exporter not in ("", "otlp"):
        raise ValueError(f"OTEL_TRACES_EXPORTER={exporter!r}: only otlp (or none) is supported")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = {} if "OTEL_SERVICE_NAME" in os.environ else {"service.name": SERVICE_NAME}
    provider = TracerProvider(resource=Resource.create(named))  # OTEL_TRACES_SAMPLER
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider.shutdown


_tracer = trace.get_tracer("studclients.table")


@web.middleware
async def traced(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The request as a server span (HTTP semantic conventions), current while handled."""
    route = request.match_info.route.resource
    pattern = route.canonical if route is not None else "unmatched"
    attributes = {"http.request.method": request.method, "http.route": pattern}
    with _tracer.start_as_current_span(
        f"{request.method} {pattern}",
        context=extract(request.headers),
        kind=trace.SpanKind.SERVER,
        attributes=attributes,
    ) as span:
        try:
            response = await handler(request)
        except web.HTTPException as answer:
            span.set_attribute("http.response.status_code", answer.status)
            raise
        span.set_attribute("http.response.status_code", response.status)
        if response.status >= 500:
            span.set_status(trace.StatusCode.ERROR)
        return response

"""Traces by OTLP, off unless configured the OpenTelemetry way.

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, or
``OTEL_TRACES_EXPORTER=otlp``) is set and neither ``OTEL_SDK_DISABLED=true`` nor
``OTEL_TRACES_EXPORTER=none`` is; the SDK reads the rest itself (``OTEL_TRACES_SAMPLER``,
``OTEL_SERVICE_NAME``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_BSP_*``, ...). Off, the SDK
is never imported and the ports' code takes no traced path (``tracer()`` is None).

Each worker sets its own provider up (``setup``, from ``worker.start_serving``): its
batch exporter's thread is its own. One span per call on either port (``CallTracer``),
named and attributed by the RPC semantic conventions, with child spans for the
handler's costly steps (``api.handlers``, given this tracer); no attribute ever holds a
card, a token, a seed, a state byte or a player's id: only the method, the status and
the refusal's ErrorInfo reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract

from studengine.server.config import ConfigError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider

#: The environment variables that turn tracing on (any one of them, non-empty).
SWITCHES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_TRACES_EXPORTER",
)
SERVICE_NAME = "stud-server"
_tracer: trace.Tracer | None = None
_provider: TracerProvider | None = None


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment asks for traces (see the module's docstring)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "").strip().lower() == "none":
        return False
    return any(env.get(name, "").strip() for name in SWITCHES)


def setup() -> trace.Tracer | None:
    """This process's tracer, set up from the environment on the first call; None when
    tracing is off. OTLP over gRPC is the one exporter
    (``OTEL_EXPORTER_OTLP_PROTOCOL=grpc``, the default)."""
    global _tracer, _provider
    if _tracer is not None or not enabled():
        return _tracer
    exporter = os.environ.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() or "otlp"
    if exporter != "otlp":
        raise ConfigError(f"OTEL_TRACES_EXPORTER={exporter!r}: only otlp (or none) is supported")
    protocol = os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc").strip().lower()
    if protocol != "grpc":
        raise ConfigError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: only grpc is supported")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": SERVICE_NAME, "process.pid": os.getpid()})
    if "OTEL_SERVICE_NAME" in os.environ:  # the operator's name wins over ours
        resource = Resource.create({"process.pid": os.getpid()})
    _provider = TracerProvider(resource=resource)  # the sampler from OTEL_TRACES_SAMPLER
    _provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    _tracer = _provider.get_tracer("studengine")
    return _tracer


def tracer() -> trace.Tracer | None:
    """This process's tracer once ``setup`` has made one; None when tracing is off."""
    return _tracer


def shutdown() -> None:
    """Export the spans still queued (a worker's stop)."""
    global _tracer, _provider
    if _provider is not None:
        _provider.shutdown()
    _tracer = _provider = None


def log_fields(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
    """A structlog processor: ``trace_id`` and ``span_id`` of the span current when the
    line is written, if one is recording (hex, as the OTLP backends show them)."""
    span_context = trace.get_current_span().get_span_context()
    if span_context.is_valid:
        event["trace_id"] = format(span_context.trace_id, "032x")
        event["span_id"] = format(span_context.span_id, "016x")
    return event


def trace_id() -> str | None:
    """The current span's trace id (hex) if it is sampled: an exemplar's label."""
    span_context = trace.get_current_span().get_span_context()
    if span_context.is_valid and span_context.trace_flags.sampled:
        return format(span_context.trace_id, "032x")
    return None


class CallSpan:
    """One call's server span, current (for its child spans and its log line) from
    ``CallTracer.begin`` to ``end``."""

    __slots__ = ("span", "token")

    def __init__(self, span: trace.Span) -> None:
        self.span = span
        self.token = otel_context.attach(trace.set_span_in_context(span))

    def end(self, code: str, reason: str | None = None) -> None:
        """End the span with the call's status ``code`` (its name: ``OK``, ...)."""
        span = self.span
        span.set_attribute("rpc.response.status_code", code)
        if reason is not None:
            span.set_attribute("error.type", reason)
        if code != "OK":
            span.set_status(trace.StatusCode.ERROR)
        span.end()
        otel_context.detach(self.token)


class CallTracer:
    """A method's server spans: named ``stud.v1.StudEngineService/Act`` and attributed
    (``rpc.system.name``: ``grpc`` or ``connect_rpc``; ``rpc.method``) by the RPC semantic
    conventions; the caller's W3C trace context (``traceparent``) is the parent."""

    __slots__ = ("attributes", "name", "tracer")

    def __init__(self, tracer: trace.Tracer, full: str, system: str) -> None:
        self.tracer = tracer
        self.name = full.lstrip("/")
        self.attributes = {"rpc.system.name": system, "rpc.method": self.name}

    def begin(self, carrier: Iterable[tuple[str, Any]] | None) -> CallSpan:
        """The call's span, current from now; ``carrier``: its metadata or headers."""
        parent = extract(_headers(carrier)) if carrier is not None else None
        span = self.tracer.start_span(
            self.name, context=parent, kind=trace.SpanKind.SERVER, attributes=self.attributes
        )
        return CallSpan(span)


def _headers(carrier: Iterable[tuple[str, Any]]) -> dict[str, str]:
    """The text entries of gRPC metadata or ASGI headers, by lower-case name."""
    headers: dict[str, str] = {}
    for key, value in carrier:
        name = key.decode("latin-1") if isinstance(key, bytes) else key
        if name in ("traceparent", "tracestate"):
            headers[name] = value.decode("latin-1") if isinstance(value, bytes) else value
    return headers

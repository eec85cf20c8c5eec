"""Tracing's switch (server/tracing.py): off unless the OpenTelemetry settings ask for it,
no SDK imported when off, a clear configuration error for what it cannot export, and
the log line's trace fields of the current span."""

from __future__ import annotations

import subprocess
import sys

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from studengine.server import tracing
from studengine.server.config import ConfigError

ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}


@pytest.mark.parametrize(
    ("environ", "on"),
    [
        ({}, False),
        ({"OTEL_TRACES_SAMPLER": "always_on"}, False),  # a sampler alone exports nowhere
        (ENDPOINT, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317"}, True),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, True),
        ({**ENDPOINT, "OTEL_SDK_DISABLED": "true"}, False),
        ({**ENDPOINT, "OTEL_SDK_DISABLED": "TRUE"}, False),
        ({**ENDPOINT, "OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": " "}, False),
    ],
)
def test_tracing_is_on_only_when_configured(environ: dict[str, str], on: bool) -> None:
    assert tracing.enabled(environ) is on


@pytest.mark.parametrize(
    ("name", "value"),
    [("OTEL_TRACES_EXPORTER", "zipkin"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")],
)
def test_what_it_cannot_export_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=name):
        tracing.setup()
    assert tracing.tracer() is None


def test_off_the_server_never_imports_the_sdk() -> None:
    """A worker's set-up and a handled call, tracing off: no opentelemetry.sdk module."""
    code = """
import sys
import grpc
from studengine.server import tracing, callstats, interceptors, http
from studengine.api.handlers import Handlers
from studengine.server.logging import configure_logging
configure_logging(stream=sys.stderr)
assert tracing.setup() is None
act = callstats.MethodStats("/stud.v1.StudEngineService/Act", "unary")
act.finish(act.start(), grpc.StatusCode.OK)
print(sorted(m for m in sys.modules if m.startswith("opentelemetry.sdk")))
"""
    env = {"PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_log_fields_are_the_current_span_s_ids() -> None:
    tracer = TracerProvider().get_tracer("test")
    event: dict[str, object] = {}
    assert tracing.log_fields(None, "info", event) == {}  # no span: no fields
    with tracer.start_as_current_span("call") as span:
        ids = span.get_span_context()
        fields = tracing.log_fields(None, "info", {})
        assert tracing.trace_id() == format(ids.trace_id, "032x")
    assert fields == {
        "trace_id": format(ids.trace_id, "032x"),
        "span_id": format(ids.span_id, "016x"),
    }
    assert trace.get_current_span().get_span_context().is_valid is False

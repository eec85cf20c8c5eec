"""A real OTLP trace receiver on 127.0.0.1 for tests: a gRPC server implementing
``opentelemetry.proto.collector.trace.v1.TraceService``, keeping every span exported to
it, decoded with the ``opentelemetry-proto`` messages."""

from __future__ import annotations

import threading
from concurrent import futures
from dataclasses import dataclass
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as otlp
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as otlp_grpc
from opentelemetry.proto.common.v1 import common_pb2


@dataclass(frozen=True)
class ReceivedSpan:
    """One span as received: the service that sent it, its ids (hex), name, kind,
    attributes (plain values), status code and W3C tracestate."""

    service: str
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    attributes: dict[str, Any]
    status: int
    trace_state: str


def _value(value: common_pb2.AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_value(each) for each in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, which) if which else None


class OtlpReceiver(otlp_grpc.TraceServiceServicer):
    """``with OtlpReceiver() as receiver``: serving on ``receiver.endpoint`` until exit."""

    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self._lock = threading.Lock()
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        otlp_grpc.add_TraceServiceServicer_to_server(self, self._server)
        port = self._server.add_insecure_port("127.0.0.1:0")
        self.endpoint = f"http://127.0.0.1:{port}"

    def Export(
        self, request: otlp.ExportTraceServiceRequest, context: Any
    ) -> otlp.ExportTraceServiceResponse:
        received = []
        for resource_spans in request.resource_spans:
            resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    received.append(
                        ReceivedSpan(
                            service=str(resource.get("service.name", "")),
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_id=span.parent_span_id.hex(),
                            name=span.name,
                            kind=span.kind,
                            attributes={kv.key: _value(kv.value) for kv in span.attributes},
                            status=span.status.code,
                            trace_state=span.trace_state,
                        )
                    )
        with self._lock:
            self.spans.extend(received)
        return otlp.ExportTraceServiceResponse()

    def received(self) -> list[ReceivedSpan]:
        with self._lock:
            return list(self.spans)

    def __enter__(self) -> OtlpReceiver:
        self._server.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.stop(0)

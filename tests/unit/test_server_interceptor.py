"""The call interceptor builds each method's observed handler once and reuses it: a
reference test that every call through the reused handler records the same metric samples
and the same log fields as the first call, which built it (and as a handler built anew)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from google.protobuf.wrappers_pb2 import StringValue
from prometheus_client import REGISTRY
from studengine.server import callstats
from studengine.server.interceptors import ObservingInterceptor

SERVICE, METHOD = "bench.v1.ReferenceService", "Echo"
LABELS = {"grpc_service": SERVICE, "grpc_method": METHOD, "grpc_type": "unary"}


class _Lines:
    """Stands in for the call log: the fields of each line written."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def info(self, event: str, **fields: Any) -> None:
        self.lines.append({"event": event, **fields})


def _samples() -> dict[str, float]:
    names = {
        "started": ("grpc_server_started_total", LABELS),
        "ok": ("grpc_server_handled_total", {**LABELS, "grpc_code": "OK"}),
        "refused": ("grpc_server_handled_total", {**LABELS, "grpc_code": "INVALID_ARGUMENT"}),
        "timed": ("grpc_server_handling_seconds_count", LABELS),
        "receiving": ("grpc_server_in_flight", {**LABELS, "stage": "receiving"}),
        "handling": ("grpc_server_in_flight", {**LABELS, "stage": "handling"}),
    }
    return {key: REGISTRY.get_sample_value(*spec) or 0.0 for key, spec in names.items()}


async def _echo(request: StringValue, context: Any) -> StringValue:
    if request.value == "refuse":
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "refused")
    return request


def _generic(handler: Any) -> Any:
    return grpc.method_handlers_generic_handler(SERVICE, {METHOD: handler})


def _handler(tag: str = "") -> Any:
    async def echo(request: StringValue, context: Any) -> StringValue:
        return StringValue(value=(await _echo(request, context)).value + tag)

    return grpc.unary_unary_rpc_method_handler(
        echo,
        request_deserializer=StringValue.FromString,
        response_serializer=StringValue.SerializeToString,
    )


class _Swapping(grpc.GenericRpcHandler):  # type: ignore[type-arg]
    """Hands grpc a new method handler on each call, tagging its answers with the call's
    number: the interceptor must run the handler it was given."""

    def __init__(self) -> None:
        self.calls = 0

    def service(self, details: grpc.HandlerCallDetails) -> Any:
        self.calls += 1
        return _generic(_handler(f"-{self.calls}")).service(details)


async def _calls(generic: Any, values: list[str]) -> list[tuple[dict[str, float], dict[str, Any]]]:
    """Each call's metric deltas and log fields, one call at a time."""
    server = grpc.aio.server(interceptors=[ObservingInterceptor(8, 5.0)])
    server.add_generic_rpc_handlers((generic,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    seen = []
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary(
                f"/{SERVICE}/{METHOD}",
                request_serializer=StringValue.SerializeToString,
                response_deserializer=StringValue.FromString,
            )
            for value in values:
                before, lines = _samples(), len(callstats._log.lines)
                try:
                    answer = await call(StringValue(value=value), timeout=10)
                    tag = f"-{generic.calls}" if isinstance(generic, _Swapping) else ""
                    assert answer.value == value + tag
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
                after = _samples()
                (line,) = callstats._log.lines[lines:]
                assert isinstance(line.pop("duration_ms"), float)  # the one field that varies
                seen.append(({k: after[k] - before[k] for k in after}, line))
    finally:
        await server.stop(None)
    return seen


@pytest.mark.parametrize("generic", [_generic(_handler()), _Swapping()], ids=["same", "new"])
def test_reused_handler_records_what_the_first_call_did(
    generic: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(callstats, "_log", _Lines())
    values = ["a", "refuse", "b", "refuse", "c"]
    seen = asyncio.run(_calls(generic, values))
    ok = {
        "started": 1.0,
        "ok": 1.0,
        "refused": 0.0,
        "timed": 1.0,
        "receiving": 0.0,
        "handling": 0.0,
    }
    refused = {**ok, "ok": 0.0, "refused": 1.0}
    full = f"/{SERVICE}/{METHOD}"
    for value, (deltas, line) in zip(values, seen, strict=True):
        assert deltas == (refused if value == "refuse" else ok)
        code = "INVALID_ARGUMENT" if value == "refuse" else "OK"
        assert line == {"event": "rpc", "method": full, "code": code}

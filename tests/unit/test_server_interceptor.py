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
from studengine.server.interceptors import ObservingInterceptor, _ReceiveWatch

SERVICE, METHOD = "bench.v1.ReferenceService", "Echo"
LABELS = {"grpc_service": SERVICE, "grpc_method": METHOD, "grpc_type": "unary"}


class _Lines:
    """Stands in for the call log: the fields of each line written."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def bind(self) -> _Lines:
        return self

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
                for _ in range(1000):  # the answer may reach us before the call's bookkeeping ends
                    if len(callstats._log.lines) > lines:  # its last step: the log line
                        break
                    await asyncio.sleep(0.005)
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


def test_receive_watch_times_out_only_the_stalled_calls_it_cancelled_alone() -> None:
    """The one timer of ``_ReceiveWatch`` cancels the calls past their deadline; a call
    it cancelled reads as timed out only if nothing else cancelled it too."""
    outcomes: dict[str, str] = {}

    async def main() -> _ReceiveWatch:
        watch = _ReceiveWatch(3600.0)  # its own timer does not run in this test
        arrived = asyncio.Event()

        async def call(name: str) -> None:
            task = asyncio.current_task()
            assert task is not None
            watch.watch(task)
            try:
                await arrived.wait()
                outcomes[name] = "received"
            except asyncio.CancelledError:
                outcomes[name] = "timed out" if watch.timed_out(task) else "cancelled"
                if outcomes[name] == "cancelled":
                    raise
            finally:
                watch.received(task)

        tasks = {name: asyncio.create_task(call(name)) for name in ("stalled", "both", "late")}
        tasks["client"] = asyncio.create_task(call("client"))
        await asyncio.sleep(0)  # all four are receiving
        for name in ("stalled", "both"):
            watch.calls[tasks[name]] = 0.0  # their deadlines have passed
        watch._sweep()
        tasks["both"].cancel()  # the client went away too
        tasks["client"].cancel()
        await asyncio.sleep(0)
        arrived.set()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        assert tasks["both"].cancelled() and tasks["client"].cancelled()
        assert not tasks["stalled"].cancelled()
        if watch.timer is not None:
            watch.timer.cancel()
        return watch

    watch = asyncio.run(main())
    assert outcomes == {
        "stalled": "timed out",
        "both": "cancelled",
        "late": "received",
        "client": "cancelled",
    }
    assert not watch.calls and not watch.expired

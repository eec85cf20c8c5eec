"""The gRPC port adds its services (the API, health, reflection) as generic handlers only,
never as registered methods: grpc.aio waits for calls on one task per registered method
and waits on all of them again after every call, so each one would cost every call. A
real listener in-process, checked against a server that does register a method (the
control: that such a server has those tasks)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from google.protobuf.wrappers_pb2 import BytesValue
from grpc_health.v1 import health_pb2, health_pb2_grpc
from studengine.api.calls import ApiCalls
from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import Handlers
from studengine.api.servicer import SERVICE_NAME, StudEngineServicer
from studengine.server.config import ServerConfig
from studengine.server.grpc_listener import GrpcListener, Health
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key


def _waiting_per_method() -> int:
    """The grpc.aio tasks waiting for a call of one registered method."""
    return sum("_request_registered_call" in repr(task) for task in asyncio.all_tasks())


async def _registered_control() -> int:
    server = grpc.aio.server()
    echo = grpc.unary_unary_rpc_method_handler(
        lambda request, _context: request,
        request_deserializer=BytesValue.FromString,
        response_serializer=BytesValue.SerializeToString,
    )
    server.add_registered_method_handlers("t.Echo", {"Echo": echo})  # type: ignore[attr-defined]
    server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await asyncio.sleep(0.05)
    try:
        return _waiting_per_method()
    finally:
        await server.stop(0)


async def _listener_tasks() -> tuple[int, int]:
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=False)
    calls = ApiCalls(handlers, ExpensiveCalls(1, 1))
    config = ServerConfig(host="127.0.0.1", port=0)
    listener = GrpcListener(config, StudEngineServicer(calls), Health([SERVICE_NAME]))
    await listener.start()
    await asyncio.sleep(0.05)
    try:
        waiting = _waiting_per_method()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{listener.port}") as channel:
            stub: Any = health_pb2_grpc.HealthStub(channel)
            answer = await stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
        return waiting, answer.status
    finally:
        await listener.stop(0)


def test_the_grpc_port_registers_no_method() -> None:
    assert asyncio.run(_registered_control()) >= 1  # what a registered method looks like
    waiting, status = asyncio.run(_listener_tasks())
    assert waiting == 0
    assert status == health_pb2.HealthCheckResponse.SERVING  # served by the generic handler

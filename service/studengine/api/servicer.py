"""The gRPC servicer (``grpc.aio``): a thin layer that hands each request to
``handlers.Handlers`` and turns an ``ApiError`` into its status (with rich details).

``StudEngineServicer(..., calls=ApiCalls(...))`` and ``add_servicer(server, servicer)``
are what the server start-up uses; the observer (the server's metrics) hears of every
hand, action and refusal. The cheap calls (StartHand, Act, GetView, GetHandHistory, small
Evaluate batches: about a millisecond of CPU at most) run inline on the event loop;
Equity and large Evaluate batches run in a bounded pool of their own
(``calls.ApiCalls``, ``expensive.ExpensiveCalls``), so that they hold up neither health
checks nor the cheap calls. ``add_servicer`` registers the methods with request parsers that never
raise: a request body that is not the method's message (bad wire format, invalid UTF-8
in a string) gets INVALID_ARGUMENT, where gRPC's own parser failure would answer INTERNAL;
one over ``max_message_bytes`` gets LIMIT_EXCEEDED (gRPC core is set to let through up to
twice that, so that such a refusal carries its details: ``config.READ_FACTOR``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api.calls import ApiCalls
from studengine.api.errors import ApiError, bad_request, to_status, too_large
from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import DEFAULT_EQUITY_CPU_SECONDS, Handlers
from studengine.api.observer import Observer, Unobserved
from studengine.state.sealing import KeyRing

Req = TypeVar("Req")
Resp = TypeVar("Resp")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["StudEngineService"].full_name


class Malformed:
    """Stands in for a request body that did not parse as the method's message, or that
    was over the size limit (``size``, ``limit``)."""

    def __init__(self, method: str, type_name: str, size: int = 0, limit: int = 0) -> None:
        self.method = method
        self.type_name = type_name
        self.size = size
        self.limit = limit


def _checked(request: Req | Malformed) -> Req:
    if isinstance(request, Malformed):
        if request.limit:
            raise too_large(request.method, request.size, request.limit)
        raise bad_request("request", f"not a valid {request.type_name} message")
    return request


async def _answer(compute: Callable[[], Awaitable[Resp]], context: Any, observer: Observer) -> Resp:
    """The response, or the refusal's status (reported to the observer by its reason)."""
    try:
        return await compute()
    except ApiError as error:
        observer.rejected(error.metric_label)
        await context.abort_with_status(to_status(error))
        raise  # abort_with_status raises; this line is never reached


class StudEngineServicer:
    """``stud.v1.StudEngineService`` over the worker's ``ApiCalls``."""

    def __init__(
        self,
        keyring: KeyRing,
        allow_test_decks: bool,
        observer: Observer | None = None,
        expensive: ExpensiveCalls | None = None,
        equity_cpu_seconds: float | None = None,
        calls: ApiCalls | None = None,
    ) -> None:
        if calls is None:
            handlers = Handlers(
                keyring,
                allow_test_decks,
                observer=observer or Unobserved(),
                equity_cpu_seconds=equity_cpu_seconds or DEFAULT_EQUITY_CPU_SECONDS,
            )
            calls = ApiCalls(handlers, expensive or ExpensiveCalls(threads=2, limit=32))
        self.calls = calls
        self.handlers = calls.handlers
        self.observer: Observer = calls.observer
        self.expensive = calls.expensive

    async def _answer(
        self, call: Callable[[Req], Awaitable[Resp]], request: Req | Malformed, context: Any
    ) -> Resp:
        async def compute() -> Resp:
            return await call(_checked(request))

        return await _answer(compute, context, self.observer)

    async def StartHand(self, request: pb.StartHandRequest, context: Any) -> pb.StartHandResponse:
        return await self._answer(self.calls.start_hand, request, context)

    async def Act(self, request: pb.ActRequest, context: Any) -> pb.ActResponse:
        return await self._answer(self.calls.act, request, context)

    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        return await self._answer(self.calls.get_view, request, context)

    async def Evaluate(self, request: pb.EvaluateRequest, context: Any) -> pb.EvaluateResponse:
        return await self._answer(self.calls.evaluate, request, context)

    async def Equity(self, request: pb.EquityRequest, context: Any) -> pb.EquityResponse:
        remaining = context.time_remaining()

        async def equity(checked: pb.EquityRequest) -> pb.EquityResponse:
            return await self.calls.equity(checked, remaining)

        return await self._answer(equity, request, context)

    async def GetHandHistory(
        self, request: pb.GetHandHistoryRequest, context: Any
    ) -> pb.GetHandHistoryResponse:
        return await self._answer(self.calls.get_hand_history, request, context)


def _parser(
    method: str, message: type[Message], limit: int | None
) -> Callable[[bytes], Message | Malformed]:
    name = message.DESCRIPTOR.name

    def parse(data: bytes) -> Message | Malformed:
        if limit is not None and len(data) > limit:
            return Malformed(method, name, len(data), limit)
        try:
            return message.FromString(data)
        except Exception:  # any parse failure is the caller's malformed request
            return Malformed(method, name)

    return parse


METHODS: dict[str, tuple[type[Message], type[Message]]] = {
    "StartHand": (pb.StartHandRequest, pb.StartHandResponse),
    "Act": (pb.ActRequest, pb.ActResponse),
    "GetView": (pb.GetViewRequest, pb.GetViewResponse),
    "Evaluate": (pb.EvaluateRequest, pb.EvaluateResponse),
    "Equity": (pb.EquityRequest, pb.EquityResponse),
    "GetHandHistory": (pb.GetHandHistoryRequest, pb.GetHandHistoryResponse),
}


def add_servicer(
    server: grpc.aio.Server, servicer: StudEngineServicer, max_message_bytes: int | None = None
) -> None:
    """Register the servicer's methods on a server (with parsers that never raise and
    refuse a message over ``max_message_bytes``)."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            getattr(servicer, name),
            request_deserializer=_parser(name, request, max_message_bytes),
            response_serializer=response.SerializeToString,
        )
        for name, (request, response) in METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    if hasattr(server, "add_registered_method_handlers"):  # grpcio >= 1.63: a faster lookup
        server.add_registered_method_handlers(SERVICE_NAME, handlers)

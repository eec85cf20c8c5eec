"""The gRPC servicer: a thin layer that hands each request to ``handlers.Handlers`` and
turns an ``ApiError`` into its status (with rich details).

``StudEngineServicer(keyring, allow_test_decks, observer)`` and ``add_servicer(server,
servicer)`` are what the server start-up uses; ``observer`` (the server's metrics) hears of
every hand, action and refusal. ``add_servicer`` registers the methods with request
parsers that never raise: a request body that is not the method's message (bad wire
format, invalid UTF-8 in a string) gets INVALID_ARGUMENT, where gRPC's own parser
failure would answer INTERNAL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import Message
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

from studengine.api.errors import ApiError, bad_request, to_status
from studengine.api.handlers import Handlers
from studengine.api.observer import Observer, Unobserved
from studengine.state.sealing import KeyRing

Req = TypeVar("Req")
Resp = TypeVar("Resp")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["StudEngineService"].full_name


class Malformed:
    """Stands in for a request body that did not parse as the method's message."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


def _call(
    handler: Callable[[Req], Resp], request: Req | Malformed, context: Any, observer: Observer
) -> Resp:
    try:
        if isinstance(request, Malformed):
            raise bad_request("request", f"not a valid {request.type_name} message")
        return handler(request)
    except ApiError as error:
        observer.rejected(error.metric_label)
        context.abort_with_status(to_status(error))
        raise  # abort_with_status raises; this line is never reached


class StudEngineServicer(pb_grpc.StudEngineServiceServicer):
    """``stud.v1.StudEngineService`` over the handlers."""

    def __init__(
        self, keyring: KeyRing, allow_test_decks: bool, observer: Observer | None = None
    ) -> None:
        self.observer: Observer = observer or Unobserved()
        self.handlers = Handlers(keyring, allow_test_decks, observer=self.observer)

    def StartHand(
        self, request: pb.StartHandRequest, context: grpc.ServicerContext
    ) -> pb.StartHandResponse:
        return _call(self.handlers.start_hand, request, context, self.observer)

    def Act(self, request: pb.ActRequest, context: grpc.ServicerContext) -> pb.ActResponse:
        return _call(self.handlers.act, request, context, self.observer)

    def GetView(
        self, request: pb.GetViewRequest, context: grpc.ServicerContext
    ) -> pb.GetViewResponse:
        return _call(self.handlers.get_view, request, context, self.observer)

    def Evaluate(
        self, request: pb.EvaluateRequest, context: grpc.ServicerContext
    ) -> pb.EvaluateResponse:
        return _call(self.handlers.evaluate, request, context, self.observer)

    def Equity(self, request: pb.EquityRequest, context: grpc.ServicerContext) -> pb.EquityResponse:
        remaining = context.time_remaining()
        return _call(lambda r: self.handlers.equity(r, remaining), request, context, self.observer)


def _parser(message: type[Message]) -> Callable[[bytes], Message | Malformed]:
    name = message.DESCRIPTOR.name

    def parse(data: bytes) -> Message | Malformed:
        try:
            return message.FromString(data)
        except Exception:  # any parse failure is the caller's malformed request
            return Malformed(name)

    return parse


METHODS: dict[str, tuple[type[Message], type[Message]]] = {
    "StartHand": (pb.StartHandRequest, pb.StartHandResponse),
    "Act": (pb.ActRequest, pb.ActResponse),
    "GetView": (pb.GetViewRequest, pb.GetViewResponse),
    "Evaluate": (pb.EvaluateRequest, pb.EvaluateResponse),
    "Equity": (pb.EquityRequest, pb.EquityResponse),
}


def add_servicer(server: grpc.Server, servicer: StudEngineServicer) -> None:
    """Register the servicer's methods on a server (with parsers that never raise)."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            getattr(servicer, name),
            request_deserializer=_parser(request),
            response_serializer=response.SerializeToString,
        )
        for name, (request, response) in METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    if hasattr(server, "add_registered_method_handlers"):  # grpcio >= 1.62
        server.add_registered_method_handlers(SERVICE_NAME, handlers)

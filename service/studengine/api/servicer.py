"""The gRPC servicer: a thin layer that hands each request to ``handlers.Handlers`` and
turns an ``ApiError`` into its status (with rich details).

``StudEngineServicer(keyring, allow_test_decks)`` and ``add_servicer(server, servicer)``
are what the server start-up uses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import grpc

from studengine.api.errors import ApiError, to_status
from studengine.api.handlers import Handlers
from studengine.gen.stud.v1 import stud_engine_pb2 as pb
from studengine.gen.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studengine.state.sealing import KeyRing

Req = TypeVar("Req")
Resp = TypeVar("Resp")

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["StudEngineService"].full_name


def _call(handler: Callable[[Req], Resp], request: Req, context: grpc.ServicerContext) -> Resp:
    try:
        return handler(request)
    except ApiError as error:
        context.abort_with_status(to_status(error))
        raise  # abort_with_status raises; this line is never reached


class StudEngineServicer(pb_grpc.StudEngineServiceServicer):
    """``stud.v1.StudEngineService`` over the handlers."""

    def __init__(self, keyring: KeyRing, allow_test_decks: bool) -> None:
        self.handlers = Handlers(keyring, allow_test_decks)

    def StartHand(
        self, request: pb.StartHandRequest, context: grpc.ServicerContext
    ) -> pb.StartHandResponse:
        return _call(self.handlers.start_hand, request, context)

    def Act(self, request: pb.ActRequest, context: grpc.ServicerContext) -> pb.ActResponse:
        return _call(self.handlers.act, request, context)

    def GetView(
        self, request: pb.GetViewRequest, context: grpc.ServicerContext
    ) -> pb.GetViewResponse:
        return _call(self.handlers.get_view, request, context)

    def Evaluate(
        self, request: pb.EvaluateRequest, context: grpc.ServicerContext
    ) -> pb.EvaluateResponse:
        return _call(self.handlers.evaluate, request, context)

    def Equity(self, request: pb.EquityRequest, context: grpc.ServicerContext) -> pb.EquityResponse:
        remaining = context.time_remaining()
        return _call(lambda r: self.handlers.equity(r, remaining), request, context)


def add_servicer(server: grpc.Server, servicer: StudEngineServicer) -> None:
    """Register the servicer on a server."""
    pb_grpc.add_StudEngineServiceServicer_to_server(servicer, server)

"""The gRPC servicer (``grpc.aio``): a thin layer that hands each request to the worker's
``calls.ApiCalls`` and turns an ``ApiError`` into its status (with rich details).

``add_servicer(server, StudEngineServicer(calls))`` is what the server start-up uses; the
observer (the server's metrics) hears of every refusal by its reason. ``add_servicer``
registers the methods with request parsers that never raise: a request body that is not
the method's message (bad wire format, invalid UTF-8 in a string) gets INVALID_ARGUMENT,
where gRPC's own parser failure would answer INTERNAL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import Message

from studengine.api.calls import METHODS, SERVICE_NAME, ApiCalls
from studengine.api.errors import ApiError, bad_request, to_status
from studengine.api.observer import Observer

Behavior = Callable[[Any, Any], Awaitable[Message]]


class Malformed:
    """Stands in for a request body that did not parse as the method's message."""

    def __init__(self, type_name: str) -> None:
        self.type_name = type_name


class StudEngineServicer:
    """``stud.v1.StudEngineService`` over the worker's ``ApiCalls``: one behavior per
    method (``behavior(name)``), each the same path."""

    def __init__(self, calls: ApiCalls) -> None:
        self.calls = calls
        self.observer: Observer = calls.observer

    def behavior(self, method: str) -> Behavior:
        """The grpc.aio behavior of ``method``: the answer, or the refusal's status."""
        calls, observer = self.calls, self.observer

        async def answer(request: Message | Malformed, context: Any) -> Message:
            try:
                if isinstance(request, Malformed):
                    raise bad_request("request", f"not a valid {request.type_name} message")
                return await calls.run(method, request, context.time_remaining())
            except ApiError as error:
                observer.rejected(error.metric_label)
                await context.abort_with_status(to_status(error))
                raise  # abort_with_status raises; this line is never reached

        return answer


def _parser(message: type[Message]) -> Callable[[bytes], Message | Malformed]:
    name = message.DESCRIPTOR.name

    def parse(data: bytes) -> Message | Malformed:
        try:
            return message.FromString(data)
        except Exception:  # any parse failure is the caller's malformed request
            return Malformed(name)

    return parse


def add_servicer(server: grpc.aio.Server, servicer: StudEngineServicer) -> None:
    """Register the servicer's methods on a server (with parsers that never raise)."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            servicer.behavior(name),
            request_deserializer=_parser(request),
            response_serializer=response.SerializeToString,
        )
        for name, (request, response) in METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    if hasattr(server, "add_registered_method_handlers"):  # grpcio >= 1.63: a faster lookup
        server.add_registered_method_handlers(SERVICE_NAME, handlers)


__all__ = ["METHODS", "SERVICE_NAME", "Malformed", "StudEngineServicer", "add_servicer"]

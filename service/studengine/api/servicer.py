"""The gRPC servicer (``grpc.aio``): a thin layer that hands each request to the worker's
``calls.ApiCalls`` and turns an ``ApiError`` into its status (with rich details).

``add_servicer(server, StudEngineServicer(calls), max_message_bytes)`` is what the server
start-up uses; the observer (the server's metrics) hears of every refusal by its reason.
``add_servicer`` registers the methods with request parsers that never raise: a request
body that is not the method's message (bad wire format, invalid UTF-8 in a string) gets
INVALID_ARGUMENT, where gRPC's own parser failure would answer INTERNAL; one over
``max_message_bytes`` gets LIMIT_EXCEEDED (gRPC core is set to let through up to twice
that, so that such a refusal carries its details: ``config.READ_FACTOR``). The answers
go out as ``ApiCalls.run_serialized`` gives them, already bytes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import Message

from studengine.api.calls import DEADLINE_METHODS, METHODS, SERVICE_NAME, ApiCalls
from studengine.api.errors import ApiError, bad_request, mark_refused, to_status, too_large
from studengine.api.observer import Observer

Behavior = Callable[[Any, Any], Awaitable[bytes]]


class Malformed:
    """Stands in for a request body that did not parse as the method's message, or that
    was over the size limit (``size``, ``limit``)."""

    def __init__(self, method: str, type_name: str, size: int = 0, limit: int = 0) -> None:
        self.method = method
        self.type_name = type_name
        self.size = size
        self.limit = limit

    def refusal(self) -> ApiError:
        if self.limit:
            return too_large(self.method, self.size, self.limit)
        return bad_request("request", f"not a valid {self.type_name} message")


class StudEngineServicer:
    """``stud.v1.StudEngineService`` over the worker's ``ApiCalls``: one behavior per
    method (``behavior(name)``), each the same path."""

    def __init__(self, calls: ApiCalls) -> None:
        self.calls = calls
        self.observer: Observer = calls.observer

    def behavior(self, method: str) -> Behavior:
        """The grpc.aio behavior of ``method``: the answer, serialized, or the refusal's
        status. StartHand and Act call their handler straight away (no coroutine in
        between); only the calls that use it ask for the time left to the deadline."""
        calls, observer = self.calls, self.observer
        inline = calls.serialized_handler(method)
        timed = method in DEADLINE_METHODS

        async def answer(request: Message | Malformed, context: Any) -> bytes:
            try:
                if isinstance(request, Malformed):
                    raise request.refusal()
                if inline is not None:
                    return inline(request)
                left = context.time_remaining() if timed else None
                return await calls.run_serialized(method, request, left)
            except ApiError as error:
                observer.rejected(error.metric_label)
                mark_refused(error)
                await context.abort_with_status(to_status(error))
                raise  # abort_with_status raises; this line is never reached

        return answer


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


def add_servicer(
    server: grpc.aio.Server, servicer: StudEngineServicer, max_message_bytes: int | None = None
) -> None:
    """Register the servicer's methods on a server (with parsers that never raise and
    refuse a message over ``max_message_bytes``; the answers come serialized).

    As a generic handler only, not also as registered methods (grpcio >= 1.63): grpc.aio's
    server waits for the next call on one task per registered method, all of them
    ``asyncio.wait``-ed again after every call, which costs each call about 4k
    instructions per registered method; the generic lookup is one dict look-up."""
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(
            servicer.behavior(name),
            request_deserializer=_parser(name, request, max_message_bytes),
            response_serializer=None,  # the behaviors answer bytes
        )
        for name, (request, _response) in METHODS.items()
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))


__all__ = ["METHODS", "SERVICE_NAME", "Malformed", "StudEngineServicer", "add_servicer"]

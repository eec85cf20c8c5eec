"""The API's calls as both ports run them: ``ApiCalls.run(method, request, time_remaining)``,
built once per worker over its ``Handlers`` and its pool for the expensive calls. The
cheap ones (StartHand, Act, GetView, GetHandHistory, CreateDealTicket, small Evaluate
batches) run inline on
the event loop; Equity and Evaluate of more than ``INLINE_EVALUATE_HANDS`` hands run in the
worker's bounded pool (``expensive.ExpensiveCalls``: RESOURCE_EXHAUSTED beyond its limit,
work stopped when the caller leaves), Equity within the call's deadline and the CPU cap
of ``Handlers``.

The gRPC servicer (``servicer``) and the HTTP port (``server.http``) share one ``ApiCalls``
per worker, so the bounds hold for the worker whatever port a call came in on. The gRPC
port sends the answers of ``run_serialized``: StartHand's and Act's (most calls, and the
largest answers) as the handlers assemble their bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import Handlers
from studengine.api.observer import Observer

#: Evaluate batches larger than this go to the expensive calls' pool.
INLINE_EVALUATE_HANDS = 500
SERVICE = pb.DESCRIPTOR.services_by_name["StudEngineService"]
SERVICE_NAME = SERVICE.full_name
#: Each method of ``stud.v1.StudEngineService``: its request and response messages.
METHODS: dict[str, tuple[type[Message], type[Message]]] = {
    method.name: (getattr(pb, method.input_type.name), getattr(pb, method.output_type.name))
    for method in SERVICE.methods
}
#: The methods whose work the caller's deadline bounds (the others ignore ``time_remaining``).
DEADLINE_METHODS = frozenset({"Equity"})


class ApiCalls:
    """Each method of ``stud.v1.StudEngineService`` as a coroutine over a parsed request;
    refusals raise ``ApiError``."""

    def __init__(self, handlers: Handlers, expensive: ExpensiveCalls) -> None:
        self.handlers = handlers
        self.expensive = expensive
        self.observer: Observer = handlers.observer
        self._inline: dict[str, Callable[[Any], Message]] = {
            "StartHand": handlers.start_hand,
            "Act": handlers.act,
            "GetView": handlers.get_view,
            "GetHandHistory": handlers.get_hand_history,
            "CreateDealTicket": handlers.create_deal_ticket,
        }
        if set(self._inline) | {"Evaluate", "Equity"} != set(METHODS):
            raise RuntimeError("ApiCalls does not run every method of the service")
        # the calls whose handlers serialize their answers as they build them
        self._serialized: dict[str, Callable[[Any], bytes]] = {
            "StartHand": handlers.start_hand_serialized,
            "Act": handlers.act_serialized,
        }

    async def run(self, method: str, request: Any, time_remaining: float | None) -> Message:
        """The answer of ``method`` to ``request``. ``time_remaining``: seconds to the
        caller's deadline (None: no deadline), from now; Equity gets what is left of it
        once its work starts."""
        if method == "Equity":
            return await self._equity(request, time_remaining)
        if method == "Evaluate" and len(request.hands) > INLINE_EVALUATE_HANDS:
            return await self.expensive.run(
                "Evaluate", lambda _cancelled: self.handlers.evaluate(request)
            )
        if method == "Evaluate":
            return self.handlers.evaluate(request)
        return self._inline[method](request)

    def serialized_handler(self, method: str) -> Callable[[Any], bytes] | None:
        """The handler that answers ``method`` serialized, called as it is (StartHand, Act);
        None for the others (``run_serialized``)."""
        return self._serialized.get(method)

    async def run_serialized(
        self, method: str, request: Any, time_remaining: float | None
    ) -> bytes:
        """``run``'s answer, serialized: StartHand's and Act's as their handlers assemble
        it (never a message parsed and serialized again), the others' serialized here."""
        serialized = self._serialized.get(method)
        if serialized is not None:
            return serialized(request)
        return (await self.run(method, request, time_remaining)).SerializeToString()

    async def _equity(
        self, request: pb.EquityRequest, time_remaining: float | None
    ) -> pb.EquityResponse:
        deadline = None if time_remaining is None else time.monotonic() + time_remaining

        def work(cancelled: Callable[[], bool]) -> pb.EquityResponse:
            left = None if deadline is None else deadline - time.monotonic()
            return self.handlers.equity(request, left, cancelled)

        return await self.expensive.run("Equity", work)

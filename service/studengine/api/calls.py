"""The API's calls as both ports run them: the cheap ones inline on the event loop, the
expensive ones (Equity, Evaluate of more than ``INLINE_EVALUATE_HANDS`` hands) in the
worker's bounded pool (``expensive.ExpensiveCalls``: RESOURCE_EXHAUSTED beyond its limit,
work stopped when the caller leaves), Equity within the CPU cap of ``Handlers``.

The gRPC servicer (``servicer``) and the HTTP port (``server.http``) share one ``ApiCalls``
per worker, so the bounds hold for the worker whatever port a call came in on.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studengine.api.expensive import ExpensiveCalls
from studengine.api.handlers import Handlers
from studengine.api.observer import Observer

#: Evaluate batches larger than this go to the expensive calls' pool.
INLINE_EVALUATE_HANDS = 500


class ApiCalls:
    """Each method of ``stud.v1.StudEngineService`` as a coroutine over parsed requests;
    refusals raise ``ApiError``."""

    def __init__(self, handlers: Handlers, expensive: ExpensiveCalls) -> None:
        self.handlers = handlers
        self.expensive = expensive

    @property
    def observer(self) -> Observer:
        return self.handlers.observer

    async def start_hand(self, request: pb.StartHandRequest) -> pb.StartHandResponse:
        return self.handlers.start_hand(request)

    async def act(self, request: pb.ActRequest) -> pb.ActResponse:
        return self.handlers.act(request)

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        return self.handlers.get_view(request)

    async def get_hand_history(
        self, request: pb.GetHandHistoryRequest
    ) -> pb.GetHandHistoryResponse:
        return self.handlers.get_hand_history(request)

    async def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        if len(request.hands) <= INLINE_EVALUATE_HANDS:
            return self.handlers.evaluate(request)
        return await self.expensive.run(
            "Evaluate", lambda _cancelled: self.handlers.evaluate(request)
        )

    async def equity(
        self, request: pb.EquityRequest, time_remaining: float | None
    ) -> pb.EquityResponse:
        """``time_remaining``: seconds to the caller's deadline (None: no deadline), from
        now; the work gets what is left of it once it starts."""
        deadline = None if time_remaining is None else time.monotonic() + time_remaining

        def work(cancelled: Callable[[], bool]) -> pb.EquityResponse:
            left = None if deadline is None else deadline - time.monotonic()
            return self.handlers.equity(request, left, cancelled)

        return await self.expensive.run("Equity", work)

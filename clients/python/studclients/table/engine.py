"""The engine as stud-table sees it: ``grpc.aio`` calls to any ``stud-server`` with the
retries the README prescribes (UNAVAILABLE, and CANCELLED from a draining server; stud-table
never cancels its own calls). This is the one module that imports the generated API."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from typing import Any

import grpc
from google.rpc import error_details_pb2, status_pb2
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

__all__ = ["Engine", "EngineError", "pb"]

#: Codes worth trying again (on the next target): every engine call is safe to repeat.
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})
ATTEMPTS = 5
CALL_TIMEOUT = 10.0
CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]


class EngineError(Exception):
    """An engine call that failed for good: ``code`` is the gRPC status code's name,
    ``reason`` the ErrorInfo reason of the rich status (``STATE_INVALID``, ...; "" when
    the engine sent none, as when it could not be reached)."""

    def __init__(self, code: str, message: str, reason: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.reason = reason


def error_reason(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason in the status details (``grpc-status-details-bin``)."""
    trailers: Any = error.trailing_metadata() or ()
    for key, value in trailers:
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        for detail in status_pb2.Status.FromString(value).details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return str(info.reason)
    return ""


class Engine:
    """Channels to one or more engine targets, used in turn; a failed call moves on."""

    def __init__(self, targets: Sequence[str]) -> None:
        if not targets:
            raise ValueError("no engine target")
        self.channels = [grpc.aio.insecure_channel(t, options=CHANNEL_OPTIONS) for t in targets]
        self.stubs = [pb_grpc.StudEngineServiceStub(c) for c in self.channels]
        self._turn = itertools.count()

    async def _call(self, method: str, request: Any) -> Any:
        index = next(self._turn) % len(self.stubs)
        for attempt in range(1, ATTEMPTS + 1):
            stub = self.stubs[index]
            try:
                return await getattr(stub, method)(request, timeout=CALL_TIMEOUT)
            except grpc.aio.AioRpcError as error:
                code = error.code()
                if code in RETRYABLE and attempt < ATTEMPTS:
                    index = (index + 1) % len(self.stubs)
                    await asyncio.sleep(0.05 * attempt)
                    continue
                raise EngineError(code.name, error.details() or "", error_reason(error)) from None
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        response: pb.StartHandResponse = await self._call("StartHand", request)
        return response.hand

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        response: pb.ActResponse = await self._call("Act", request)
        return response.hand

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        response: pb.GetViewResponse = await self._call("GetView", request)
        return response

    async def equity(self, request: pb.EquityRequest) -> pb.EquityResponse:
        response: pb.EquityResponse = await self._call("Equity", request)
        return response

    async def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        response: pb.EvaluateResponse = await self._call("Evaluate", request)
        return response

    async def get_hand_history(
        self, request: pb.GetHandHistoryRequest
    ) -> pb.GetHandHistoryResponse:
        response: pb.GetHandHistoryResponse = await self._call("GetHandHistory", request)
        return response

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close(None)

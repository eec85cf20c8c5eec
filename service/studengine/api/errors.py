"""The API's refusals and their gRPC statuses.

Handlers raise ``ApiError``; the servicer turns it into a status with ``to_status``.
INVALID_ARGUMENT carries ``google.rpc.BadRequest`` field violations; FAILED_PRECONDITION
names the legal moves; ABORTED is a stale ``expected_seq``; RESOURCE_EXHAUSTED is a
server too busy for more expensive calls (``overloaded``). ``reason`` is machine-readable
(the servicer reports each refusal by it: ``stud_rejections_total``).
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from studengine.rules.types import IllegalAction, InvalidHand
from studengine.state.sealing import INVALID_MESSAGE


class ApiError(Exception):
    """A refusal: a status code, a message and (for INVALID_ARGUMENT) field violations."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str,
        violations: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.violations = tuple(violations)


def bad_request(field: str, description: str, reason: str = "bad_request") -> ApiError:
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT, f"{field}: {description}", reason, [(field, description)]
    )


def bad_state() -> ApiError:
    """The one answer to every sealed state that does not open."""
    return ApiError(
        grpc.StatusCode.INVALID_ARGUMENT, INVALID_MESSAGE, "bad_state", [("state", INVALID_MESSAGE)]
    )


def invalid_hand(error: InvalidHand, prefix: str = "") -> ApiError:
    return bad_request(prefix + error.field, error.reason)


def illegal_action(error: IllegalAction) -> ApiError:
    if error.to_act is None:
        reason = "hand_over"
    elif "not to act" in error.reason or "no seat" in error.reason:
        reason = "out_of_turn"
    else:
        reason = "illegal_action"
    return ApiError(grpc.StatusCode.FAILED_PRECONDITION, str(error), reason)


def stale_seq(expected: int, actual: int) -> ApiError:
    return ApiError(
        grpc.StatusCode.ABORTED,
        f"expected_seq is {expected} but the state's seq is {actual}: the state is stale "
        "or the caller's copy is",
        "stale_seq",
    )


def limit(field: str, description: str) -> ApiError:
    return bad_request(field, description, reason="limit")


def overloaded(method: str, limit: int) -> ApiError:
    """This worker already holds its limit of expensive calls: retry later or elsewhere."""
    return ApiError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"{method}: this server is busy with {limit} expensive calls (its limit); "
        "retry with backoff",
        "overloaded",
    )


def to_status(error: ApiError) -> grpc.Status:
    """The gRPC status (with rich details) for a refusal."""
    status = status_pb2.Status(code=_CODES[error.code], message=error.message)
    if error.violations:
        details = error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=f, description=d)
                for f, d in error.violations
            ]
        )
        packed = any_pb2.Any()
        packed.Pack(details)
        status.details.append(packed)
    result: grpc.Status = rpc_status.to_status(status)
    return result


def field_violations(status: status_pb2.Status) -> list[tuple[str, str]]:
    """The BadRequest field violations in a rich status (for clients and tests)."""
    found: list[tuple[str, str]] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            request = error_details_pb2.BadRequest()
            detail.Unpack(request)
            found.extend((v.field, v.description) for v in request.field_violations)
    return found


_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED: code_pb2.ABORTED,
    grpc.StatusCode.UNIMPLEMENTED: code_pb2.UNIMPLEMENTED,
    grpc.StatusCode.DEADLINE_EXCEEDED: code_pb2.DEADLINE_EXCEEDED,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.CANCELLED: code_pb2.CANCELLED,
}

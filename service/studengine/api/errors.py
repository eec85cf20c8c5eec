"""The API's refusals: one place that says what each refusal is on the wire.

Handlers, the interceptor and the HTTP port raise ``ApiError``; the servicer turns it into
a gRPC status with ``to_status`` and the HTTP (Connect) port into the same details with
``details``. Every refusal carries ``google.rpc.ErrorInfo`` (domain ``stud.v1``, the
``reason`` one of ``Reason``, the names of ``stud.v1.ErrorReason`` in
``proto/stud/v1/errors.proto``, and its metadata); INVALID_ARGUMENT also carries
``google.rpc.BadRequest`` with every field violation found, each with its own reason; a
refusal worth retrying (a busy or draining server) carries ``google.rpc.RetryInfo``.

Each reason has exactly one status code (``CODES``): an ``ApiError`` takes its code from
its reason, so the two cannot disagree (a unit test keeps ``CODES`` equal to what
errors.proto says). ``ApiError.metric_label`` is the refusal's label on
``stud_rejections_total`` (the labels dashboards and alerts already use; a finer one such
as ``overloaded`` where a reason has several causes).

The rules engine's typed refusals (``IllegalAction.refusal``) map to a reason in one place,
``REFUSAL_REASONS``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import NamedTuple, NoReturn

import grpc
from google.protobuf import any_pb2, duration_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from opentelemetry import trace

from studengine.rules.types import IllegalAction, InvalidHand, LegalAction, Refusal
from studengine.state.sealing import INVALID_MESSAGE

DOMAIN = "stud.v1"


class Reason(enum.StrEnum):
    """``stud.v1.ErrorReason``: the value's name is the ErrorInfo reason (a unit test keeps
    this list equal to the proto's)."""

    INVALID_REQUEST = "INVALID_REQUEST"
    STATE_INVALID = "STATE_INVALID"
    OUT_OF_TURN = "OUT_OF_TURN"
    HAND_OVER = "HAND_OVER"
    ILLEGAL_ACTION = "ILLEGAL_ACTION"
    STALE_SEQ = "STALE_SEQ"
    TEST_DECK_REFUSED = "TEST_DECK_REFUSED"
    LIMIT_EXCEEDED = "LIMIT_EXCEEDED"
    HAND_NOT_OVER = "HAND_NOT_OVER"
    SERVER_BUSY = "SERVER_BUSY"
    NO_TIME_LEFT = "NO_TIME_LEFT"
    RECEIVE_TIMEOUT = "RECEIVE_TIMEOUT"
    CALL_CANCELLED = "CALL_CANCELLED"
    SERVER_DRAINING = "SERVER_DRAINING"
    MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
    DEAL_TICKET_INVALID = "DEAL_TICKET_INVALID"
    DEAL_TICKET_EXPIRED = "DEAL_TICKET_EXPIRED"
    DEAL_TICKET_MISMATCH = "DEAL_TICKET_MISMATCH"
    CONTRIBUTIONS_INVALID = "CONTRIBUTIONS_INVALID"


_S = grpc.StatusCode
#: The one status code of each reason (errors.proto says the same; a unit test checks).
CODES: dict[Reason, grpc.StatusCode] = {
    Reason.INVALID_REQUEST: _S.INVALID_ARGUMENT,
    Reason.STATE_INVALID: _S.INVALID_ARGUMENT,
    Reason.OUT_OF_TURN: _S.FAILED_PRECONDITION,
    Reason.HAND_OVER: _S.FAILED_PRECONDITION,
    Reason.ILLEGAL_ACTION: _S.FAILED_PRECONDITION,
    Reason.STALE_SEQ: _S.ABORTED,
    Reason.TEST_DECK_REFUSED: _S.INVALID_ARGUMENT,
    Reason.LIMIT_EXCEEDED: _S.INVALID_ARGUMENT,
    Reason.HAND_NOT_OVER: _S.FAILED_PRECONDITION,
    Reason.SERVER_BUSY: _S.RESOURCE_EXHAUSTED,
    Reason.NO_TIME_LEFT: _S.DEADLINE_EXCEEDED,
    Reason.RECEIVE_TIMEOUT: _S.DEADLINE_EXCEEDED,
    Reason.CALL_CANCELLED: _S.CANCELLED,
    Reason.SERVER_DRAINING: _S.UNAVAILABLE,
    Reason.MESSAGE_TOO_LARGE: _S.RESOURCE_EXHAUSTED,
    Reason.DEAL_TICKET_INVALID: _S.INVALID_ARGUMENT,
    Reason.DEAL_TICKET_EXPIRED: _S.FAILED_PRECONDITION,
    Reason.DEAL_TICKET_MISMATCH: _S.INVALID_ARGUMENT,
    Reason.CONTRIBUTIONS_INVALID: _S.INVALID_ARGUMENT,
}

#: The reasons whose refusals carry RetryInfo, with its delay in seconds: the server is
#: busy (try again after a pause) or draining (try again now, on another connection).
RETRY_DELAYS: dict[Reason, float] = {Reason.SERVER_BUSY: 1.0, Reason.SERVER_DRAINING: 0.1}


#: ``stud_rejections_total{reason}``: the labels of the alerts and the dashboard.
METRIC_LABELS = {
    Reason.INVALID_REQUEST: "bad_request",
    Reason.STATE_INVALID: "bad_state",
    Reason.OUT_OF_TURN: "out_of_turn",
    Reason.HAND_OVER: "hand_over",
    Reason.ILLEGAL_ACTION: "illegal_action",
    Reason.STALE_SEQ: "stale_seq",
    Reason.TEST_DECK_REFUSED: "test_deck_refused",
    Reason.LIMIT_EXCEEDED: "limit",
    Reason.HAND_NOT_OVER: "hand_not_over",
    Reason.SERVER_BUSY: "overloaded",
    Reason.NO_TIME_LEFT: "no_time_left",
    Reason.RECEIVE_TIMEOUT: "receive_timeout",
    Reason.CALL_CANCELLED: "cancelled",
    Reason.SERVER_DRAINING: "draining",
    Reason.MESSAGE_TOO_LARGE: "too_large",
    Reason.DEAL_TICKET_INVALID: "deal_ticket_invalid",
    Reason.DEAL_TICKET_EXPIRED: "deal_ticket_expired",
    Reason.DEAL_TICKET_MISMATCH: "deal_ticket_mismatch",
    Reason.CONTRIBUTIONS_INVALID: "contributions_invalid",
}

#: Of several violations' reasons, the one ErrorInfo carries: the first in this order.
_PRECEDENCE = (
    Reason.STATE_INVALID,
    Reason.DEAL_TICKET_INVALID,
    Reason.TEST_DECK_REFUSED,
    Reason.DEAL_TICKET_MISMATCH,
    Reason.CONTRIBUTIONS_INVALID,
    Reason.LIMIT_EXCEEDED,
    Reason.INVALID_REQUEST,
)


class Violation(NamedTuple):
    """One bad field of a request: its path, what is wrong, and why (its reason)."""

    field: str
    description: str
    reason: Reason = Reason.INVALID_REQUEST


class ApiError(Exception):
    """A refusal: message, ErrorInfo reason (which decides the status code) and metadata,
    field violations."""

    def __init__(
        self,
        message: str,
        reason: Reason,
        violations: Sequence[Violation] = (),
        metadata: Mapping[str, str] | None = None,
        label: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = CODES[reason]
        self.message = message
        self.reason = reason
        self.violations = tuple(violations)
        self.metadata = dict(metadata or {})
        self._label = label

    @property
    def metric_label(self) -> str:
        """The reason's label, or the finer one the refusal was given (``overloaded``)."""
        return self._label or METRIC_LABELS[self.reason]


def mark_refused(error: ApiError) -> None:
    """Mark the current call's trace span (if tracing is on) refused with the ErrorInfo
    reason: its ``error.type``, by the RPC semantic conventions."""
    trace.get_current_span().set_attribute("error.type", error.reason.value)


class Violations:
    """Collects the bad fields of one request, to refuse it once with all of them."""

    def __init__(self) -> None:
        self.found: list[Violation] = []

    def add(self, field: str, description: str, reason: Reason = Reason.INVALID_REQUEST) -> None:
        self.found.append(Violation(field, description, reason))

    def limit(self, field: str, description: str) -> None:
        self.add(field, description, Reason.LIMIT_EXCEEDED)

    def invalid_hand(self, error: InvalidHand, prefix: str = "") -> None:
        self.add(prefix + error.field, error.reason)

    def bad_state(self) -> None:
        """The sealed state does not open (the one answer to every such state)."""
        self.found.append(state_violation())

    def __len__(self) -> int:
        return len(self.found)

    def check(self) -> None:
        """Raise the INVALID_ARGUMENT refusal naming every violation, if any was found."""
        if self.found:
            self.refuse()

    def refuse(self) -> NoReturn:
        """Raise the INVALID_ARGUMENT refusal naming every violation (there is one)."""
        raise invalid(self.found)


#: Violations sent at most (they travel in a response header, which clients cap at 8 KiB).
MAX_VIOLATIONS = 20


def invalid(violations: Sequence[Violation]) -> ApiError:
    """INVALID_ARGUMENT with every violation (the first ``MAX_VIOLATIONS``); ErrorInfo's
    reason is the weightiest one."""
    present = {v.reason for v in violations}
    reason = next(r for r in _PRECEDENCE if r in present)
    more = len(violations) - MAX_VIOLATIONS
    violations = violations[:MAX_VIOLATIONS]
    message = "; ".join(f"{v.field}: {v.description}" for v in violations)
    if more > 0:
        message += f"; and {more} more"
    if reason is Reason.STATE_INVALID:
        message = INVALID_MESSAGE  # the one answer to every state that does not open
    return ApiError(message, reason, violations)


def bad_request(field: str, description: str, reason: Reason = Reason.INVALID_REQUEST) -> ApiError:
    return invalid([Violation(field, description, reason)])


def limit(field: str, description: str) -> ApiError:
    return bad_request(field, description, Reason.LIMIT_EXCEEDED)


def state_violation() -> Violation:
    return Violation("state", INVALID_MESSAGE, Reason.STATE_INVALID)


def bad_state() -> ApiError:
    """The one answer to every sealed state that does not open."""
    return invalid([state_violation()])


def no_time_left(message: str, method: str) -> ApiError:
    """Expensive work with no time left within the call's deadline."""
    return ApiError(message, Reason.NO_TIME_LEFT, metadata={"method": method})


def legal_text(legal: Iterable[LegalAction]) -> str:
    """The ``legal`` metadata: ``FOLD,CALL:20,RAISE:40``."""
    return ",".join(a.type.value if a.to is None else f"{a.type.value}:{a.to}" for a in legal)


#: The engine's typed refusal -> the API's reason (a wrong amount is an illegal move).
REFUSAL_REASONS = {
    Refusal.HAND_OVER: Reason.HAND_OVER,
    Refusal.OUT_OF_TURN: Reason.OUT_OF_TURN,
    Refusal.NOT_LEGAL_NOW: Reason.ILLEGAL_ACTION,
    Refusal.BAD_AMOUNT: Reason.ILLEGAL_ACTION,
}


def illegal_action(error: IllegalAction, seq: int) -> ApiError:
    reason = REFUSAL_REASONS[error.refusal]
    metadata = {"seq": str(seq)}
    if reason is not Reason.HAND_OVER and error.to_act is not None:
        metadata["to_act"] = str(error.to_act)
        metadata["legal"] = legal_text(error.legal)
    return ApiError(str(error), reason, metadata=metadata)


def stale_seq(expected: int, actual: int) -> ApiError:
    return ApiError(
        f"expected_seq is {expected} but the state's seq is {actual}: the state is stale "
        "or the caller's copy is",
        Reason.STALE_SEQ,
        metadata={"seq": str(actual), "expected_seq": str(expected)},
    )


# ---- on the wire -----------------------------------------------------------------------


def details(error: ApiError) -> list[Message]:
    """The status details of a refusal: ErrorInfo, then BadRequest when fields are bad,
    RetryInfo when a retry may succeed."""
    found: list[Message] = [
        error_details_pb2.ErrorInfo(reason=error.reason, domain=DOMAIN, metadata=error.metadata)
    ]
    delay = RETRY_DELAYS.get(error.reason)
    if delay is not None:
        retry_delay = duration_pb2.Duration()
        retry_delay.FromTimedelta(timedelta(seconds=delay))
        found.append(error_details_pb2.RetryInfo(retry_delay=retry_delay))
    if error.violations:
        found.append(
            error_details_pb2.BadRequest(
                field_violations=[
                    error_details_pb2.BadRequest.FieldViolation(
                        field=v.field, description=v.description, reason=v.reason
                    )
                    for v in error.violations
                ]
            )
        )
    return found


def rich_status(error: ApiError) -> status_pb2.Status:
    """The ``google.rpc.Status`` of a refusal: code, message and details."""
    status = status_pb2.Status(code=error.code.value[0], message=error.message)
    for detail in details(error):
        packed = any_pb2.Any()
        packed.Pack(detail)
        status.details.append(packed)
    return status


def hand_not_over(seq: int) -> ApiError:
    """FAILED_PRECONDITION: what needs a finished hand (its history) asked of one in play."""
    return ApiError(
        f"the hand is not over (seq {seq}): its history is written once it ends",
        Reason.HAND_NOT_OVER,
        metadata={"seq": str(seq)},
    )


def deal_ticket_invalid() -> ApiError:
    """INVALID_ARGUMENT: StartHand's deal ticket does not open (one message whatever the cause)."""
    return bad_request("deal_ticket", "deal ticket is invalid", Reason.DEAL_TICKET_INVALID)


def deal_ticket_mismatch() -> ApiError:
    """INVALID_ARGUMENT: the ticket was made for other settings or players."""
    message = "the deal ticket names other settings or players (variant, table, players, button)"
    return bad_request("deal_ticket", message, Reason.DEAL_TICKET_MISMATCH)


def deal_ticket_expired(expires_at_ms: int) -> ApiError:
    """FAILED_PRECONDITION: the ticket has expired; ask for a new one."""
    return ApiError(
        f"the deal ticket expired at {expires_at_ms} (Unix ms): ask for a new one",
        Reason.DEAL_TICKET_EXPIRED,
        metadata={"expires_at_ms": str(expires_at_ms)},
    )


def overloaded(method: str, limit: int) -> ApiError:
    """This worker already holds its limit of expensive calls: retry later or elsewhere."""
    message = f"{method}: this server is busy with {limit} expensive calls (its limit)"
    return _busy(message, method, limit, "overloaded")


def too_many_calls(method: str, limit: int) -> ApiError:
    """This server already holds its limit of calls at once (either port's interceptor)."""
    return _busy(f"this server holds {limit} calls at once (its limit)", method, limit,
                 "too_many_calls")  # fmt: skip


def _busy(message: str, method: str, limit: int, label: str) -> ApiError:
    return ApiError(message + "; retry with backoff", Reason.SERVER_BUSY,
                    metadata={"limit": str(limit), "method": method}, label=label)  # fmt: skip


def receive_timeout(method: str, seconds: float) -> ApiError:
    """The request did not arrive in full within the server's bound (a stalled body)."""
    return ApiError(
        f"the request did not arrive in full within {seconds:g} s",
        Reason.RECEIVE_TIMEOUT,
        metadata={"limit": f"{seconds:g}", "method": method},
    )


def too_large(method: str, size: int, limit: int, body_limit: int = 0) -> ApiError:
    """A request message of ``size`` bytes over ``--max-message-bytes`` (``limit``), or
    (``body_limit``) an HTTP body of ``size`` bytes or more over what the HTTP port reads
    to find that message: RESOURCE_EXHAUSTED, the same reason, at every size."""
    what = f"request body of {size}+ bytes" if body_limit else f"request of {size} bytes"
    return ApiError(
        f"{what}, over this server's limit of {body_limit or limit}",
        Reason.MESSAGE_TOO_LARGE,
        metadata={"limit": str(limit), "method": method},
    )


def draining(method: str) -> ApiError:
    """The server is shutting down: a call it has not started is refused, to retry now."""
    return ApiError(
        "this server is shutting down and starts no new calls; retry (another server)",
        Reason.SERVER_DRAINING,
        metadata={"method": method},
    )


def work_cancelled(message: str, method: str) -> ApiError:
    """Expensive work stopped because its caller cancelled or its deadline passed (the
    caller has gone: the status is only reported, as ``cancelled``)."""
    return ApiError(message, Reason.CALL_CANCELLED, metadata={"method": method})


def to_status(error: ApiError) -> grpc.Status:
    """The gRPC status (``grpc-status-details-bin``, rich details) of a refusal."""
    result: grpc.Status = rpc_status.to_status(rich_status(error))
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


def error_info(status: status_pb2.Status) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo in a rich status, if any (for clients and tests)."""
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None

"""The error contract of proto/stud/v1/errors.proto, enforced: each reason has exactly one
gRPC status code (the one its comment in errors.proto names first), every refusal path
(the handlers' catalogue in support/refusals.py, and the refusals the ports make before a
handler: call limits, size limit, receive timeout, drain, expensive-call bound, deadline,
cancelled work) carries ErrorInfo and RetryInfo exactly when a retry may succeed, every
reason is exercised, and no code in the server answers a call of the API except through
``ApiError``."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable

import grpc
import pytest
from studengine.api import errors
from studengine.api.errors import CODES, RETRY_DELAYS, ApiError, Reason, rich_status
from support.paths import REPO
from support.refusals import REFUSALS, outcome_of

PROTO = REPO / "proto" / "stud" / "v1" / "errors.proto"
SERVICE = REPO / "service" / "studengine"

#: The refusals made outside the handlers' catalogue: by the interceptor, the HTTP port,
#: the expensive calls' pool and the Equity handler's clock, and StartHand's clock (a deal
#: ticket expired: tests/unit/test_api_deal_tickets.py plays it with a clock of its own).
PORT_REFUSALS: dict[str, Callable[[], ApiError]] = {
    "too many calls": lambda: errors.too_many_calls("Act", 4),
    "too many expensive calls": lambda: errors.overloaded("Equity", 32),
    "no time left": lambda: errors.no_time_left("no time left for Equity", "Equity"),
    "receive timeout": lambda: errors.receive_timeout("Act", 1.5),
    "message too large": lambda: errors.too_large("Evaluate", 2048, 1024),
    "no request message": lambda: errors.bad_request("request", "no request message"),
    "draining": lambda: errors.draining("StartHand"),
    "work cancelled": lambda: errors.work_cancelled("stopped after 10 of 20 deals", "Equity"),
    "deal ticket expired": lambda: errors.deal_ticket_expired(1_700_000_300_000),
}


def proto_codes() -> dict[str, list[str]]:
    """Each ErrorReason value of errors.proto -> the status codes its comment names first
    (one per paragraph that starts with a code name)."""
    found: dict[str, list[str]] = {}
    body = PROTO.read_text().split("enum ErrorReason {", 1)[1]
    for comment, name in re.findall(r"((?:\s*//[^\n]*\n)+)\s*([A-Z_]+) = \d+;", body):
        lines = [line.strip().removeprefix("//").strip() for line in comment.strip().splitlines()]
        text = " ".join(lines)
        found[name] = [c for c in re.findall(r"(?:^|\. )([A-Z_]{4,}):", text)
                       if c in grpc.StatusCode.__members__]  # fmt: skip
    return found


def test_each_reason_has_exactly_one_code_the_one_errors_proto_names() -> None:
    declared = proto_codes()
    declared.pop("ERROR_REASON_UNSPECIFIED")
    assert set(declared) == {r.value for r in Reason} == {r.value for r in CODES}
    for reason, codes in declared.items():
        assert codes == [CODES[Reason(reason)].name], (reason, codes)
    assert set(RETRY_DELAYS) == {Reason.SERVER_BUSY, Reason.SERVER_DRAINING}


@pytest.mark.parametrize("name", PORT_REFUSALS)
def test_the_ports_refusals_keep_the_contract(name: str) -> None:
    error = PORT_REFUSALS[name]()
    got = outcome_of(error.code.name, rich_status(error))
    got.check_contract()
    if got.reason in ("SERVER_BUSY", "RECEIVE_TIMEOUT"):
        assert set(got.metadata) == {"limit", "method"}, got
    if got.reason == "DEAL_TICKET_EXPIRED":
        assert set(got.metadata) == {"expires_at_ms"}, got
        return
    assert "method" in got.metadata or got.reason == "INVALID_REQUEST", got


def test_every_reason_has_a_refusal_path_under_test() -> None:
    reasons = {case.reason for case in REFUSALS}
    reasons |= {make().reason.value for make in PORT_REFUSALS.values()}
    assert reasons == {r.value for r in Reason}


def test_a_reason_cannot_be_sent_with_another_code() -> None:
    """The code comes from the reason: ApiError takes no code of its own."""
    for reason in Reason:
        assert ApiError("m", reason).code is CODES[reason]
    assert "code" not in inspect.signature(ApiError).parameters


# A refusal made any other way than from an ApiError: a bare abort, a hand-made Connect
# error. The exceptions, each with its reason: the health service's own answer (it is
# grpc.health.v1, not stud.v1) and the Connect port's INTERNAL for a bug.
BARE = re.compile(r"\.abort\(|ConnectError\(|abort_with_status\((?!to_status\()")
ALLOWED = {
    ("server/grpc_listener.py", "await context.abort(grpc.StatusCode.NOT_FOUND"),
    ("server/http.py", 'raise ConnectError(Code.INTERNAL, "internal error")'),
    ("server/http.py", "return ConnectError(Code[error.code.name], error.message, packed)"),
}


def test_no_refusal_bypasses_api_error() -> None:
    found = set()
    for path in SERVICE.rglob("*.py"):
        for line in path.read_text().splitlines():
            if BARE.search(line):
                found.add((str(path.relative_to(SERVICE)), line.strip()))
    bare = {(f, line) for f, line in found
            if not any(f == a and line.startswith(b) for a, b in ALLOWED)}  # fmt: skip
    assert not bare, "refusals without ErrorInfo (raise an ApiError instead): " + repr(bare)
    assert {a for a, _ in ALLOWED} <= {f for f, _ in found}  # the scan still sees them

"""A request over ``--max-message-bytes`` is one condition with one answer: RESOURCE_EXHAUSTED
with ErrorInfo ``MESSAGE_TOO_LARGE`` (metadata ``limit``, ``method``), just over the limit
and far beyond it, on the gRPC port and on the HTTP port in each of its protocols (Connect
binary and JSON, gRPC-Web, gRPC). The one exception is gRPC core's own cut-off on the gRPC
port beyond twice the limit: the same code, without details (errors.proto says why)."""

from __future__ import annotations

import base64
import http.client
import json
import struct
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import status_pb2
from grpc_health.v1 import health_pb2
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.refusals import Outcome, outcome_of
from support.server_harness import LiveServer, launch
from test_api_http import connect_outcome

LIMIT = 65536
SERVICE = "stud.v1.StudEngineService"
PATH = f"/{SERVICE}/Evaluate"
#: How far over the limit each request is: the smallest over it, then 1.5x ... 10x.
FACTORS = [0.0, 1.5, 2.0, 3.0, 10.0]
HTTP_PROTOCOLS = ["connect-proto", "connect-json", "grpc-web", "grpc"]


def _request(factor: float) -> pb.EvaluateRequest:
    """An Evaluate request of just over ``max(factor * LIMIT, LIMIT)`` bytes."""
    hand = pb.CardSet(cards=["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h"])
    per_hand = pb.EvaluateRequest(hands=[hand]).ByteSize()
    target = max(int(factor * LIMIT), LIMIT)
    request = pb.EvaluateRequest(hands=[hand] * (target // per_hand))
    while request.ByteSize() <= target:
        request.hands.append(hand)
    return request


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    launched = launch(
        tmp_path_factory.mktemp("size"),
        args=["--max-message-bytes", str(LIMIT), "--http-port", "0"],
    )
    launched.http_port = int(launched.wait_for_log("serving")["http_port"])  # type: ignore[attr-defined]
    try:
        yield launched
    finally:
        launched.stop()


def _post(port: int, content_type: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", PATH, body, {"content-type": content_type})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    except (BrokenPipeError, ConnectionResetError):  # refused before the body was sent
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _grpc_web_outcome(headers: dict[str, str], body: bytes) -> Outcome:
    """The status of a gRPC-Web answer: in its headers, or in its trailer frame."""
    trailers = {k.lower(): v for k, v in headers.items()}
    while body:
        flags, length = struct.unpack(">BI", body[:5])
        frame, body = body[5 : 5 + length], body[5 + length :]
        if flags & 0x80:
            for line in frame.decode().split("\r\n"):
                if ":" in line:
                    key, value = line.split(":", 1)
                    trailers[key.strip().lower()] = value.strip()
    raw = trailers["grpc-status-details-bin"]
    status = status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))
    return outcome_of(grpc.StatusCode(_code(int(trailers["grpc-status"]))).name, status)


def _code(number: int) -> tuple[int, str]:
    return next(c.value for c in grpc.StatusCode if c.value[0] == number)


def _over_http(port: int, protocol: str, request: pb.EvaluateRequest) -> Outcome:
    if protocol == "grpc":
        return _over_grpc(f"127.0.0.1:{port}", request)
    if protocol == "grpc-web":
        frame = request.SerializeToString()
        status, headers, body = _post(
            port, "application/grpc-web+proto", struct.pack(">BI", 0, len(frame)) + frame
        )
        assert status == 200, (status, body[:200])
        return _grpc_web_outcome(headers, body)
    if protocol == "connect-json":
        text = json.dumps(json_format.MessageToDict(request)).encode()
        status, _, body = _post(port, "application/json", text)
    else:
        status, _, body = _post(port, "application/proto", request.SerializeToString())
    assert status == 429, (status, body[:200])  # Connect's HTTP status of RESOURCE_EXHAUSTED
    return connect_outcome(body)


def _over_grpc(target: str, request: pb.EvaluateRequest) -> Outcome:
    options = [("grpc.max_send_message_length", -1)]
    with grpc.insecure_channel(target, options=options) as ch, pytest.raises(grpc.RpcError) as e:
        pb_grpc.StudEngineServiceStub(ch).Evaluate(request, timeout=30)
    error = e.value
    assert isinstance(error, grpc.Call)
    status = rpc_status.from_call(error)
    if status is None:  # gRPC core's cut-off: the code alone
        return Outcome(error.code().name, error.details() or "", "", "", {}, [], None, 0)
    return outcome_of(error.code().name, status)


def _check(got: Outcome) -> None:
    got.check_contract()
    assert (got.code, got.reason) == ("RESOURCE_EXHAUSTED", "MESSAGE_TOO_LARGE"), got
    assert got.metadata == {"limit": str(LIMIT), "method": "Evaluate"}, got
    assert not got.violations, got


@pytest.mark.parametrize("factor", FACTORS)
@pytest.mark.parametrize("protocol", HTTP_PROTOCOLS)
def test_the_http_port_refuses_an_oversized_request_one_way(
    server: LiveServer, protocol: str, factor: float
) -> None:
    _check(_over_http(server.http_port, protocol, _request(factor)))  # type: ignore[attr-defined]


@pytest.mark.parametrize("factor", FACTORS)
def test_the_grpc_port_refuses_an_oversized_request_one_way(
    server: LiveServer, factor: float
) -> None:
    got = _over_grpc(server.target, _request(factor))
    if factor < 2.0:  # within what the port reads to say why
        _check(got)
    else:  # gRPC core's own cut-off: the same code, no details
        assert got.code == "RESOURCE_EXHAUSTED", got


def test_the_server_serves_on_after_oversized_requests(server: LiveServer) -> None:
    small = pb.EvaluateRequest(hands=_request(0.0).hands[:10])
    with grpc.insecure_channel(server.target) as channel:
        answer = pb_grpc.StudEngineServiceStub(channel).Evaluate(small, timeout=30)
    assert len(answer.values) == 10
    assert server.health(SERVICE) == health_pb2.HealthCheckResponse.SERVING
    assert 'stud_rejections_total{reason="too_large"}' in server.metrics_text()

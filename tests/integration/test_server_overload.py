"""A live stud-server under heavy and hostile traffic (issue 11): health answers within the
probe's timeout under many expensive calls, expensive calls are bounded per worker and
capped in CPU time, a cancelled Equity stops its work, and stalled request bodies hold
no handler: they show in the in-flight gauge, are bounded per connection, per worker
and in time, while other calls and health go on."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from collections.abc import Callable
from concurrent import futures
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from prometheus_client.parser import text_string_to_metric_families
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.polling import poll_until
from support.refusals import outcome_of
from support.server_harness import LiveServer
from support.stalled_h2 import StalledClient
from test_api_http import connect_call, connect_outcome

Launch = Callable[..., LiveServer]
PROBE_TIMEOUT = 2.0  # the Kubernetes probe's
PROMPT = 5.0  # a generous deadline for a call that must not wait behind others
SERVING = health_pb2.HealthCheckResponse.SERVING
# the largest Equity a caller may ask: 8 players, 2,000,000 Monte Carlo samples
HEAVY = pb.EquityRequest(
    variant=pb.VARIANT_SEVEN_CARD_STUD,
    players=[
        pb.EquityPlayer(up_cards=[c]) for c in ("As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c")
    ],
    samples=2_000_000,
    method=pb.EQUITY_METHOD_MONTE_CARLO,
    seed=7,
)
SMALL_EVALUATE = pb.EvaluateRequest(hands=[pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"])])


def metric(server: LiveServer, name: str, **labels: str) -> float:
    """The sum of a metric's samples whose labels include ``labels`` (0 when none)."""
    total = 0.0
    for family in text_string_to_metric_families(server.metrics_text()):
        for sample in family.samples:
            if sample.name == name and labels.items() <= sample.labels.items():
                total += sample.value
    return total


def check_health(channel: grpc.Channel, timeout: float = PROBE_TIMEOUT) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return int(stub.Check(health_pb2.HealthCheckRequest(), timeout=timeout).status)


def test_health_answers_within_the_probe_timeout_under_sixteen_heavy_equity_calls(
    live_server: Launch,
) -> None:
    server = live_server()
    with server.channel() as channel, server.channel() as probe_channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        calls = [stub.Equity.future(HEAVY) for _ in range(16)]  # no deadline
        probes, peak = 0, 0.0
        while not all(call.done() for call in calls) or probes < 5:
            assert check_health(probe_channel) == SERVING  # raises if over 2 s
            assert stub.Evaluate(SMALL_EVALUATE, timeout=PROMPT).values
            peak = max(peak, metric(server, "grpc_server_in_flight", grpc_method="Equity"))
            probes += 1
            time.sleep(0.1)
        results = [call.result() for call in calls]
    assert all(r.samples == 2_000_000 and r.complete for r in results)
    # many were open at once while health was checked (all sixteen, unless the first
    # ones finished before the first scrape): more than the old server's eight threads
    assert peak > 8


def test_expensive_calls_are_bounded_per_worker(live_server: Launch) -> None:
    server = live_server(args=["--threads", "1", "--max-expensive-calls", "2"])
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        calls = [stub.Equity.future(HEAVY, timeout=120) for _ in range(6)]
        codes, details = [], []
        for call in calls:
            try:
                call.result()
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())  # type: ignore[attr-defined]
                details.append(error.details())  # type: ignore[attr-defined]
        # meanwhile the cheap calls were never refused
        assert stub.Evaluate(SMALL_EVALUATE, timeout=PROMPT).values
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) >= 1
    assert codes.count(grpc.StatusCode.OK) >= 2
    assert all("busy with 2 expensive calls" in d for d in details)
    assert metric(server, "stud_rejections_total", reason="overloaded") == len(details)


def test_both_ports_share_the_expensive_call_bound_and_refuse_with_server_busy(
    live_server: Launch,
) -> None:
    """The HTTP port's calls count against the same per-worker bound as the gRPC port's:
    with its two places held by gRPC Equity calls, one more Equity is refused at once over
    gRPC and over Connect alike: RESOURCE_EXHAUSTED with ErrorInfo reason SERVER_BUSY
    (the limit and the method in its metadata) and RetryInfo, counted as overloaded."""
    server = live_server(
        args=["--threads", "1", "--max-expensive-calls", "2", "--http-port", "0",
              "--equity-cpu-seconds", "30"]
    )  # fmt: skip
    http_port = int(server.wait_for_log("serving")["http_port"])
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        held = [stub.Equity.future(HEAVY) for _ in range(2)]  # one runs, one waits
        poll_until(
            lambda: (
                metric(server, "grpc_server_in_flight", grpc_method="Equity", stage="handling") >= 2
            ),
            "two Equity calls to be held",
        )
        with pytest.raises(grpc.RpcError) as caught:
            stub.Equity(HEAVY, timeout=PROMPT)
        status, body = connect_call(http_port, "Equity", HEAVY)
        assert stub.Evaluate(SMALL_EVALUATE, timeout=PROMPT).values  # cheap calls go on
        for call in held:
            call.cancel()
    error = caught.value
    assert isinstance(error, grpc.Call)
    over_grpc = outcome_of(error.code().name, rpc_status.from_call(error))
    assert status == 429  # Connect's HTTP status for resource_exhausted
    assert connect_outcome(body) == over_grpc
    assert (over_grpc.code, over_grpc.reason, over_grpc.domain) == (
        "RESOURCE_EXHAUSTED",
        "SERVER_BUSY",
        "stud.v1",
    )
    over_grpc.check_contract()  # RetryInfo too
    assert over_grpc.metadata == {"limit": "2", "method": "Equity"}
    assert "busy with 2 expensive calls" in over_grpc.message and not over_grpc.violations
    assert metric(server, "stud_rejections_total", reason="overloaded") == 2


def test_equity_cpu_time_is_capped_without_a_deadline(live_server: Launch) -> None:
    server = live_server(args=["--equity-cpu-seconds", "0.05", "--http-port", "0"])
    with server.channel() as channel:
        result = pb_grpc.StudEngineServiceStub(channel).Equity(HEAVY)  # no deadline
    assert not result.complete and 0 < result.samples < HEAVY.samples
    assert abs(sum(p.equity for p in result.players) - 1.0) < 1e-9
    # the HTTP port's Equity has the same cap
    status, body = connect_call(int(server.wait_for_log("serving")["http_port"]), "Equity", HEAVY)
    assert status == 200
    over_http = pb.EquityResponse.FromString(body)
    assert not over_http.complete and 0 < over_http.samples < HEAVY.samples


def test_a_cancelled_equity_stops_its_work(live_server: Launch) -> None:
    server = live_server()
    with server.channel() as channel:
        call = pb_grpc.StudEngineServiceStub(channel).Equity.future(HEAVY)
        poll_until(
            lambda: (
                metric(server, "grpc_server_in_flight", grpc_method="Equity", stage="handling") >= 1
            ),
            "the Equity call to be handled",
        )
        call.cancel()
        poll_until(
            lambda: metric(server, "stud_work_cancelled_total", method="Equity") >= 1,
            "the server to count the cancelled work",
        )

    def stopped() -> list[dict[str, Any]]:
        return [e for e in server.logs() if e.get("event") == "work cancelled"]

    poll_until(lambda: bool(stopped()), "the 'work cancelled' log line")
    [line] = stopped()
    assert line["work"] == "Equity" and line["deals"] < line["planned"]
    assert line["planned"] == HEAVY.samples


def _stalled(server: LiveServer, streams: int) -> StalledClient:
    client = StalledClient("127.0.0.1", server.port)
    client.open(streams)
    return client


def test_stalled_request_bodies_hold_no_handler(live_server: Launch) -> None:
    """Twelve streams announcing 1,000 bytes and sending 10 (more than the eight handler
    threads the server had): calls and health go on, and the stalled calls show in the
    gauge as receiving."""
    server = live_server()
    client = _stalled(server, 12)
    try:
        client.sync()
        with server.channel() as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            for _ in range(20):
                assert check_health(channel, PROMPT) == SERVING
                assert stub.Evaluate(SMALL_EVALUATE, timeout=PROMPT).values
        poll_until(
            lambda: metric(server, "grpc_server_in_flight", stage="receiving") == 12,
            "the stalled calls to show in grpc_server_in_flight",
        )
        assert not client.statuses  # still open: nothing answered them
    finally:
        client.close()
    poll_until(
        lambda: metric(server, "grpc_server_in_flight", stage="receiving") == 0,
        "the stalled calls to end with their connection",
    )


def test_stalled_requests_are_answered_after_the_receive_timeout(live_server: Launch) -> None:
    server = live_server(args=["--receive-timeout-seconds", "1"])
    client = _stalled(server, 8)
    try:
        client.read(until=lambda: len(client.statuses) == 8, limit=60)
        deadline_exceeded = str(grpc.StatusCode.DEADLINE_EXCEEDED.value[0])
        assert client.statuses == dict.fromkeys(client.stream_ids, deadline_exceeded)
    finally:
        client.close()
    assert metric(server, "stud_rejections_total", reason="receive_timeout") == 8
    poll_until(  # each call's bookkeeping ends just after its status is sent
        lambda: metric(server, "grpc_server_in_flight", stage="receiving") == 0,
        "the timed-out calls to leave grpc_server_in_flight",
    )


def test_streams_per_connection_are_bounded(live_server: Launch) -> None:
    server = live_server(args=["--max-streams-per-connection", "4"])
    client = StalledClient("127.0.0.1", server.port)
    try:
        assert client.conn.remote_settings.max_concurrent_streams == 4
    finally:
        client.close()


def test_calls_over_the_limit_are_refused_at_once_but_health_is_not(live_server: Launch) -> None:
    server = live_server(args=["--max-concurrent-rpcs", "4"])
    client = _stalled(server, 8)
    try:
        client.read(until=lambda: len(client.statuses) == 4, limit=60)
        exhausted = str(grpc.StatusCode.RESOURCE_EXHAUSTED.value[0])
        assert list(client.statuses.values()) == [exhausted] * 4
        with server.channel() as channel:
            assert check_health(channel, PROMPT) == SERVING  # exempt from the limit
            with pytest.raises(grpc.RpcError) as caught:
                pb_grpc.StudEngineServiceStub(channel).Evaluate(SMALL_EVALUATE, timeout=PROMPT)
            error = caught.value
            assert isinstance(error, grpc.Call)
            busy = outcome_of(error.code().name, rpc_status.from_call(error))
            busy.check_contract()  # typed, with RetryInfo, as the handlers' refusals
            assert busy.reason == "SERVER_BUSY"
            assert busy.metadata == {"limit": "4", "method": "Evaluate"}
    finally:
        client.close()
    with server.channel() as channel:  # the stalled calls gone, calls are served again
        stub = pb_grpc.StudEngineServiceStub(channel)
        poll_until(lambda: _served(stub), "calls to be served again")


def _served(stub: Any) -> bool:
    try:
        return bool(stub.Evaluate(SMALL_EVALUATE, timeout=PROMPT).values)
    except grpc.RpcError:
        return False


def test_many_callers_at_once_all_get_answers(live_server: Launch) -> None:
    """A mix of cheap and expensive calls from many threads: every call is answered."""
    server = live_server()
    small = pb.EquityRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        players=[pb.EquityPlayer(up_cards=["As"]), pb.EquityPlayer(up_cards=["Kd"])],
        samples=20_000,
    )
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        barrier = threading.Barrier(8)

        def caller(index: int) -> int:
            barrier.wait()
            done = 0
            for _ in range(10):
                if index % 2:
                    done += bool(stub.Equity(small, timeout=60).samples)
                else:
                    done += bool(stub.Evaluate(SMALL_EVALUATE, timeout=60).values)
            return done

        with futures.ThreadPoolExecutor(8) as pool:
            assert sum(pool.map(caller, range(8))) == 80


def _stalled_http(port: int, count: int) -> list[socket.socket]:
    """``count`` Connect calls (HTTP/1.1, JSON) that announce a 1,000-byte body and send
    10 bytes of it."""
    head = (f"POST /stud.v1.StudEngineService/Evaluate HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")  # fmt: skip
    opened = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sock.sendall(head.encode() + b'{"hands": ')
        opened.append(sock)
    return opened


def _http_answer(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of one HTTP/1.1 response (chunked or with a length)."""
    data = b""
    while not _complete(data):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        chunks, rest = [], body
        while rest:
            size, _, rest = rest.partition(b"\r\n")
            chunks.append(rest[: int(size, 16)])
            rest = rest[int(size, 16) + 2 :]
        body = b"".join(chunks)
    return int(head.split()[1]), body


def _complete(data: bytes) -> bool:
    head, found, body = data.partition(b"\r\n\r\n")
    if not found:
        return False
    if b"transfer-encoding: chunked" in head.lower():
        return body.endswith(b"0\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                   if line.startswith(b"content-length:")), 0)  # fmt: skip
    return len(body) >= length


def test_stalled_http_bodies_are_counted_and_answered_after_the_receive_timeout(
    live_server: Launch,
) -> None:
    """The HTTP port bounds a stalled body in time, as the gRPC port does: the calls show
    in grpc_server_in_flight as receiving, then each is answered DEADLINE_EXCEEDED with
    ErrorInfo RECEIVE_TIMEOUT in its own protocol (Connect: 504 and the JSON error), and
    counted; health answers meanwhile."""
    server = live_server(args=["--http-port", "0", "--receive-timeout-seconds", "5"])
    port = int(server.wait_for_log("serving")["http_port"])
    stalled = _stalled_http(port, 8)
    try:
        poll_until(
            lambda: (
                metric(server, "grpc_server_in_flight", stage="receiving") == 8
                or metric(server, "stud_rejections_total", reason="receive_timeout") > 0
            ),
            "the stalled bodies to show as receiving (or be answered)",
        )
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=PROMPT) as ok:
            assert ok.status == 200
        answers = [_http_answer(sock) for sock in stalled]
    finally:
        for sock in stalled:
            sock.close()
    for status, body in answers:
        assert status == 504, body  # Connect's HTTP status for deadline_exceeded
        got = connect_outcome(body)
        got.check_contract()
        assert (got.code, got.reason) == ("DEADLINE_EXCEEDED", "RECEIVE_TIMEOUT")
        assert got.metadata == {"limit": "5", "method": "Evaluate"}
    assert metric(server, "stud_rejections_total", reason="receive_timeout") == 8
    assert metric(server, "grpc_server_handled_total", grpc_code="DEADLINE_EXCEEDED") == 8
    poll_until(
        lambda: metric(server, "grpc_server_in_flight", stage="receiving") == 0,
        "the timed-out calls to leave grpc_server_in_flight",
    )

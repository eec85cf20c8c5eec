"""Graceful shutdown of a real stud-server: SIGTERM with calls in flight and more coming
(none of our clients sees CANCELLED: the calls the server had not started are refused
UNAVAILABLE, typed, and retried as proto/service_config.json says), with workers, with
an open health Watch, and with a stdout nobody reads."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.devserver import server_command, serving_port
from support.api_helpers import call_code
from support.paths import REPO
from support.polling import poll_until
from support.refusals import outcome_of
from support.server_harness import LiveServer, free_port, new_key_spec, server_env
from test_api_http import connect_call, connect_outcome

Launch = Callable[..., LiveServer]
IN_FLIGHT = 20
BATCH = 10_000  # the handler's largest Evaluate batch: real, slow work
LOADERS = 4  # threads calling on while the server drains
SERVICE_CONFIG = (REPO / "proto" / "service_config.json").read_text()


def _started(server: LiveServer, method: str) -> int:
    pattern = rf'grpc_server_started_total{{[^}}]*grpc_method="{method}"[^}}]*}} (\S+)'
    return int(sum(float(v) for v in re.findall(pattern, server.metrics_text())))


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_lets_calls_in_flight_finish(live_server: Launch, sig: signal.Signals) -> None:
    server = live_server(args=["--threads", str(IN_FLIGHT + 4), "--grace-seconds", "120"])
    hands = [pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"])] * BATCH
    request = pb.EvaluateRequest(hands=hands)

    statuses: list[int] = []
    watch_channel = server.channel()
    watch = health_pb2_grpc.HealthStub(watch_channel).Watch(
        health_pb2.HealthCheckRequest(service="stud.v1.StudEngineService")
    )

    def follow_health() -> None:
        try:
            for reply in watch:
                statuses.append(reply.status)
                if reply.status == health_pb2.HealthCheckResponse.NOT_SERVING:
                    watch.cancel()  # seen: let the server finish without waiting for us
        except grpc.RpcError:
            pass

    results: list[tuple[grpc.StatusCode, int]] = []
    channel = server.channel()
    stub = pb_grpc.StudEngineServiceStub(channel)

    def evaluate() -> None:
        try:
            results.append((grpc.StatusCode.OK, len(stub.Evaluate(request, timeout=300).values)))
        except grpc.RpcError as error:
            results.append((error.code(), 0))

    # our clients' channel: the service config's retries of UNAVAILABLE
    load_channel = server.channel(**{"grpc.service_config": SERVICE_CONFIG})
    load_stub = pb_grpc.StudEngineServiceStub(load_channel)
    small = pb.EvaluateRequest(hands=hands[:1])
    load: list[grpc.StatusCode] = []
    refusals = []

    def keep_calling() -> None:
        """Small calls back to back until the server refuses one: with no other server
        to go to, a client then stops (as one that follows health would, sooner)."""
        while True:
            try:
                load_stub.Evaluate(small, timeout=60)
                load.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                load.append(error.code())
                status = rpc_status.from_call(error)
                if status is not None:
                    refusals.append(outcome_of(error.code().name, status))
                return

    follower = threading.Thread(target=follow_health)
    follower.start()
    callers = [threading.Thread(target=evaluate) for _ in range(IN_FLIGHT)]
    loaders = [threading.Thread(target=keep_calling) for _ in range(LOADERS)]
    for caller in callers:
        caller.start()
    # every call has reached its handler before the signal, and the load runs
    poll_until(lambda: _started(server, "Evaluate") >= IN_FLIGHT, "the calls to start", 120, 0.005)
    for loader in loaders:
        loader.start()
    poll_until(lambda: len(load) >= LOADERS, "the load to be served", 120, 0.005)
    server.signal(sig)
    for thread in (*callers, *loaders):
        thread.join(300)
    follower.join(60)
    code = server.wait(120)
    channel.close()
    watch_channel.close()
    load_channel.close()

    # no client of ours saw CANCELLED: the calls the draining server had not started
    # were refused UNAVAILABLE with ErrorInfo SERVER_DRAINING and RetryInfo (retried by
    # the service config until it gave up), or found the server gone
    assert set(load) == {grpc.StatusCode.OK, grpc.StatusCode.UNAVAILABLE}, load
    assert load.count(grpc.StatusCode.UNAVAILABLE) == LOADERS  # one each: then it stopped
    for refusal in refusals:  # a last attempt refused by the drain (else: the port closed)
        refusal.check_contract()
        assert refusal.reason == "SERVER_DRAINING" and refusal.metadata == {"method": "Evaluate"}
    assert refusals  # the drain refused calls itself, typed, before the port closed
    # the server cancelled none of the engine's calls (the health watch is the one call
    # cancelled, by its own client once it has seen NOT_SERVING)
    logged = [e for e in server.logs() if e.get("event") == "rpc"]
    engine_calls = [e for e in logged if e["method"].startswith("/stud.v1.")]
    assert engine_calls and not any(e["code"] == "CANCELLED" for e in engine_calls), logged
    assert results == [(grpc.StatusCode.OK, BATCH)] * IN_FLIGHT
    assert code == 0
    assert statuses[0] == health_pb2.HealthCheckResponse.SERVING
    assert health_pb2.HealthCheckResponse.NOT_SERVING in statuses
    # the calls were really in flight: some finished after the signal arrived
    events = [e.get("event") for e in server.logs()]
    after_signal = events[events.index("signal received") :]
    assert after_signal.count("rpc") >= 1
    assert events[-1] == "stopped"


def test_workers_stop_cleanly_and_refuse_new_calls_after(live_server: Launch) -> None:
    server = live_server(workers=2)
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        evaluate = pb.EvaluateRequest(hands=[pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"])])
        assert stub.Evaluate(evaluate, timeout=30).values[0].category
        assert server.stop() == 0
        assert call_code(lambda: stub.Evaluate(evaluate, timeout=5)) == (
            grpc.StatusCode.UNAVAILABLE
        )
    events = [e.get("event") for e in server.logs()]
    assert events.count("worker stopped") == 2
    assert events[-1] == "stopped"


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


def test_workers_exit_when_the_supervisor_is_killed(live_server: Launch) -> None:
    server = live_server(workers=2)

    def serving_workers() -> set[int]:
        return {e["pid"] for e in server.logs() if e.get("event") == "worker serving"}

    # health answers once one worker serves; the other's log line may still be on its way
    poll_until(
        lambda: len(serving_workers()) == 2, "both workers to log 'worker serving'", 120, 0.005
    )
    workers = serving_workers()
    assert server.proc.pid not in workers
    server.proc.kill()  # SIGKILL: no chance to forward anything
    server.wait(60)
    poll_until(
        lambda: all(_gone(pid) for pid in workers), "the orphaned workers to exit", 120, 0.005
    )
    server.wait(60)  # read what they printed to the end
    assert sum(e.get("event") == "worker stopped" for e in server.logs()) == 2
    # nobody was left to delete the metrics directory: the test does
    serving = next(e for e in server.logs() if e.get("event") == "serving")
    shutil.rmtree(serving["metrics_dir"], ignore_errors=True)


def test_an_open_health_watch_does_not_hold_the_drain(live_server: Launch) -> None:
    """A Watch its client never closes is told NOT_SERVING and ended by the server, so the
    drain does not wait out the (here very long) grace period for it (on base, the server
    waited the whole grace)."""
    server = live_server(args=["--grace-seconds", "600"])
    statuses: list[int] = []
    ended: list[str] = []
    channel = server.channel()
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())

    def follow() -> None:
        try:
            statuses.extend(reply.status for reply in watch)
            ended.append("ended by the server")
        except grpc.RpcError as error:
            ended.append(f"error {error.code()}")  # type: ignore[attr-defined]

    follower = threading.Thread(target=follow)
    follower.start()
    poll_until(lambda: bool(statuses), "the first health status", 120, 0.005)
    server.signal(signal.SIGTERM)
    assert server.wait(120) == 0  # far sooner than the 600 s grace
    follower.join(30)
    channel.close()
    # the server ends the watch after sending NOT_SERVING; on a busy machine the process
    # may exit before its last frames leave, and the client sees the connection go instead
    serving, not_serving = (
        health_pb2.HealthCheckResponse.SERVING,
        health_pb2.HealthCheckResponse.NOT_SERVING,
    )
    assert statuses in ([serving, not_serving], [serving])
    gone = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
    assert ended == ["ended by the server"] or ended in ([f"error {c}"] for c in gone)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stalled_stdout_neither_grows_the_log_queue_nor_hangs_shutdown(
    tmp_path: Path, workers: int
) -> None:
    """stdout is a pipe nobody reads once the server serves: log lines beyond the queue's
    bound are dropped and counted, and SIGTERM still ends the server within its grace."""
    key_file = tmp_path / "keys"
    key_file.write_text(new_key_spec() + "\n")
    metrics_port = free_port()
    command = [*server_command(), "--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]
    command += ["--key-file", str(key_file), "--metrics-port", str(metrics_port)]
    command += ["--log-queue-lines", "50", "--grace-seconds", "5"]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=server_env()
    )
    try:
        assert proc.stdout is not None
        port = None
        while port is None:  # read up to the serving line, then never again
            line = proc.stdout.readline()
            assert line, "stud-server exited before serving"
            port = serving_port(line.decode())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            request = pb.EvaluateRequest(hands=[pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"])])

            def dropped() -> float:
                for _ in range(50):  # 50 more log lines each time
                    stub.Evaluate(request, timeout=30)
                url = f"http://127.0.0.1:{metrics_port}/metrics"
                with urllib.request.urlopen(url, timeout=10) as response:
                    text = response.read().decode()
                found = re.search(r"^stud_log_lines_dropped_total (\S+)$", text, re.M)
                return float(found.group(1)) if found else 0.0

            poll_until(lambda: dropped() > 0, "log lines to be dropped and counted", 300, 0.005)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0  # the grace (5 s), the exit drain's bound and slack
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_draining_http_port_refuses_new_calls_typed(live_server: Launch) -> None:
    """The HTTP port drains as the gRPC port does: once shutdown starts, a Connect call is
    refused 503 UNAVAILABLE with ErrorInfo SERVER_DRAINING and RetryInfo, never cut off."""
    server = live_server(args=["--http-port", "0", "--grace-seconds", "30"])
    port = int(server.wait_for_log("serving")["http_port"])
    request = pb.EvaluateRequest(hands=[pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"])])
    assert connect_call(port, "Evaluate", request)[0] == 200
    server.signal(signal.SIGTERM)

    def healthz() -> int:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as ok:
                return int(ok.status)
        except urllib.error.HTTPError as error:
            return int(error.code)

    poll_until(lambda: healthz() == 503, "/healthz to say NOT_SERVING", 120, 0.005)
    status, body = connect_call(port, "Evaluate", request)
    while status == 200:  # the gate closes just after /healthz turns
        status, body = connect_call(port, "Evaluate", request)
    assert status == 503, body  # Connect's HTTP status for unavailable
    refusal = connect_outcome(body)
    refusal.check_contract()
    assert refusal.reason == "SERVER_DRAINING" and refusal.retry_delay == 0.1
    assert server.wait(120) == 0

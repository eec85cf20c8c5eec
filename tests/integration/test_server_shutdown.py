"""Graceful shutdown of a real stud-server: SIGTERM with calls in flight, and with workers."""

from __future__ import annotations

import re
import shutil
import signal
import threading
import time
from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.api_helpers import call_code
from support.server_harness import LiveServer

Launch = Callable[..., LiveServer]
IN_FLIGHT = 20
BATCH = 10_000  # the handler's largest Evaluate batch: real, slow work


def _started(server: LiveServer, method: str) -> int:
    pattern = rf'grpc_server_started_total{{[^}}]*grpc_method="{method}"[^}}]*}} (\S+)'
    return int(sum(float(v) for v in re.findall(pattern, server.metrics_text())))


def _wait_until(condition: Callable[[], bool], what: str, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.005)


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

    follower = threading.Thread(target=follow_health)
    follower.start()
    callers = [threading.Thread(target=evaluate) for _ in range(IN_FLIGHT)]
    for caller in callers:
        caller.start()
    # every call has reached its handler before the signal
    _wait_until(lambda: _started(server, "Evaluate") >= IN_FLIGHT, "the calls to start")
    server.signal(sig)
    for caller in callers:
        caller.join(300)
    follower.join(60)
    code = server.wait(120)
    channel.close()
    watch_channel.close()

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
    _wait_until(lambda: len(serving_workers()) == 2, "both workers to log 'worker serving'")
    workers = serving_workers()
    assert server.proc.pid not in workers
    server.proc.kill()  # SIGKILL: no chance to forward anything
    server.wait(60)
    _wait_until(lambda: all(_gone(pid) for pid in workers), "the orphaned workers to exit")
    server.wait(60)  # read what they printed to the end
    assert sum(e.get("event") == "worker stopped" for e in server.logs()) == 2
    # nobody was left to delete the metrics directory: the test does
    serving = next(e for e in server.logs() if e.get("event") == "serving")
    shutil.rmtree(serving["metrics_dir"], ignore_errors=True)

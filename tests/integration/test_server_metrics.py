"""Metrics of a real stud-server with several workers: the parent's /metrics adds up every
worker's calls (prometheus_client multiprocess mode), also across a worker's death."""

from __future__ import annotations

import os
import random
import signal
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.api_helpers import random_start
from support.server_harness import LiveServer

Launch = Callable[..., LiveServer]
SERVICE = "stud.v1.StudEngineService"


def _samples(server: LiveServer, name: str) -> list[tuple[dict[str, str], float]]:
    out = []
    for family in text_string_to_metric_families(server.metrics_text()):
        for sample in family.samples:
            if sample.name == name:
                out.append((sample.labels, sample.value))
    return out


def _by_method(server: LiveServer, name: str) -> Counter[str]:
    totals: Counter[str] = Counter()
    for labels, value in _samples(server, name):
        if labels.get("grpc_service") == SERVICE:
            totals[labels["grpc_method"]] += int(value)
    return totals


def _calls(server: LiveServer, connections: int, rng: random.Random) -> Counter[str]:
    """Calls over separate connections (so the kernel spreads them over the workers)."""
    made: Counter[str] = Counter()
    evaluate = pb.EvaluateRequest(hands=[pb.CardSet(cards=["2c", "2d", "7h", "9s", "Kd"])])
    for i in range(connections):
        with server.channel() as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            stub.StartHand(random_start(rng), timeout=30)
            made["StartHand"] += 1
            for _ in range(i % 3):
                stub.Evaluate(evaluate, timeout=30)
                made["Evaluate"] += 1
    return made


def _wait_for(server: LiveServer, event: str, count: int) -> None:
    """Until the server has logged ``event`` ``count`` times (woken by each new line)."""
    server.wait_until(
        lambda: sum(e.get("event") == event for e in server.logs()) >= count,
        f"{count} x {event!r}",
        timeout=120,
    )


def test_two_workers_metrics_add_up(live_server: Launch) -> None:
    server = live_server(workers=2)
    rng = random.Random(7)
    made = _calls(server, 24, rng)

    assert _by_method(server, "grpc_server_handled_total") == made
    assert _by_method(server, "grpc_server_started_total") == made
    assert _by_method(server, "grpc_server_handling_seconds_count") == made
    codes = {labels["grpc_code"] for labels, _ in _samples(server, "grpc_server_handled_total")}
    assert codes == {"OK"}
    hands = sum(v for _, v in _samples(server, "stud_hands_started_total"))
    assert hands == made["StartHand"]

    def game_calls() -> list[dict[str, object]]:
        return [e for e in server.logs() if e.get("event") == "rpc" and SERVICE in e["method"]]

    # log lines are written in batches: wait for every call's line before counting them
    server.wait_until(lambda: len(game_calls()) == sum(made.values()), "a log line per call")
    served_by = Counter(e["pid"] for e in game_calls())
    assert len(served_by) == 2, f"one worker took every connection: {served_by}"

    # a worker that dies is restarted, and the calls it served still count
    victim = next(iter(served_by))
    os.kill(victim, signal.SIGKILL)
    _wait_for(server, "worker died, restarting", 1)
    _wait_for(server, "worker serving", 3)
    assert _by_method(server, "grpc_server_handled_total") == made
    made += _calls(server, 6, rng)
    assert _by_method(server, "grpc_server_handled_total") == made

    metrics_dir = Path(next(e for e in server.logs() if e.get("event") == "serving")["metrics_dir"])
    assert metrics_dir.is_dir()
    assert server.stop() == 0
    assert not metrics_dir.exists()

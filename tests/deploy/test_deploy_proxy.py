"""Debian's HAProxy (deploy/haproxy/haproxy.cfg, as Compose and `make cluster` run it) in
front of three real stud-server replicas on 127.0.0.1:

- one address takes gRPC and Connect calls, spread within 20% across the replicas;
- a replica killed (SIGKILL) under bounded load costs no call the service config would
  not retry: the Python client (stud-load) retries UNAVAILABLE by
  proto/service_config.json, the proxy a connection that failed before the request was
  sent; stud-load counts every other failure;
- a draining replica (SIGTERM: health NOT_SERVING, /healthz 503) is taken out of rotation
  and then receives no new call (counted by its own call log lines) until it exits.

Bounded by call counts and LOAD_SECONDS; no wall-clock assertion.
"""

from __future__ import annotations

import datetime
import http.client
import json
import os
import signal
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.deploy_support import localcluster, venv_tool
from support.paths import require_tool
from support.polling import poll_until

HINT = "run `make proxy-deps` (as root: apt-get install haproxy)"
LOAD_SECONDS = 6.0
STRIKE_AFTER_CALLS = 200  # the victim's answered calls before the strike (mid-load)
CALLS = 150  # per protocol, for the spread
SERVICE = "stud.v1.StudEngineService"
EVALUATE = f"/{SERVICE}/Evaluate"


def _proxy_module() -> Any:
    require_tool("haproxy", HINT)
    localcluster()  # puts deploy/local on sys.path
    import proxy

    return proxy


@pytest.fixture
def cluster() -> Iterator[tuple[list[Any], Any, Any]]:
    proxy = _proxy_module()
    lc = localcluster()
    key = lc.new_key_spec()
    with (
        lc.replicas(3, key, extra_args=["--http-port", "0"]) as replicas,
        proxy.haproxy(replicas) as running,
    ):
        yield replicas, running, proxy


def _game_calls(replica: Any) -> list[dict[str, Any]]:
    """The replica's call log lines (one JSON line per call) of the game service (not
    health checks)."""
    return [e for e in replica.events()
            if e.get("event") == "rpc" and SERVICE in str(e.get("method"))]  # fmt: skip


def test_the_shipped_config_is_valid() -> None:
    """deploy/haproxy/haproxy.cfg as Compose's proxy runs it passes ``haproxy -c``."""
    proxy = _proxy_module()
    env = {**os.environ, "STUD_PROXY_BIND": ":50051"}
    check = [require_tool("haproxy", HINT), "-c", "-f", str(proxy.CONFIG)]
    out = subprocess.run(check, env=env, capture_output=True, text=True, timeout=30, check=False)
    assert out.returncode == 0, out.stdout + out.stderr


def _started(line: dict[str, Any]) -> datetime.datetime:
    """When a logged call began: its line's timestamp (its end) less its duration."""
    end = datetime.datetime.fromisoformat(line["timestamp"])
    return end - datetime.timedelta(milliseconds=float(line["duration_ms"]))


def _calls(replica: Any) -> Counter[str]:
    """The replica's game calls by code."""
    return Counter(e["code"] for e in _game_calls(replica))


def _request() -> pb.EvaluateRequest:
    return pb.EvaluateRequest(hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])])


def test_one_address_takes_grpc_and_connect_spread_across_the_replicas(
    cluster: tuple[list[Any], Any, Any],
) -> None:
    replicas, running, _ = cluster
    with grpc.insecure_channel(running.target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for _ in range(CALLS):
            assert stub.Evaluate(_request(), timeout=10).values[0].category == "Straight Flush"
    conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
    body = json.dumps({"hands": [{"cards": ["As", "Ks", "Qs", "Js", "Ts"]}]})
    for _ in range(CALLS):  # Connect, HTTP/1.1 keep-alive, as curl or PHP would call
        conn.request("POST", EVALUATE, body, {"content-type": "application/json"})
        response = conn.getresponse()
        assert response.status == 200 and b"values" in response.read()
    conn.close()
    poll_until(
        lambda: sum(_calls(r)["OK"] for r in replicas) == 2 * CALLS,
        "every call in a replica's log",
        10,
    )
    counts = [_calls(r)["OK"] for r in replicas]
    mean = 2 * CALLS / len(replicas)
    assert all(abs(c - mean) <= 0.2 * mean for c in counts), counts
    protocols = Counter(e.get("protocol", "grpc") for r in replicas for e in _game_calls(r))
    assert protocols == {"grpc": CALLS, "http": CALLS}, protocols


class _ConnectCaller(threading.Thread):
    """Connect (JSON over HTTP/1.1) calls through the proxy, one after another, until
    stopped, with no retry of its own; counts the HTTP statuses."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.statuses: Counter[int] = Counter()
        self.halt = threading.Event()

    def run(self) -> None:
        body = json.dumps({"hands": [{"cards": ["As", "Ks", "Qs", "Js", "Ts"]}]})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        while not self.halt.is_set():
            conn.request("POST", EVALUATE, body, {"content-type": "application/json"})
            response = conn.getresponse()
            response.read()
            self.statuses[response.status] += 1
        conn.close()

    def stop(self) -> Counter[int]:
        self.halt.set()
        self.join(30)
        assert not self.is_alive()
        return self.statuses


def _stud_load(target: str) -> subprocess.Popen[str]:
    stud_load = venv_tool("stud-load", "pip install -e . (the clients' load generator)")
    cmd = [stud_load, "--target", target, "--duration", str(LOAD_SECONDS)]
    cmd += ["--tables", "8", "--json", "--quiet"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _report(load: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = load.communicate(timeout=LOAD_SECONDS + 120)
    assert load.returncode in (0, 1), err  # 1: the report lists errors
    report: dict[str, Any] = json.loads(out)
    print(json.dumps(report))
    return report


def _load_and_strike(running: Any, victim: Any, sig: int) -> subprocess.Popen[str]:
    """stud-load through the proxy, and ``sig`` to the victim once it serves the load."""
    load = _stud_load(running.target)
    poll_until(lambda: _calls(victim)["OK"] >= STRIKE_AFTER_CALLS,
               f"the victim to answer {STRIKE_AFTER_CALLS} calls", LOAD_SECONDS)  # fmt: skip
    victim.signal(sig)
    return load


def _no_call_lost(report: dict[str, Any]) -> None:
    """stud-load counts every failure the service config does not retry under errors."""
    assert report["hands"] > 20
    assert report["errors"] == {}, report["errors"]
    assert report["unfinished"] == 0
    assert report["hands_checked"] == report["hands_conserved"] == report["hands"]


@pytest.mark.slow
def test_a_replica_killed_under_load_costs_no_call(cluster: tuple[list[Any], Any, Any]) -> None:
    replicas, running, proxy = cluster
    victim = replicas[1]
    load = _load_and_strike(running, victim, signal.SIGKILL)
    victim.proc.wait(30)
    _no_call_lost(_report(load))
    states = proxy.server_states(running.stats)  # its health checks saw it go
    assert all(states[(b, victim.name)].startswith("DOWN") for b in proxy.BACKEND_PORTS), states
    assert victim.proc.returncode == -signal.SIGKILL
    survivors = [_calls(r)["OK"] for r in (replicas[0], replicas[2])]
    assert min(survivors) > 0, survivors


@pytest.mark.slow
def test_a_draining_replica_gets_no_new_call(cluster: tuple[list[Any], Any, Any]) -> None:
    replicas, running, proxy = cluster
    victim = replicas[1]
    connect = _ConnectCaller(running.port)  # a client that retries nothing (curl, PHP)
    connect.start()
    load = _load_and_strike(running, victim, signal.SIGTERM)

    def out_of_rotation() -> bool:
        states = proxy.server_states(running.stats)
        return all(states.get((b, victim.name)) not in ("UP", None) for b in proxy.BACKEND_PORTS)

    poll_until(out_of_rotation, "the proxy to take the draining replica out", 10)
    left = datetime.datetime.now(datetime.UTC)
    victim.proc.wait(30)  # it drains: at least drain.QUIET seconds without a refusal
    _no_call_lost(_report(load))
    statuses = connect.stop()
    # its calls that met the draining replica were refused 503 unstarted, and the proxy
    # sent them on (retry-on 503): none failed
    refused = [line for line in running.log.read_text().splitlines() if " 200 " not in line]
    assert set(statuses) == {200} and statuses[200] > 0, (statuses, refused[-20:])
    assert victim.proc.returncode == 0
    late = [e for e in _game_calls(victim) if _started(e) > left]
    assert not late, f"{len(late)} calls reached it after it left rotation: {late[:3]}"
    codes = _calls(victim)
    assert codes["OK"] > 0 and set(codes) <= {"OK", "UNAVAILABLE"}, codes

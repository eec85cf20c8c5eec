"""Run stud-server replicas and a real Prometheus on loopback, for `make cluster`,
`make soak` and the deploy tests.

Everything binds 127.0.0.1 on free ports, lives in a temporary directory, and is
stopped by the context managers here (SIGTERM, then SIGKILL after a bound).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]
PROM_DIR = REPO / "deploy" / "prometheus"
BIN = Path(sys.executable).parent
SERVICE = "stud.v1.StudEngineService"


def tool(name: str) -> str | None:
    """A tool beside this interpreter, on PATH, or in the repository's .tools/bin."""
    for candidate in (BIN / name, REPO / ".tools" / "bin" / name):
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def new_key_spec() -> str:
    """A fresh sealing key, kept in memory only (never written to the repository)."""
    from studengine.state.keys import new_key_spec as make

    return make("local")


def wait_serving(port: int, timeout: float = 30.0) -> None:
    """Until the standard gRPC health check says SERVING for the engine's service."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError as exc:
                last = exc
            time.sleep(0.1)
    raise TimeoutError(f"127.0.0.1:{port} not SERVING after {timeout}s ({last})")


@dataclass
class Replica:
    """One stud-server process (a supervisor and its workers when workers > 1)."""

    name: str
    proc: subprocess.Popen[str]
    metrics_port: int
    port: int = 0
    lines: list[str] = field(default_factory=list)
    http_port: int = 0  # with --http-port: Connect, gRPC-Web and gRPC

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_target(self) -> str:
        return f"127.0.0.1:{self.metrics_port}"

    def events(self) -> list[dict[str, Any]]:
        found = []
        for line in list(self.lines):
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
        return found

    def worker_pids(self) -> list[int]:
        """The worker processes (children) of the server, or the server itself."""
        children: list[int] = []
        for task in Path(f"/proc/{self.proc.pid}/task").glob("*"):
            with contextlib.suppress(OSError):
                children += [int(p) for p in (task / "children").read_text().split()]
        # spawn's resource tracker is a child too: keep only the engine's workers
        workers = [p for p in children if "resource_tracker" not in _cmdline(p)]
        return sorted(workers) or [self.proc.pid]

    def signal(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, sig)

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM (graceful drain), then SIGKILL if it has not exited in ``timeout``."""
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def start_replica(
    name: str,
    key_spec: str,
    *,
    workers: int = 1,
    extra_args: Sequence[str] = (),
    log_dir: Path | None = None,
    timeout: float = 60.0,
) -> Replica:
    """Start stud-server on 127.0.0.1 (gRPC port 0: the kernel picks) and wait for SERVING."""
    from studclients.devserver import ServerNotStarted, ServerProcess, server_env

    metrics_port = free_port()
    args = ["--host", "127.0.0.1", "--port", "0", "--metrics-port", str(metrics_port)]
    args += ["--workers", str(workers), *extra_args]
    log = (log_dir / f"{name}.log").open("w") if log_dir else None

    def write(line: str) -> None:
        if log is not None:
            log.write(line + "\n")
            log.flush()

    # the key in the environment, never on the command line; each replica its own metrics dir
    server = ServerProcess(
        args,
        env=server_env({"STUD_SEALING_KEYS": key_spec}),
        on_line=write,
        stderr_to_stdout=True,
    )
    replica = Replica(name, server.proc, metrics_port, lines=server.lines)
    deadline = time.monotonic() + timeout
    try:
        replica.port = server.wait_serving(timeout)
    except ServerNotStarted as error:
        raise RuntimeError(f"{name}: {error}") from None
    except TimeoutError:
        replica.stop()
        raise TimeoutError(f"{name} did not report its port in {timeout}s") from None
    wait_serving(replica.port, max(1.0, deadline - time.monotonic()))
    serving = [e for e in replica.events() if e.get("event") in ("serving", "worker serving")]
    replica.http_port = int(serving[0].get("http_port") or 0) if serving else 0
    return replica


@contextlib.contextmanager
def replicas(
    count: int,
    key_spec: str,
    *,
    workers: int = 1,
    extra_args: Sequence[str] = (),
    log_dir: Path | None = None,
) -> Iterator[list[Replica]]:
    """``count`` replicas sharing one sealing key; all stopped on exit."""
    started: list[Replica] = []
    try:
        for i in range(count):
            started.append(
                start_replica(
                    f"replica-{i}",
                    key_spec,
                    workers=workers,
                    extra_args=extra_args,
                    log_dir=log_dir,
                )
            )
        yield started
    finally:
        for replica in started:
            replica.stop()


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as reply:
            return bool(reply.status == 200)
    except OSError:
        return False


@dataclass
class Prometheus:
    """A real Prometheus server on 127.0.0.1 scraping the given metrics targets."""

    proc: subprocess.Popen[bytes]
    port: int
    workdir: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, **params: str) -> Any:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{query}", timeout=5) as reply:
            body = json.loads(reply.read())
        if body.get("status") != "success":
            raise RuntimeError(f"Prometheus answered {body}")
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.api("/api/v1/query", query=expr)["result"]
        return result

    def scalar(self, expr: str) -> float | None:
        """The single value of an instant query (None when it has no sample)."""
        result = self.query(expr)
        return float(result[0]["value"][1]) if result else None

    def targets_up(self) -> int:
        active = self.api("/api/v1/targets")["activeTargets"]
        return sum(1 for t in active if t.get("health") == "up")


@contextlib.contextmanager
def prometheus(
    metrics_targets: Sequence[str], *, scrape_interval: str | None = None, timeout: float = 60.0
) -> Iterator[Prometheus]:
    """Prometheus with deploy/prometheus/prometheus.yml and alerts.yml (copied into a temp
    dir beside a file_sd target file for ``metrics_targets``); stopped and removed on exit."""
    binary = tool("prometheus")
    if binary is None:
        raise FileNotFoundError("prometheus is not installed: run `make tools`")
    workdir = Path(tempfile.mkdtemp(prefix="stud-prometheus-"))
    try:
        config = yaml.safe_load((PROM_DIR / "prometheus.yml").read_text())
        if scrape_interval:
            config["global"]["scrape_interval"] = scrape_interval
            config["global"]["evaluation_interval"] = scrape_interval
            config["global"]["scrape_timeout"] = scrape_interval
            for job in config["scrape_configs"]:
                for sd in job.get("file_sd_configs", []):
                    sd["refresh_interval"] = scrape_interval
        (workdir / "prometheus.yml").write_text(yaml.safe_dump(config))
        shutil.copy(PROM_DIR / "alerts.yml", workdir / "alerts.yml")
        (workdir / "targets").mkdir()
        groups = [
            {"targets": [t], "labels": {"replica": str(i)}} for i, t in enumerate(metrics_targets)
        ]
        (workdir / "targets" / "stud-engine.json").write_text(json.dumps(groups))
        port = free_port()
        log = (workdir / "prometheus.log").open("wb")
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={workdir / 'prometheus.yml'}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--web.enable-lifecycle",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        server = Prometheus(proc, port, workdir)
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"prometheus exited with {proc.returncode}: "
                        + (workdir / "prometheus.log").read_text()[-2000:]
                    )
                if _ready(f"{server.url}/-/ready"):
                    break
                if time.monotonic() > deadline:
                    raise TimeoutError(f"prometheus not ready in {timeout}s")
                time.sleep(0.2)
            yield server
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
            log.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass
class CallCount:
    """Game calls made by :func:`play_hands`, by outcome."""

    calls: int = 0
    ok: int = 0
    refused: int = 0
    hands_finished: int = 0


def play_hands(target: str, hands: int, *, bad_states: int = 0, seven: bool = True) -> CallCount:
    """Play ``hands`` real hands against ``target`` (each player folds when folding is
    legal, else checks or takes the first legal move) and send ``bad_states`` Act calls
    with a state that cannot open. Counts every StartHand/Act call made."""
    import grpc
    from stud_api.stud.v1 import stud_engine_pb2 as pb
    from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

    count = CallCount()
    variant = pb.VARIANT_SEVEN_CARD_STUD if seven else pb.VARIANT_FIVE_CARD_STUD
    table = pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for h in range(hands):
            players = [pb.Player(id=f"p{h}-{i}", stack=1000) for i in range(3)]
            count.calls += 1
            update = stub.StartHand(
                pb.StartHandRequest(variant=variant, table=table, players=players, button=0),
                timeout=10,
            ).hand
            count.ok += 1
            for _ in range(200):
                if update.over:
                    count.hands_finished += 1
                    break
                kinds = [a.type for a in update.legal_actions]
                choice = next(
                    (k for k in (pb.ACTION_TYPE_FOLD, pb.ACTION_TYPE_CHECK) if k in kinds),
                    kinds[0],
                )
                count.calls += 1
                update = stub.Act(
                    pb.ActRequest(state=update.state, seat=update.to_act, action=choice),
                    timeout=10,
                ).hand
                count.ok += 1
        for _ in range(bad_states):
            count.calls += 1
            try:
                stub.Act(
                    pb.ActRequest(
                        state=b"\x01not a sealed state", seat=0, action=pb.ACTION_TYPE_FOLD
                    ),
                    timeout=10,
                )
            except grpc.RpcError as exc:
                if exc.code() != grpc.StatusCode.INVALID_ARGUMENT:
                    raise
                count.refused += 1
    return count

"""Real ``stud-server`` subprocesses for tests: free 127.0.0.1 ports, a temp key file,
JSON log capture, waiting for health, stopping at teardown.

Use through the ``live_server`` fixture in ``conftest.py``::

    server = live_server(workers=2, allow_test_decks=True)
    stub = StudEngineServiceStub(server.channel())
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

STARTUP_SECONDS = 60.0
SERVER_CMD = [sys.executable, "-m", "studengine.server"]


def free_port() -> int:
    """A port free on 127.0.0.1 right now (for the metrics endpoint: 0 there means off)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def new_key_spec(kid: str = "test-key") -> str:
    from studengine.state.keys import new_key_spec as make

    return make(kid)


class LiveServer:
    """A running ``stud-server`` process and what it printed (stdout: JSON log lines)."""

    def __init__(self, args: Sequence[str], env: dict[str, str]) -> None:
        self.args = list(args)
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,  # a Ctrl-C in the test runner does not reach it
        )
        self.lines: list[str] = []
        self.stderr: list[str] = []
        self._changed = threading.Condition()
        self._readers = [
            threading.Thread(target=self._read, args=(self.proc.stdout, self.lines), daemon=True),
            threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()
        self.port = 0
        self.metrics_port: int | None = None

    def _read(self, stream: Any, into: list[str]) -> None:
        for line in stream:
            with self._changed:
                into.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    # ---- what it said -----------------------------------------------------------------
    def logs(self) -> list[dict[str, Any]]:
        """Every JSON log line so far (non-JSON lines are left out)."""
        out = []
        for line in list(self.lines):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out

    def output(self) -> str:
        return "\n".join([*self.lines, *self.stderr])

    def wait_for_log(self, event: str, timeout: float = STARTUP_SECONDS) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                for entry in self.logs():
                    if entry.get("event") == event:
                        return entry
                if self.proc.poll() is not None and not any(r.is_alive() for r in self._readers):
                    raise RuntimeError(
                        f"stud-server exited {self.proc.returncode}:\n{self.output()}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no {event!r} log line from stud-server:\n{self.output()}")
                self._changed.wait(min(left, 0.5))

    # ---- talking to it ----------------------------------------------------------------
    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def channel(self, **options: Any) -> grpc.Channel:
        """A new channel (a new connection: with several workers, each may land elsewhere)."""
        opts = [("grpc.use_local_subchannel_pool", 1), *options.items()]
        return grpc.insecure_channel(self.target, options=opts)

    def health(self, service: str = "") -> int:
        with self.channel() as ch:
            stub = health_pb2_grpc.HealthStub(ch)
            return int(
                stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10).status
            )

    def metrics_text(self) -> str:
        assert self.metrics_port, "started without a metrics port"
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            return str(response.read().decode())

    # ---- stopping it --------------------------------------------------------------------
    def signal(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        for reader in self._readers:
            reader.join(5)
        return code

    def stop(self) -> int:
        """SIGTERM and wait; kill the whole session if it hangs."""
        self.signal(signal.SIGTERM)
        try:
            return self.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.wait(10)


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def launch(
    tmp: Path,
    *,
    workers: int = 1,
    allow_test_decks: bool = False,
    key_specs: Sequence[str] | None = None,
    metrics: bool = True,
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    wait: bool = True,
) -> LiveServer:
    """Start ``stud-server`` on 127.0.0.1 (a port it picks); with ``wait``, return once it
    serves and answers health checks. ``key_specs=[]`` starts it with no key at all."""
    cmd = [*SERVER_CMD, "--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]
    if key_specs is None:
        key_specs = [new_key_spec()]
    if key_specs:
        key_file = tmp / f"keys-{time.monotonic_ns()}.txt"
        key_file.write_text("\n".join(key_specs) + "\n")
        key_file.chmod(0o600)
        cmd += ["--key-file", str(key_file)]
    metrics_port = free_port() if metrics else 0
    cmd += ["--metrics-port", str(metrics_port)]
    if allow_test_decks:
        cmd.append("--allow-test-decks")
    cmd += list(args)
    server = LiveServer(cmd, server_env(env))
    server.metrics_port = metrics_port or None
    if wait:
        try:
            server.port = int(server.wait_for_log("serving")["port"])
            if server.health() != health_pb2.HealthCheckResponse.SERVING:
                raise RuntimeError(f"stud-server is not SERVING:\n{server.output()}")
        except BaseException:
            server.stop()
            raise
    return server

"""Real ``stud-server`` subprocesses for tests: free 127.0.0.1 ports, a temp key file, the
JSON log lines, waiting for health, stopping at teardown. The process itself and its log
reading are ``studclients.devserver.ServerProcess``, the one shared launcher.

Use through the ``live_server`` fixture in ``conftest.py``::

    server = live_server(workers=2, allow_test_decks=True)
    stub = StudEngineServiceStub(server.channel())
"""

from __future__ import annotations

import socket
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from studclients.devserver import STARTUP_SECONDS, ServerProcess, server_env

__all__ = ["STARTUP_SECONDS", "LiveServer", "free_port", "launch", "new_key_spec", "server_env"]


def free_port() -> int:
    """A port free on 127.0.0.1 right now (for the metrics endpoint: 0 there means off)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def new_key_spec(kid: str = "test-key") -> str:
    from studengine.state.keys import new_key_spec as make

    return make(kid)


class LiveServer(ServerProcess):
    """A running ``stud-server`` process, what it printed, and ways to talk to it."""

    metrics_port: int | None = None

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
    cmd = ["--host", "127.0.0.1", "--port", "0", "--workers", str(workers)]
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
    server = LiveServer(cmd, env=server_env(env))
    server.metrics_port = metrics_port or None
    if wait:
        try:
            server.wait_serving()
            if server.health() != health_pb2.HealthCheckResponse.SERVING:
                raise RuntimeError(f"stud-server is not SERVING:\n{server.output()}")
        except BaseException:
            server.stop()
            raise
    return server

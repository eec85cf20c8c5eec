"""A serving process: the gRPC server with the API servicer, health and reflection, the
interceptor and the limits; ``run_single`` serves in this process, ``worker_main`` is the
entry of each process the supervisor spawns.

gRPC is imported inside the functions: the supervisor process hands ``worker_main`` to
its spawned workers and never starts gRPC itself.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import structlog

from studengine.server.config import ConfigError, ServerConfig
from studengine.server.logging import configure_logging
from studengine.server.signals import stop_event, wait_for
from studengine.server.supervisor import EXIT_CONFIG, Keys, prepare_multiprocess_dir, serve_metrics

if TYPE_CHECKING:
    import grpc
    from grpc_health.v1.health import HealthServicer

    from studengine.server.http import HttpListener
    from studengine.state.sealing import KeyRing

SERVICE_NAME = "stud.v1.StudEngineService"
_log = structlog.get_logger("studengine.server")


def server_options(config: ServerConfig, reuse_port: bool) -> list[tuple[str, int]]:
    options = [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.so_reuseport", int(reuse_port)),
    ]
    if config.max_connection_age_seconds > 0:
        options += [
            ("grpc.max_connection_age_ms", int(config.max_connection_age_seconds * 1000)),
            ("grpc.max_connection_age_grace_ms", int(config.grace_seconds * 1000)),
        ]
    return options


def build_grpc_server(config: ServerConfig, reuse_port: bool = False) -> grpc.Server:
    """A sync gRPC server with the configured limits and the metrics/logging interceptor.

    Sync ``grpc.server`` with a small thread pool measured cheaper in CPU per call than
    ``grpc.aio`` here (``make bench-rpc`` prints both for the echo service).
    """
    import grpc

    from studengine.server.interceptors import ObservingInterceptor

    return grpc.server(
        futures.ThreadPoolExecutor(max_workers=config.threads, thread_name_prefix="rpc"),
        interceptors=[ObservingInterceptor()],
        options=server_options(config, reuse_port),
        maximum_concurrent_rpcs=config.max_concurrent_rpcs,
    )


def add_health_and_reflection(server: grpc.Server, services: Sequence[str]) -> HealthServicer:
    """Standard health checking (SERVING for "" and each service) and server reflection."""
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection

    checker = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    for name in ("", *services):
        checker.set(name, health_pb2.HealthCheckResponse.SERVING)
    names = (*services, health.SERVICE_NAME, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(names, server)
    return checker


def bind(server: grpc.Server, config: ServerConfig) -> int:
    """Bind the port (TLS when configured); the port bound (useful with ``--port 0``)."""
    from studengine.server.tls import grpc_credentials, tls_files

    files = tls_files(config)
    try:
        if files is None:
            port = server.add_insecure_port(config.address)
        else:
            port = server.add_secure_port(config.address, grpc_credentials(files))
    except RuntimeError as exc:
        raise ConfigError(f"cannot listen on {config.address}: {exc}") from None
    if port == 0:
        raise ConfigError(f"cannot listen on {config.address}")
    return port


@dataclass
class RunningServer:
    server: grpc.Server
    health: HealthServicer
    port: int
    http: HttpListener | None = None  # the HTTP port, on its own thread

    @property
    def http_port(self) -> int | None:
        return self.http.port if self.http else None

    def shutdown(self, grace: float) -> None:
        """NOT_SERVING, refuse new calls, let calls in flight finish within ``grace`` (both
        ports drain together)."""
        self.health.enter_graceful_shutdown()
        stopped = self.server.stop(grace)
        if self.http is not None:
            self.http.stop(grace)
        stopped.wait()


def start_server(config: ServerConfig, keyring: KeyRing, reuse_port: bool = False) -> RunningServer:
    """Start the Stud Engine service in this process (also what tests use in-process)."""
    from studengine.api.servicer import StudEngineServicer, add_servicer
    from studengine.server import metrics

    metrics.record_build_info()
    server = build_grpc_server(config, reuse_port)
    add_servicer(server, StudEngineServicer(keyring, config.allow_test_decks, metrics))
    checker = add_health_and_reflection(server, [SERVICE_NAME])
    port = bind(server, config)
    http = None
    if config.http_port is not None:
        from studengine.server.http import HttpListener
        from studengine.server.tls import tls_files

        http = HttpListener(config, keyring, tls_files(config), reuse_port)
    server.start()
    if http is not None:
        http.start()
    return RunningServer(server, checker, port, http)


def run_single(config: ServerConfig, keys: Keys) -> int:
    from studengine.state.sealing import KeyRing

    prepare_multiprocess_dir(make=False)  # one process: multiprocess mode only if asked
    stop = stop_event()
    http = serve_metrics(config)
    running = start_server(config, KeyRing(keys))
    _log.info(
        "serving", host=config.host, port=running.port, http_port=running.http_port, workers=1
    )
    wait_for(stop)
    _log.info("shutting down", grace_seconds=config.grace_seconds)
    running.shutdown(config.grace_seconds)
    if http is not None:
        http.shutdown()
    _log.info("stopped")
    return 0


def worker_main(config: ServerConfig, keys: Keys, index: int, ready: Any, parent: int) -> None:
    """A worker process: serve on the shared port until SIGTERM, then drain and exit 0."""
    from studengine.state.sealing import KeyRing

    configure_logging(config.log_level, worker=index)
    _exit_with_parent(parent)
    stop = stop_event()
    try:
        running = start_server(config, KeyRing(keys), reuse_port=True)
    except ConfigError as exc:
        _log.error("worker cannot start", error=str(exc))
        sys.exit(EXIT_CONFIG)
    _log.info("worker serving", port=running.port)
    ready.put(index)
    wait_for(stop)
    running.shutdown(config.grace_seconds)
    _log.info("worker stopped")


def _exit_with_parent(parent: int) -> None:
    """Linux: SIGTERM this worker if the supervisor dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the supervisor died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)

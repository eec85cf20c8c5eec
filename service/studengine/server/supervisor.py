"""stud-server: start-up, worker processes and graceful shutdown.

One worker (the default) serves in this process. With ``--workers N`` this process is a
supervisor: it starts N worker processes that bind the same port with SO_REUSEPORT (the
kernel spreads connections over them), serves their summed metrics (prometheus_client
multiprocess mode), restarts a worker that dies, and forwards SIGTERM/SIGINT to them.

Shutdown (SIGTERM or SIGINT): health goes NOT_SERVING, the server stops taking calls, calls
in flight finish (at most ``--grace-seconds``), then the process exits 0.

Nothing here imports gRPC or the metrics at module level: the supervisor never starts
gRPC (spawned workers do), and PROMETHEUS_MULTIPROC_DIR must be set before any metric exists.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import queue
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent import futures
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

import structlog

from studengine.server.config import ConfigError, ServerConfig, parse_config
from studengine.server.logging import configure_logging

if TYPE_CHECKING:
    import grpc
    from grpc_health.v1.health import HealthServicer

    from studengine.state.sealing import KeyRing

SERVICE_NAME = "stud.v1.StudEngineService"
EXIT_CONFIG = 2
_log = structlog.get_logger("studengine.server")

Keys = list[tuple[str, bytes]]


# ---- configuration that needs checking before anything starts ---------------------------


def load_keys(config: ServerConfig) -> tuple[Keys, bool]:
    """The sealing keys (first seals) and whether they are an ephemeral dev key."""
    from studengine.state.keys import (
        KeySpecError,
        keys_from_env_value,
        keys_from_file,
        new_key_spec,
        parse_key_spec,
    )

    try:
        if config.key_file:
            return keys_from_file(config.key_file), False
        if config.sealing_keys:
            return keys_from_env_value(config.sealing_keys), False
    except OSError as exc:
        raise ConfigError(f"cannot read --key-file {config.key_file}: {exc.strerror}") from None
    except KeySpecError as exc:
        where = "--key-file" if config.key_file else "STUD_SEALING_KEYS"
        raise ConfigError(f"bad sealing key in {where}: {exc}") from None
    if config.dev:
        return [parse_key_spec(new_key_spec(f"dev-{secrets.token_hex(4)}"))], True
    raise ConfigError(
        "no sealing key configured: pass --key-file PATH or set STUD_SEALING_KEYS "
        "(make a key with `stud-keygen`), or use --dev for an ephemeral development key"
    )


# ---- one gRPC server ----------------------------------------------------------------------


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
    """Bind the insecure port; the port bound (useful with ``--port 0``)."""
    try:
        port = server.add_insecure_port(config.address)
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

    def shutdown(self, grace: float) -> None:
        """NOT_SERVING, refuse new calls, let calls in flight finish within ``grace``."""
        self.health.enter_graceful_shutdown()
        self.server.stop(grace).wait()


def start_server(config: ServerConfig, keyring: KeyRing, reuse_port: bool = False) -> RunningServer:
    """Start the Stud Engine service in this process (also what tests use in-process)."""
    from studengine.api.servicer import StudEngineServicer, add_servicer

    server = build_grpc_server(config, reuse_port)
    add_servicer(server, StudEngineServicer(keyring, config.allow_test_decks))
    checker = add_health_and_reflection(server, [SERVICE_NAME])
    port = bind(server, config)
    server.start()
    return RunningServer(server, checker, port)


# ---- signals ------------------------------------------------------------------------------


def _stop_event() -> threading.Event:
    """Set by the first SIGTERM or SIGINT; later ones are ignored (shutdown is under way)."""
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        if not stop.is_set():
            _log.info("signal received", signal=signal.Signals(signum).name)
            stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    return stop


def _wait(stop: threading.Event) -> None:
    while not stop.wait(0.5):
        pass


# ---- single process -----------------------------------------------------------------------


def _serve_metrics(config: ServerConfig) -> Any:
    if not config.metrics_port:
        return None
    from studengine.server import metrics

    try:
        http = metrics.serve(config.host, config.metrics_port)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve metrics on {config.host}:{config.metrics_port}: {exc.strerror}"
        ) from None
    _log.info("metrics serving", metrics_port=http.server_port)
    return http


def run_single(config: ServerConfig, keys: Keys) -> int:
    from studengine.state.sealing import KeyRing

    _prepare_multiprocess_dir(make=False)  # one process: multiprocess mode only if asked
    stop = _stop_event()
    http = _serve_metrics(config)
    running = start_server(config, KeyRing(keys))
    _log.info("serving", host=config.host, port=running.port, workers=1)
    _wait(stop)
    _log.info("shutting down", grace_seconds=config.grace_seconds)
    running.shutdown(config.grace_seconds)
    if http is not None:
        http.shutdown()
    _log.info("stopped")
    return 0


# ---- several workers ----------------------------------------------------------------------


def _worker_main(config: ServerConfig, keys: Keys, index: int, ready: Any, parent: int) -> None:
    """A worker process: serve on the shared port until SIGTERM, then drain and exit 0."""
    from studengine.state.sealing import KeyRing

    configure_logging(config.log_level, worker=index)
    _exit_with_parent(parent)
    stop = _stop_event()
    try:
        running = start_server(config, KeyRing(keys), reuse_port=True)
    except ConfigError as exc:
        _log.error("worker cannot start", error=str(exc))
        sys.exit(EXIT_CONFIG)
    _log.info("worker serving", port=running.port)
    ready.put(index)
    _wait(stop)
    running.shutdown(config.grace_seconds)
    _log.info("worker stopped")


def _exit_with_parent(parent: int) -> None:
    """Linux: SIGTERM this worker if the supervisor dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the supervisor died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


def _reserve_port(config: ServerConfig) -> tuple[socket.socket, int]:
    """Bind (without listening) the port the workers will share, so ``--port 0`` gives one
    port for all, and the port stays ours while workers restart."""
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((config.host, config.port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {config.address}: {exc.strerror}") from None
    return sock, sock.getsockname()[1]


def _prepare_multiprocess_dir(make: bool) -> str | None:
    """Empty the operator's PROMETHEUS_MULTIPROC_DIR of a previous run's files; without
    one and with ``make``, point it at a new temporary directory, returned (to delete at
    exit). Must run before the metrics module is first imported."""
    chosen = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if chosen:
        os.makedirs(chosen, exist_ok=True)
        for name in os.listdir(chosen):
            if name.endswith(".db"):
                os.remove(os.path.join(chosen, name))
        return None
    if not make:
        return None
    made = tempfile.mkdtemp(prefix="stud-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = made
    return made


class Supervisor:
    """Starts the workers, restarts a dead one, and stops them all on a signal."""

    def __init__(self, config: ServerConfig, keys: Keys) -> None:
        self.config = config
        self.keys = keys
        self.ctx = multiprocessing.get_context("spawn")
        self.ready = self.ctx.Queue()
        self.workers: dict[int, BaseProcess] = {}

    def spawn(self, index: int) -> None:
        proc = self.ctx.Process(
            target=_worker_main,
            args=(self.config, self.keys, index, self.ready, os.getpid()),
            name=f"stud-worker-{index}",
        )
        proc.start()
        self.workers[index] = proc

    def start_all(self, stop: threading.Event) -> bool:
        """Start every worker and wait until each serves; False if one failed or a signal came."""
        for index in range(self.config.workers):
            self.spawn(index)
        waiting = set(self.workers)
        while waiting and not stop.is_set():
            with contextlib.suppress(queue.Empty):
                waiting.discard(self.ready.get(timeout=0.2))
            if any(self.workers[i].exitcode is not None for i in waiting):
                return False
        return not waiting

    def watch(self, stop: threading.Event) -> None:
        """Until a signal: restart any worker that exited (after a short pause)."""
        from studengine.server import metrics

        while not stop.wait(0.5):
            for index, proc in list(self.workers.items()):
                if proc.exitcode is None:
                    continue
                _log.error("worker died, restarting", worker=index, exit_code=proc.exitcode)
                metrics.mark_process_dead(proc.pid or 0)
                if stop.wait(1.0):
                    return
                self.spawn(index)

    def stop_all(self) -> int:
        """SIGTERM every worker, wait for them to drain; 0 if all exited cleanly."""
        from studengine.server import metrics

        for proc in self.workers.values():
            if proc.exitcode is None and proc.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.config.grace_seconds + 5.0
        worst = 0
        for index, proc in self.workers.items():
            proc.join(max(0.0, deadline - time.monotonic()))
            if proc.exitcode is None:
                _log.error("worker did not stop in time, killing it", worker=index)
                proc.kill()
                proc.join()
            if proc.exitcode != 0:
                _log.error("worker exited badly", worker=index, exit_code=proc.exitcode)
                worst = 1
            metrics.mark_process_dead(proc.pid or 0)
        return worst


def run_workers(config: ServerConfig, keys: Keys) -> int:
    reserved, port = _reserve_port(config)  # first: a busy port leaves nothing behind
    made_dir = _prepare_multiprocess_dir(make=True)
    config = replace(config, port=port)
    stop = _stop_event()
    http = None
    supervisor = Supervisor(config, keys)
    try:
        http = _serve_metrics(config)
        if not supervisor.start_all(stop):
            if stop.is_set():
                return supervisor.stop_all()
            supervisor.stop_all()
            _log.error("a worker failed to start")
            return EXIT_CONFIG
        _log.info(
            "serving",
            host=config.host,
            port=port,
            workers=config.workers,
            metrics_dir=os.environ["PROMETHEUS_MULTIPROC_DIR"],
        )
        supervisor.watch(stop)
        _log.info("shutting down", grace_seconds=config.grace_seconds)
        code = supervisor.stop_all()
        _log.info("stopped", exit_code=code)
        return code
    finally:
        if http is not None:
            http.shutdown()
        reserved.close()
        if made_dir:
            shutil.rmtree(made_dir, ignore_errors=True)


# ---- entry point --------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    config = parse_config(argv)
    configure_logging(config.log_level, worker="main" if config.workers > 1 else 0)
    try:
        keys, ephemeral = load_keys(config)
        if ephemeral:
            _log.warning(
                "dev mode: using an ephemeral sealing key; states die with this process "
                "and no other server can open them. Never use --dev in production."
            )
        code = run_single(config, keys) if config.workers == 1 else run_workers(config, keys)
    except ConfigError as exc:
        print(f"stud-server: error: {exc}", file=sys.stderr)
        _log.error("cannot start", error=str(exc))
        code = EXIT_CONFIG
    sys.exit(code)


if __name__ == "__main__":
    main()

"""The supervisor of ``stud-server --workers N``: it starts N worker processes that bind
the same port with SO_REUSEPORT (the kernel spreads connections over them), serves their
summed metrics (prometheus_client multiprocess mode), restarts a worker that dies, and
forwards SIGTERM/SIGINT to them; then they drain and it exits.

This module imports no gRPC (a lint contract keeps it so): the worker's entry point is
handed in (``worker.worker_main``), and the spawned processes start gRPC themselves. The
metrics module is imported only after PROMETHEUS_MULTIPROC_DIR is set.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.process import BaseProcess
from typing import Any

import structlog

from studengine.server.config import ConfigError, ServerConfig
from studengine.server.logging import count_dropped_lines
from studengine.server.signals import stop_event

EXIT_CONFIG = 2
_log = structlog.get_logger("studengine.server")

Keys = list[tuple[str, bytes]]
#: A worker process's entry: (config, keys, index, ready queue, supervisor pid).
WorkerMain = Callable[[ServerConfig, Keys, int, Any, int], None]


def serve_metrics(config: ServerConfig) -> Any:
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


def _reserve_port(config: ServerConfig, port: int | None = None) -> tuple[socket.socket, int]:
    """Bind (without listening) a port the workers will share (the gRPC port, or ``port``:
    the HTTP port), so port 0 gives one port for all, and it stays ours while workers
    restart."""
    port = config.port if port is None else port
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((config.host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {config.host}:{port}: {exc.strerror}") from None
    return sock, sock.getsockname()[1]


def prepare_multiprocess_dir(make: bool) -> str | None:
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

    def __init__(self, config: ServerConfig, keys: Keys, worker_main: WorkerMain) -> None:
        self.config = config
        self.keys = keys
        self.worker_main = worker_main
        self.ctx = multiprocessing.get_context("spawn")
        self.ready = self.ctx.Queue()
        self.workers: dict[int, BaseProcess] = {}

    def spawn(self, index: int) -> None:
        proc = self.ctx.Process(
            target=self.worker_main,
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


def run_workers(config: ServerConfig, keys: Keys, worker_main: WorkerMain) -> int:
    reserved, port = _reserve_port(config)  # first: a busy port leaves nothing behind
    http_reserved = None
    if config.http_port is not None:
        try:
            http_reserved, http_port = _reserve_port(config, config.http_port)
        except ConfigError:
            reserved.close()
            raise
        config = replace(config, http_port=http_port)
    made_dir = prepare_multiprocess_dir(make=True)
    config = replace(config, port=port)
    stop = stop_event()
    http = None
    supervisor = Supervisor(config, keys, worker_main)
    try:
        http = serve_metrics(config)
        from studengine.server import metrics

        count_dropped_lines(metrics.log_lines_dropped)
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
            http_port=config.http_port,
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
        if http_reserved is not None:
            http_reserved.close()
        if made_dir:
            shutil.rmtree(made_dir, ignore_errors=True)

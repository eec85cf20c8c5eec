"""A serving process: one event loop running the worker's listeners (the gRPC port,
``grpc_listener.GrpcListener``, and with ``--http-port`` the HTTP port,
``http.HttpListener``: hypercorn as a task of the same loop) over one set of API calls
(``api.calls.ApiCalls``), one health service and one pool for the expensive calls.
``run_single`` serves in this process, ``worker_main`` is the entry of each process the
supervisor spawns, ``BackgroundServer`` serves on a thread of this process (tests, tools).

The listeners start together and drain together: on SIGTERM health turns NOT_SERVING on
both ports (open watches are told and end, ``/healthz`` answers 503) and the worker's
gate closes (``drain.Gate``): both ports refuse the calls they have not started with
UNAVAILABLE (SERVER_DRAINING, RetryInfo) while the started ones finish; then every
listener stops (GOAWAY) and lets what is left finish within what remains of
``--grace-seconds``; what is still running then is cancelled.

gRPC is imported inside the functions: the supervisor process hands ``worker_main`` to
its spawned workers and never starts gRPC itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from studengine.server.config import ConfigError, ServerConfig
from studengine.server.logging import configure_logging, count_dropped_lines
from studengine.server.signals import async_stop_event
from studengine.server.supervisor import EXIT_CONFIG, Keys, prepare_multiprocess_dir, serve_metrics

if TYPE_CHECKING:
    from studengine.api.expensive import ExpensiveCalls
    from studengine.server.drain import Gate
    from studengine.server.grpc_listener import Health
    from studengine.server.http import HttpListener
    from studengine.state.sealing import KeyRing

_log = structlog.get_logger("studengine.server")


class Listener(Protocol):
    """Something a worker serves on: started and drained with the others."""

    port: int

    async def start(self) -> None: ...

    def open_calls(self) -> int: ...

    async def stop(self, grace: float) -> None: ...


@dataclass
class Serving:
    """A worker's running listeners and what they share."""

    listeners: list[Listener]
    health: Health
    expensive: ExpensiveCalls
    gate: Gate
    http: HttpListener | None = None  # the HTTP port's listener, also in ``listeners``

    @property
    def port(self) -> int:
        """The gRPC port (the first listener's)."""
        return self.listeners[0].port

    @property
    def http_port(self) -> int | None:
        return self.http.port if self.http is not None else None

    async def drain(self, grace: float) -> None:
        """NOT_SERVING (on both ports), the gate closed until the started calls are done,
        then every listener stops with the grace left, together."""
        if self.http is not None:
            self.http.app.serving = False
        await self.health.shut_down()
        left = await self.gate.settle(
            grace, lambda: sum(listener.open_calls() for listener in self.listeners)
        )
        await asyncio.gather(*(listener.stop(left) for listener in self.listeners))
        self.expensive.shutdown()


async def start_serving(
    config: ServerConfig, keyring: KeyRing, reuse_port: bool = False
) -> Serving:
    """Start every listener of a worker on the running loop: the gRPC port, and the HTTP
    port with ``--http-port``, over one ``ApiCalls`` (one expensive-call pool), TLS on both
    when configured."""
    from studengine.api.calls import ApiCalls
    from studengine.api.expensive import ExpensiveCalls
    from studengine.api.handlers import Handlers
    from studengine.api.servicer import SERVICE_NAME, StudEngineServicer
    from studengine.server import metrics, tracing
    from studengine.server.drain import Gate
    from studengine.server.grpc_listener import GrpcListener, Health
    from studengine.server.tls import tls_files

    metrics.record_build_info()
    tls = tls_files(config)
    expensive = ExpensiveCalls(config.threads, config.max_expensive_calls)
    handlers = Handlers(
        keyring,
        config.allow_test_decks,
        observer=metrics,
        equity_cpu_seconds=config.equity_cpu_seconds,
        deal_ticket_seconds=config.deal_ticket_seconds,
        tracer=tracing.setup(),  # in each worker: its exporter's thread is its own
    )
    calls = ApiCalls(handlers, expensive)
    servicer = StudEngineServicer(calls)
    health = Health([SERVICE_NAME])
    gate = Gate()
    listeners: list[Listener] = [GrpcListener(config, servicer, health, reuse_port, tls, gate)]
    http = None
    started: list[Listener] = []
    try:
        if config.http_port is not None:
            from studengine.server.http import HttpListener

            http = HttpListener(config, calls, tls, reuse_port, gate)
            listeners.append(http)
        for listener in listeners:
            await listener.start()
            started.append(listener)
    except BaseException:
        await asyncio.gather(*(listener.stop(0) for listener in started))
        if http is not None and http not in started:
            http.sock.close()
        expensive.shutdown()
        raise
    return Serving(listeners, health, expensive, gate, http)


async def _serve(
    config: ServerConfig, keyring: KeyRing, reuse_port: bool, announce: Callable[[Serving], None]
) -> None:
    stop = async_stop_event()
    serving = await start_serving(config, keyring, reuse_port)
    announce(serving)
    await stop.wait()
    _log.info("shutting down", grace_seconds=config.grace_seconds)
    await serving.drain(config.grace_seconds)
    from studengine.server import tracing

    tracing.shutdown()  # the spans still queued go out


def _count_dropped_log_lines() -> None:
    from studengine.server import metrics

    count_dropped_lines(metrics.log_lines_dropped)


def run_single(config: ServerConfig, keys: Keys) -> int:
    from studengine.state.sealing import KeyRing

    prepare_multiprocess_dir(make=False)  # one process: multiprocess mode only if asked
    http = serve_metrics(config)
    _count_dropped_log_lines()

    def announce(serving: Serving) -> None:
        _log.info(
            "serving", host=config.host, port=serving.port, http_port=serving.http_port, workers=1
        )

    try:
        asyncio.run(_serve(config, KeyRing(keys), False, announce))
    finally:
        if http is not None:
            http.shutdown()
    _log.info("stopped")
    return 0


def worker_main(config: ServerConfig, keys: Keys, index: int, ready: Any, parent: int) -> None:
    """A worker process: serve on the shared port until SIGTERM, then drain and exit 0."""
    from studengine.state.sealing import KeyRing

    configure_logging(config.log_level, queue_lines=config.log_queue_lines, worker=index)
    _exit_with_parent(parent)
    _count_dropped_log_lines()

    def announce(serving: Serving) -> None:
        _log.info("worker serving", port=serving.port, http_port=serving.http_port)
        ready.put(index)

    try:
        asyncio.run(_serve(config, KeyRing(keys), True, announce))
    except ConfigError as exc:
        _log.error("worker cannot start", error=str(exc))
        sys.exit(EXIT_CONFIG)
    _log.info("worker stopped")


class BackgroundServer:
    """The listeners of one worker served on a thread of this process, with an event loop
    of their own (tests and tools): ``port``, then ``stop()``."""

    def __init__(self, config: ServerConfig, keyring: KeyRing) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="serving", daemon=True)
        self._thread.start()
        started = asyncio.run_coroutine_threadsafe(start_serving(config, keyring), self._loop)
        try:
            self.serving = started.result(60)
        except BaseException:
            self._close()
            raise
        self.port = self.serving.port

    def stop(self, grace: float | None = None) -> None:
        drained = asyncio.run_coroutine_threadsafe(self.serving.drain(grace or 0), self._loop)
        drained.result(60 + (grace or 0))
        self._close()

    def _close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()


def _exit_with_parent(parent: int) -> None:
    """Linux: SIGTERM this worker if the supervisor dies (even by SIGKILL)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the supervisor died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)

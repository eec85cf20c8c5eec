"""The gRPC listener of a worker (``grpc.aio``): the API servicer, health and reflection of
the public API, the interceptor, the limits.

Requests are read asynchronously on the worker's event loop: a call reaches its handler
only once its request has arrived in full, so a slow or stalled client holds no thread.
The cheap calls and health run on the loop; the expensive ones on their own bounded pool
(``api.expensive``). Limits: ``grpc.max_concurrent_streams`` bounds the calls open on one
connection (HTTP/2 SETTINGS), the interceptor bounds the calls open on the worker and
the time a request may take to arrive. With ``--tls-cert`` the port serves TLS (mTLS with
``--tls-client-ca``) with credentials that reload renewed files (``server.tls``; gRPC's
dynamic SSL credentials work for ``grpc.aio`` servers as for threaded ones).

A listener has ``start()`` and ``stop(grace)``; the worker (``worker.serve``) starts its
listeners together and drains them together.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from google.protobuf.descriptor_pb2 import FileDescriptorProto
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc
from stud_api.stud.v1 import errors_pb2, stud_engine_pb2

from studengine.api.servicer import SERVICE_NAME, StudEngineServicer, add_servicer
from studengine.server.config import READ_FACTOR, ConfigError, ServerConfig
from studengine.server.drain import Gate
from studengine.server.interceptors import ObservingInterceptor
from studengine.server.tls import TlsFiles, grpc_credentials

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
UNKNOWN = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
#: What reflection shows: the public API and the standard services, never the sealed
#: state's schema (stud.internal.v1), though the server has it loaded.
PUBLIC_FILES = (stud_engine_pb2.DESCRIPTOR, errors_pb2.DESCRIPTOR, health_pb2.DESCRIPTOR)


def server_options(config: ServerConfig, reuse_port: bool) -> list[tuple[str, int]]:
    options = [
        ("grpc.max_receive_message_length", READ_FACTOR * config.max_message_bytes),
        ("grpc.so_reuseport", int(reuse_port)),
        ("grpc.max_concurrent_streams", config.max_streams_per_connection),
    ]
    if config.max_connection_age_seconds > 0:
        options += [
            ("grpc.max_connection_age_ms", int(config.max_connection_age_seconds * 1000)),
            ("grpc.max_connection_age_grace_ms", int(config.grace_seconds * 1000)),
        ]
    return options


def public_pool(files: Iterable[FileDescriptor] = PUBLIC_FILES) -> descriptor_pool.DescriptorPool:
    """A descriptor pool holding ``files`` and what they import, and nothing else."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: FileDescriptor) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    for file in files:
        add(file)
    return pool


class Health(health_pb2_grpc.HealthServicer):  # type: ignore[misc]
    """Standard health checking: SERVING for "" and each service until ``shut_down()``,
    then NOT_SERVING. A ``Watch`` stream sends each change; once the server shuts down
    it sends NOT_SERVING and ends (OK), so that an open watch never holds the drain."""

    def __init__(self, services: Sequence[str]) -> None:
        self._status = {name: SERVING for name in ("", *services)}
        self._changed = asyncio.Condition()
        self._closing = False
        self._watches = 0
        self._no_watches = asyncio.Event()
        self._no_watches.set()

    async def Check(
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> health_pb2.HealthCheckResponse:
        status = self._status.get(request.service)
        if status is None:
            await context.abort(grpc.StatusCode.NOT_FOUND, f"unknown service {request.service!r}")
        return health_pb2.HealthCheckResponse(status=status)

    async def Watch(
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        sent: list[int] = []  # the status last sent

        def news() -> bool:
            return self._closing or sent[-1:] != [self._status.get(request.service, UNKNOWN)]

        self._watches += 1
        self._no_watches.clear()
        try:
            while True:
                async with self._changed:
                    await self._changed.wait_for(news)
                    status = self._status.get(request.service, UNKNOWN)
                if sent[-1:] != [status]:
                    await context.write(health_pb2.HealthCheckResponse(status=status))
                    sent.append(status)
                if self._closing:
                    return
        finally:
            self._watches -= 1
            if not self._watches:
                self._no_watches.set()

    async def shut_down(self, wait: float = 2.0) -> None:
        """NOT_SERVING for good; watches say so and end (waited for up to ``wait`` s, so
        that they have sent it before the listeners stop)."""
        async with self._changed:
            self._status = dict.fromkeys(self._status, NOT_SERVING)
            self._closing = True
            self._changed.notify_all()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._no_watches.wait(), wait)


class GenericOnly:
    """A server as the generated ``add_*Servicer_to_server`` functions see it: their
    methods are added as generic handlers only, never also as registered methods, which
    would cost every call of the server (``servicer.add_servicer`` says why)."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self.server = server

    def add_generic_rpc_handlers(
        self, handlers: Sequence[grpc.GenericRpcHandler[Any, Any]]
    ) -> None:
        self.server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        """Left out: the generic handler added with them serves the same methods."""


@dataclass
class GrpcListener:
    """The gRPC server of one worker on ``config.address``."""

    config: ServerConfig
    servicer: StudEngineServicer
    health: Health
    reuse_port: bool = False
    tls: TlsFiles | None = None  # TLS (mTLS with a client CA), the files re-read on change
    gate: Gate = field(default_factory=Gate)  # the worker's drain, shared by its ports
    port: int = 0
    server: grpc.aio.Server | None = None
    interceptor: ObservingInterceptor | None = None

    async def start(self) -> None:
        config = self.config
        self.interceptor = ObservingInterceptor(
            config.max_concurrent_rpcs, config.receive_timeout_seconds, self.gate
        )
        server = grpc.aio.server(
            interceptors=[self.interceptor], options=server_options(config, self.reuse_port)
        )
        add_servicer(server, self.servicer, config.max_message_bytes)
        generic = GenericOnly(server)
        health_pb2_grpc.add_HealthServicer_to_server(self.health, generic)
        if config.reflection:
            names = (SERVICE_NAME, HEALTH_SERVICE, reflection.SERVICE_NAME)
            pool = public_pool((*PUBLIC_FILES, reflection_pb2.DESCRIPTOR))
            # what enable_server_reflection adds to an aio server (it takes no GenericOnly)
            servicer = reflection.aio.ReflectionServicer(names, pool=pool)  # type: ignore[attr-defined]
            reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, generic)
        try:
            if self.tls is None:
                self.port = server.add_insecure_port(config.address)
            else:
                self.port = server.add_secure_port(config.address, grpc_credentials(self.tls))
        except RuntimeError as exc:
            raise ConfigError(f"cannot listen on {config.address}: {exc}") from None
        if self.port == 0:
            raise ConfigError(f"cannot listen on {config.address}")
        await server.start()
        self.server = server

    def open_calls(self) -> int:
        """Calls open now, health excluded."""
        return self.interceptor.admission.active if self.interceptor is not None else 0

    async def stop(self, grace: float) -> None:
        """GOAWAY, let calls in flight finish within ``grace``, then cancel them."""
        if self.server is not None:
            await self.server.stop(grace)

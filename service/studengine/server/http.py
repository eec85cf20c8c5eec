"""The HTTP port (``--http-port``): the same service over HTTP/1.1 and HTTP/2 with the
Connect protocol (JSON and binary), gRPC-Web and gRPC, by ``connectrpc`` on hypercorn.

The same handlers as the gRPC port (``api.handlers``, the same sealing keys and test-deck
flag), the same limits (``--max-message-bytes``, ``--max-concurrent-rpcs``), the same
metrics (``grpc_server_*`` with the same labels, so a method's calls add up over both ports)
and one JSON log line per call (``protocol: "http"``), the same typed errors (ErrorInfo and
BadRequest as Connect error details), TLS and mTLS with the same certificate options, and
graceful shutdown: ``GET /healthz`` answers 200 ``SERVING`` until shutdown starts, then 503
``NOT_SERVING``; calls in flight get ``grace`` seconds.

The calls are the gRPC port's (``api.calls.ApiCalls``, one per worker): the cheap ones run
on the event loop, Equity and large Evaluate batches in the worker's bounded pool (the
same RESOURCE_EXHAUSTED, reason SERVER_BUSY, beyond its limit, the same Equity CPU
cap), so the bounds hold whatever port the calls come in on. HTTP/2 streams per
connection are bounded by ``--max-streams-per-connection``; a call is counted in
``grpc_server_in_flight`` by stage, as on the gRPC port: ``receiving`` while its body
arrives (Connect reads it before the handler), then ``handling``. A body that has not
arrived in full within ``--receive-timeout-seconds`` (a stalled or very slow client) is
answered DEADLINE_EXCEEDED (ErrorInfo RECEIVE_TIMEOUT) in the call's own protocol, and
counted like the gRPC port's.

``HttpListener(config, calls, tls, reuse_port)`` is a worker's listener: ``await start()``
serves hypercorn as a task of the worker's event loop (beside the gRPC listener), ``await
stop(grace)`` drains it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import re
import socket
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, NoReturn, cast

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf.message import Message
from protobuf.wkt import Any as AnyDetail
from stud_api.stud.v1 import stud_engine_connect as connect

from studengine.api.calls import METHODS, SERVICE_NAME, ApiCalls
from studengine.api.errors import ApiError, details, receive_timeout, too_large
from studengine.server import metrics
from studengine.server.callstats import Admission, MethodStats
from studengine.server.config import READ_FACTOR, ConfigError, ServerConfig
from studengine.server.drain import Gate
from studengine.server.tls import TlsFiles

HEALTH_PATH = "/healthz"
_server_log = structlog.get_logger("studengine.server")


def connect_error(error: ApiError) -> ConnectError:
    """A refusal as a Connect error: the same code, message and details as over gRPC."""
    packed = [
        ErrorDetail(
            AnyDetail(
                type_url="type.googleapis.com/" + detail.DESCRIPTOR.full_name,
                value=detail.SerializeToString(),
            )
        )
        for detail in details(error)
    ]
    return ConnectError(Code[error.code.name], error.message, packed)


class StudEngineConnect:
    """``stud.v1.StudEngineService`` for connectrpc, over the worker's ``ApiCalls`` (the
    gRPC port's: the same expensive-call bound and Equity CPU cap), with the gRPC port's
    limits and drain: calls at once and the worker's ``gate`` (``callstats.Admission``),
    the message size. Each method of the service is an attribute by its snake_case name
    (``start_hand``), all the same path."""

    def __init__(
        self,
        calls: ApiCalls,
        max_concurrent: int,
        max_message_bytes: int | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.calls = calls
        self.admission = Admission(max_concurrent, gate)
        self.max_message_bytes = max_message_bytes
        self.methods = {
            name: MethodStats(f"/{SERVICE_NAME}/{name}", "unary", protocol="http")
            for name in METHODS
        }
        for name in METHODS:
            setattr(self, _snake_case(name), functools.partial(self._call, name))

    @property
    def in_flight(self) -> int:
        return self.admission.active

    async def _call(self, name: str, request: Message, ctx: Any) -> Message:
        method = self.methods[name]
        t0 = method.start()
        context = contextvars.Context()  # what the handler binds for the log line
        tracer = method.tracer
        # the call's span is current in the handler's context (its steps' parent)
        span = None if tracer is None else context.run(tracer.begin, ctx.request_headers.items())
        refusal = self._refusal(name, request)  # as gRPC's: before any handler
        if refusal is not None:
            metrics.rejected(refusal.metric_label)
            context.run(method.finish, t0, refusal.code, span, refusal.reason.value)
            raise connect_error(refusal)
        timeout_ms = ctx.timeout_ms
        remaining = None if timeout_ms is None else timeout_ms / 1000
        code = grpc.StatusCode.OK
        reason = None
        self.admission.active += 1
        method.handling.inc()
        try:
            # its own task: the handler's log fields stay in ``context``; a client that
            # leaves cancels it (and so the expensive work it waits for)
            call = self.calls.run(name, request, remaining)
            return await asyncio.create_task(call, context=context)
        except ApiError as error:
            code = error.code
            reason = error.reason.value
            self.calls.observer.rejected(error.metric_label)
            raise connect_error(error) from None
        except asyncio.CancelledError:
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception:
            code = grpc.StatusCode.UNKNOWN
            context.run(_server_log.exception, "call failed", method=method.full)
            raise ConnectError(Code.INTERNAL, "internal error") from None
        finally:
            self.admission.active -= 1
            method.handling.dec()
            context.run(method.finish, t0, code, span, reason)

    def _refusal(self, name: str, request: Message) -> ApiError | None:
        """The refusal of a call the port does not start, if it is one."""
        refusal = self.admission.refusal(name)
        limit = self.max_message_bytes
        if refusal is None and limit is not None and (size := request.ByteSize()) > limit:
            return too_large(name, size, limit)
        return refusal


def _snake_case(name: str) -> str:
    """``GetHandHistory`` -> ``get_hand_history``: connectrpc's name of a method."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


ASGIApp = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


class App:
    """The ASGI application: ``GET /healthz`` and the Connect service, each call's body
    read within ``receive_timeout`` seconds (None: no bound)."""

    def __init__(
        self,
        service: StudEngineConnect,
        max_body_bytes: int,
        receive_timeout: float | None = None,
    ) -> None:
        self.serving = True
        self.service = service
        self.receive_timeout = receive_timeout
        self.max_body_bytes = max_body_bytes
        self.connect: ASGIApp = connect.StudEngineServiceASGIApplication(
            cast(connect.StudEngineService, service), read_max_bytes=max_body_bytes
        )
        self._methods = {m.full: m for m in service.methods.values()}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH:
            status, body = (200, b"SERVING\n") if self.serving else (503, b"NOT_SERVING\n")
            headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(body))]
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if scope["type"] == "lifespan":  # nothing to set up or tear down
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        method = self._methods.get(scope.get("path", "")) if scope["type"] == "http" else None
        if method is None:  # Connect answers unknown paths itself
            await self.connect(scope, receive, send)
            return
        limits = _Limits(self.receive_timeout, self.max_body_bytes, self.service.max_message_bytes)
        bounded = _Body(receive, method, limits, _content_length(scope), _enveloped(scope))
        try:
            await self.connect(scope, bounded.receive, send)
        finally:
            bounded.done()


class _Limits(NamedTuple):
    """What one call's body may take: ``timeout`` seconds (None: no bound) and
    ``body_bytes``; ``message_bytes`` is the limit a refusal names."""

    timeout: float | None
    body_bytes: int
    message_bytes: int | None


def _header(scope: dict[str, Any], wanted: bytes) -> bytes:
    return next((value for name, value in scope.get("headers", ()) if name == wanted), b"")


def _content_length(scope: dict[str, Any]) -> int:
    """The request's declared Content-Length (0: none, or not a number)."""
    value = _header(scope, b"content-length")
    return int(value) if value.isdigit() else 0


def _enveloped(scope: dict[str, Any]) -> bool:
    """Whether the body is length-prefixed messages (gRPC, gRPC-Web, Connect streaming):
    its first five bytes then declare the first message's size."""
    kind = _header(scope, b"content-type")
    return kind.startswith((b"application/grpc", b"application/connect+"))


class _Body:
    """One call's request body as Connect reads it: counted as ``receiving`` until it has
    arrived in full, and refused (raised to Connect as a ConnectError, which answers it in
    the call's protocol) if that takes longer than the timeout (RECEIVE_TIMEOUT) or if it
    is, or declares itself, larger than the port reads (MESSAGE_TOO_LARGE, RESOURCE_EXHAUSTED
    like a message over the limit: one condition, one answer, whatever the size; the rest
    of such a body is dropped unread, ``_discard_rest``)."""

    def __init__(
        self,
        receive: Any,
        method: MethodStats,
        limits: _Limits,
        declared: int = 0,
        enveloped: bool = False,
    ) -> None:
        self._receive = receive
        self._method = method
        self._limits = limits
        self._t0 = time.perf_counter()
        timeout = limits.timeout
        self._deadline = None if timeout is None else asyncio.get_running_loop().time() + timeout
        self._open = True
        self._size = declared  # the body's size, at least: declared, or read so far
        self._read = 0
        self._prefix = b"" if enveloped else None  # an envelope's first bytes, until 5
        method.receiving.inc()

    async def receive(self) -> dict[str, Any]:
        if not self._open:  # the body is in: what follows (a disconnect) is not bounded
            message: dict[str, Any] = await self._receive()
            return message
        if self._size > self._limits.body_bytes:  # declared too large
            await self._discard_rest()
            self._refuse(self._too_large())
        try:
            async with asyncio.timeout_at(self._deadline):
                message = await self._receive()
        except TimeoutError:
            assert self._limits.timeout is not None
            self._refuse(receive_timeout(self._method.name, self._limits.timeout))
        if message["type"] == "http.request":
            self._count(message.get("body", b""))
            if self._size > self._limits.body_bytes:
                if message.get("more_body", False):
                    await self._discard_rest()
                self._refuse(self._too_large())
        if message["type"] != "http.request" or not message.get("more_body", False):
            self.done()
        return message

    def _count(self, chunk: bytes) -> None:
        """Add a chunk to the size seen, and an envelope's declared message size (before
        Connect reads it and cuts the call off itself, untyped)."""
        self._read += len(chunk)
        self._size = max(self._size, self._read)
        if self._prefix is not None and len(self._prefix) < 5:
            self._prefix += chunk[: 5 - len(self._prefix)]
            if len(self._prefix) == 5:
                self._size = max(self._size, int.from_bytes(self._prefix[1:], "big"))

    async def _discard_rest(self) -> None:
        """Read and drop (never keep) the rest of a refused body, within the receive
        deadline (no deadline: none of it), so that the answer comes after the client has
        sent it all: an HTTP/2 stream the server resets while the client still sends makes
        gRPC clients see INTERNAL instead of the answer."""
        if self._deadline is None:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(self._deadline):
                while (await self._receive()).get("more_body", False):
                    pass

    def _too_large(self) -> ApiError:
        limits = self._limits
        limit = limits.message_bytes or limits.body_bytes
        return too_large(self._method.name, self._size, limit, limits.body_bytes)

    def _refuse(self, refusal: ApiError) -> NoReturn:
        """Count the refusal of a call that never reaches ``StudEngineConnect._call``."""
        self.done()
        metrics.rejected(refusal.metric_label)
        self._method.started.inc()
        self._method.finish(self._t0, refusal.code)
        raise connect_error(refusal) from None

    def done(self) -> None:
        if self._open:
            self._open = False
            self._method.receiving.dec()


def build_app(config: ServerConfig, calls: ApiCalls, gate: Gate | None = None) -> App:
    """The HTTP port's app. The body may be up to ``READ_FACTOR`` times the limit
    (JSON is larger than the message), the message itself at most the limit."""
    service = StudEngineConnect(
        calls, config.max_concurrent_rpcs, config.max_message_bytes, gate or Gate()
    )
    return App(service, READ_FACTOR * config.max_message_bytes, config.receive_timeout_seconds)


def listening_socket(host: str, port: int, reuse_port: bool) -> socket.socket:
    """A bound, listening TCP socket (SO_REUSEPORT with several workers)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} (--http-port): {exc.strerror}") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


class HttpListener:
    """The HTTP port, served by hypercorn as a task on the worker's event loop."""

    def __init__(
        self,
        config: ServerConfig,
        calls: ApiCalls,
        tls: TlsFiles | None,
        reuse_port: bool,
        gate: Gate | None = None,
    ) -> None:
        from hypercorn.config import Config

        self.app = build_app(config, calls, gate)
        self.sock = listening_socket(config.host, config.http_port or 0, reuse_port)
        self.port: int = self.sock.getsockname()[1]
        hyper = Config()
        hyper.bind = [f"fd://{self.sock.fileno()}"]
        hyper.graceful_timeout = config.grace_seconds
        hyper.accesslog = None
        hyper.errorlog = None
        hyper.h11_max_incomplete_size = 64 * 1024
        hyper.h2_max_concurrent_streams = config.max_streams_per_connection
        if tls is not None:
            hyper.certfile, hyper.keyfile = str(tls.cert), str(tls.key)
            if tls.client_ca is not None:
                import ssl

                hyper.ca_certs = str(tls.client_ca)
                hyper.verify_mode = ssl.CERT_REQUIRED
        self._config = hyper
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def serve(self) -> None:
        """Serve until ``shutdown``; returns once calls in flight are done (or grace ends)."""
        from hypercorn.asyncio import serve

        self.sock.detach()  # hypercorn owns the descriptor now (it closes it when done)
        await serve(self.app, self._config, shutdown_trigger=self._stop.wait)  # type: ignore[arg-type]

    async def shutdown(self, grace: float) -> None:
        """NOT_SERVING, stop accepting, let calls in flight finish within ``grace``."""
        self.app.serving = False
        self._config.graceful_timeout = grace
        self._stop.set()

    # ---- a worker's listener ----------------------------------------------------------

    async def start(self) -> None:
        """Serve as a task of the running loop (the worker's, beside the gRPC port)."""
        self._task = asyncio.create_task(self.serve(), name="http")
        await asyncio.sleep(0)  # hypercorn takes the socket and starts accepting
        if self._task.done():
            self._task.result()  # a failure to start is the caller's

    def open_calls(self) -> int:
        """Calls open now (health excluded)."""
        return self.app.service.in_flight

    async def stop(self, grace: float) -> None:
        """``shutdown(grace)``; returns when the port has drained."""
        await self.shutdown(grace)
        if self._task is not None:
            await self._task
        self.sock.close()  # a no-op once hypercorn took the descriptor

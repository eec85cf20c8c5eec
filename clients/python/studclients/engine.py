"""The one engine client: how every Python client dials ``stud-server`` (stud-play, stud-load,
stud-table, stud-conformance's remote driver and ``deploy/local``'s driver).

- **Channels** (``channel_options``): plaintext, TLS or mTLS (``Tls``), each
  with its own connection, and every one with the API's gRPC service config
  (``stud_api/service_config.json``), so gRPC itself retries a call that fails UNAVAILABLE,
  with backoff. Nothing retries CANCELLED (AIP-194). Every call is safe to repeat: the
  server keeps nothing, and an Act's sealed state carries its own ``seq``, so the same Act
  sent twice yields the same next hand.
- **Failover**, which a service config cannot do: with several targets, calls take them in
  turn (``Rotation``); a call still UNAVAILABLE after the channel's retries moves on to a
  target it has not tried, and the failed target is passed over for a second; one that
  refused as draining (SERVER_DRAINING) for longer than a draining server goes on
  refusing, so that nothing reaches it when it stops (a call it holds unstarted then
  ends CANCELLED, grpc/grpc#41785).
- ``Engine`` (grpc.aio) and ``SyncEngine`` (blocking) are that client over the same policy;
  a call that fails for good raises ``EngineError``. A method a server answers
  UNIMPLEMENTED is not asked again.
- **Verifiable deals** (issue 32, docs/security.md): ``start_verifiable_hand`` asks for a
  deal ticket (CreateDealTicket), gives every player a contribution (a player's own, or
  ``new_contribution``: ``secrets.token_bytes``) and deals with both; the hand's first
  update must show the ticket's commitment.
- ``add_dial_options`` / ``dial_from_args``: ``--target`` (the old ``--targets`` and
  ``--engine`` as aliases) and the ``--tls*`` flags every CLI takes."""

from __future__ import annotations

import abc
import argparse
import contextlib
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import grpc
import grpc.aio
from google.rpc import error_details_pb2, status_pb2
from opentelemetry import trace
from opentelemetry.propagate import inject
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc

#: The API's gRPC service config (JSON): the retry policy every channel carries.
SERVICE_CONFIG: str = resources.files("stud_api").joinpath("service_config.json").read_text()
#: Calls that carry a whole hand update get this deadline (seconds).
CALL_TIMEOUT = 10.0
#: A target that failed is passed over this long while others are up (seconds).
COOLDOWN_SECONDS = 1.0
#: A target that refused as draining is passed over this long: more than a draining
#: stud-server goes on refusing before it stops (``studengine.server.drain``: 1.25 s of
#: quiet, at most 3 s of refusing once idle), so a client of several targets does not
#: come back to it in the moment it stops.
DRAINING_REST_SECONDS = 5.0
DRAINING = "SERVER_DRAINING"
#: What moves a call on to another target (after the channel's own retries).
FAILOVER_CODES = frozenset({grpc.StatusCode.UNAVAILABLE})
#: The service's methods, in the proto's order (stud.v1.StudEngineService).
METHODS: tuple[str, ...] = tuple(
    method.name for method in pb.DESCRIPTOR.services_by_name["StudEngineService"].methods
)
#: A player's contribution to a verifiable deal: 16 to 64 bytes; this client draws 32.
CONTRIBUTION_BYTES = 32


class EngineError(Exception):
    """An engine call that failed for good: ``code`` is the gRPC status code's name,
    ``reason`` the ErrorInfo reason of the rich status (``STALE_SEQ``, ...; "" when the
    engine sent none, as when it could not be reached)."""

    def __init__(self, method: str, code: str, message: str, reason: str = "") -> None:
        super().__init__(f"{method}: {code}: {message}")
        self.method = method
        self.code = code
        self.message = message
        self.reason = reason


def error_reason(call: grpc.Call) -> str:
    """The ErrorInfo reason in a failed call's status details (``grpc-status-details-bin``)."""
    for key, value in call.trailing_metadata() or ():
        if key != "grpc-status-details-bin" or not isinstance(value, bytes):
            continue
        for detail in status_pb2.Status.FromString(value).details:
            if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                return str(info.reason)
    return ""


# ---- channels ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Tls:
    """TLS for a channel: PEM bytes; no ``ca`` trusts the system's roots, ``cert`` and
    ``key`` (together) are the client's own for mTLS, ``server_name`` overrides the name
    checked in the server's certificate."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None
    server_name: str | None = None

    def __post_init__(self) -> None:
        if (self.cert is None) != (self.key is None):
            raise ValueError("a client certificate and its key go together (--tls-cert, --tls-key)")

    @classmethod
    def from_files(
        cls,
        ca: Path | None = None,
        cert: Path | None = None,
        key: Path | None = None,
        server_name: str | None = None,
    ) -> Tls:
        def read(path: Path | None) -> bytes | None:
            if path is None:
                return None
            try:
                return path.read_bytes()
            except OSError as error:
                raise ValueError(f"cannot read {path}: {error.strerror}") from None

        return cls(read(ca), read(cert), read(key), server_name)

    def credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(
            root_certificates=self.ca, private_key=self.key, certificate_chain=self.cert
        )


def channel_options(
    tls: Tls | None = None, extra: Iterable[tuple[str, Any]] = ()
) -> list[tuple[str, Any]]:
    """The options of every engine channel: its own connection (so several channels to one
    multi-worker server spread over its workers: SO_REUSEPORT balances connections, not
    calls), the service config's retries, the TLS name override."""
    options: list[tuple[str, Any]] = [
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.enable_retries", 1),
        ("grpc.service_config", SERVICE_CONFIG),
    ]
    if tls is not None and tls.server_name:
        options.append(("grpc.ssl_target_name_override", tls.server_name))
    return options + list(extra)


# ---- targets and the flags that name them ----------------------------------------------
def parse_targets(values: str | Iterable[str]) -> list[str]:
    """``"h1:1,h2:2"`` (or several such) -> ``["h1:1", "h2:2"]``; each must be ``host:port``."""
    texts = [values] if isinstance(values, str) else list(values)
    targets = [part.strip() for text in texts for part in text.split(",") if part.strip()]
    if not targets:
        raise ValueError("no target given (expected host:port[,host:port...])")
    for target in targets:
        host, sep, port = target.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"not a host:port target: {target!r}")
    return targets


@dataclass(frozen=True)
class Dial:
    """Where the engine is and how to reach it."""

    targets: tuple[str, ...]
    tls: Tls | None = None


def add_dial_options(
    parser: argparse.ArgumentParser,
    *,
    aliases: Sequence[str] = (),
    many: bool = False,
    required: bool = False,
    default: str = "",
) -> None:
    """``--target`` (with the CLI's old names as ``aliases``; with ``many``, repeated or
    comma-separated) and the TLS flags. ``default`` tells what happens without a target."""
    group = parser.add_argument_group("engine connection")
    more = " (repeat it or separate with commas: calls go round-robin)" if many else ""
    group.add_argument(
        "--target",
        *aliases,
        dest="target",
        action="append",
        required=required,
        metavar="HOST:PORT",
        help=f"the stud-server to call{more}" + (f"; default: {default}" if default else ""),
    )
    group.add_argument(
        "--tls",
        action="store_true",
        help="dial with TLS, trusting the system's roots unless --tls-ca (any --tls-* implies it)",
    )
    group.add_argument("--tls-ca", type=Path, metavar="PEM", help="the CA(s) to trust (PEM)")
    group.add_argument(
        "--tls-cert", type=Path, metavar="PEM", help="client certificate chain for mTLS"
    )
    group.add_argument("--tls-key", type=Path, metavar="PEM", help="its private key (PEM)")
    group.add_argument(
        "--tls-server-name",
        metavar="NAME",
        help="the name the server's certificate must carry (default: the target's host)",
    )


def dial_from_args(
    parser: argparse.ArgumentParser, args: argparse.Namespace, *, many: bool = False
) -> Dial | None:
    """The ``Dial`` the flags ask for; None without ``--target`` (then TLS flags are an
    error). Bad flags end the program with the parser's usage error."""
    asked_tls = args.tls or any(
        getattr(args, name) is not None
        for name in ("tls_ca", "tls_cert", "tls_key", "tls_server_name")
    )
    if not args.target:
        if asked_tls:
            parser.error("the --tls options need --target (a server started here is plaintext)")
        return None
    try:
        targets = parse_targets(args.target)
        tls = None
        if asked_tls:
            tls = Tls.from_files(args.tls_ca, args.tls_cert, args.tls_key, args.tls_server_name)
    except ValueError as error:
        parser.error(str(error))
    if not many and len(targets) > 1:
        parser.error(f"--target: one server only, not {len(targets)}")
    return Dial(tuple(targets), tls)


# ---- the policy both engines share ------------------------------------------------------
class CallObserver(Protocol):
    """What a caller may want to count (stud-load's report)."""

    def answered(self, method: str, seconds: float) -> None: ...

    def failed_over(self, method: str, code: str) -> None: ...


class Rotation:
    """Which channel a call goes to: each in turn, passing over a target that failed in the
    last ``COOLDOWN_SECONDS``; after a failover code, one to a target not tried yet."""

    def __init__(self, targets: Sequence[str], clock: Callable[[], float] = time.monotonic):
        if not targets:
            raise ValueError("no engine target")
        self.targets = list(targets)
        self.clock = clock
        self.turn = 0
        self.resting_until: dict[str, float] = {}

    def first(self) -> int:
        size = len(self.targets)
        now = self.clock()
        for _ in range(size):
            index = self.turn % size
            self.turn += 1
            if self.resting_until.get(self.targets[index], 0.0) <= now:
                return index
        return self.turn % size  # every target failed lately: try them anyway

    def next_after(
        self, index: int, code: grpc.StatusCode, tried: set[str], reason: str = ""
    ) -> int | None:
        """Where a call that failed with ``code`` (ErrorInfo ``reason``) on ``index`` goes
        next (None: nowhere)."""
        if code not in FAILOVER_CODES:
            return None
        failed = self.targets[index]
        rest = DRAINING_REST_SECONDS if reason == DRAINING else COOLDOWN_SECONDS
        self.resting_until[failed] = max(self.resting_until.get(failed, 0.0), self.clock() + rest)
        tried.add(failed)
        size = len(self.targets)
        for step in range(1, size):
            candidate = (index + step) % size
            if self.targets[candidate] not in tried:
                return candidate
        return None


class _Client(abc.ABC):
    """What ``Engine`` and ``SyncEngine`` share: stubs over channels, the rotation, the
    methods found UNIMPLEMENTED, and the observer."""

    def __init__(
        self,
        dial: Dial,
        *,
        connections: int = 1,
        timeout: float = CALL_TIMEOUT,
        observer: CallObserver | None = None,
        extra_options: Iterable[tuple[str, Any]] = (),
    ) -> None:
        """Channels to every target of ``dial``, ``connections`` each; ``extra_options``
        go to every channel (deploy/local's driver: a round-robin policy)."""
        if connections < 1:
            raise ValueError("connections must be at least 1")
        self.dial = dial
        self.timeout = timeout
        self.observer = observer
        self.rotation = Rotation([t for _ in range(connections) for t in dial.targets])
        self.unimplemented: set[str] = set()
        options = channel_options(dial.tls, extra_options)
        self.channels = [self._open(t, options) for t in self.rotation.targets]
        self.stubs = [pb_grpc.StudEngineServiceStub(c) for c in self.channels]

    @abc.abstractmethod
    def _open(self, target: str, options: list[tuple[str, Any]]) -> Any:
        """A channel to ``target``: an asyncio one (Engine) or a blocking one (SyncEngine)."""

    def _attempts(self, method: str) -> Iterator[_Attempt]:
        """One call's attempts: the first channel in turn, then each failover's."""
        if method in self.unimplemented:
            raise EngineError(method, "UNIMPLEMENTED", "the server has no such method")
        attempt = _Attempt(self, method, self.rotation.first(), set())
        while True:
            yield attempt
            attempt = _Attempt(self, method, attempt.following, attempt.tried)


class _Attempt:
    """One attempt of a call, as a context: an answer is counted; a failure either moves
    the call on (``following``, the error swallowed) or raises its ``EngineError``."""

    def __init__(self, client: _Client, method: str, index: int, tried: set[str]) -> None:
        self.client, self.method, self.index, self.tried = client, method, index, tried
        self.following = index

    def __enter__(self) -> _Attempt:
        self.began = time.perf_counter()
        return self

    def __exit__(self, kind: object, error: BaseException | None, trace: object) -> bool:
        client, method, observer = self.client, self.method, self.client.observer
        if error is None:
            if observer is not None:
                observer.answered(method, time.perf_counter() - self.began)
            return False
        if not isinstance(error, grpc.RpcError):
            return False
        call: grpc.Call = error  # type: ignore[assignment]
        code, reason = call.code(), error_reason(call)
        following = client.rotation.next_after(self.index, code, self.tried, reason)
        if following is None:
            if code == grpc.StatusCode.UNIMPLEMENTED:
                client.unimplemented.add(method)
            raise EngineError(method, code.name, call.details() or "", reason) from None
        if observer is not None:
            observer.failed_over(method, code.name)
        self.following = following
        return True


_tracer = trace.get_tracer("studclients.engine")


def _client_span(method: str) -> contextlib.AbstractContextManager[Any]:
    """The call's client span, current over its attempts, when this process has set an
    OpenTelemetry SDK up (stud-table with ``OTEL_EXPORTER_OTLP_ENDPOINT``); else nothing.
    Named and attributed by the RPC semantic conventions."""
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return contextlib.nullcontext()
    name = f"{pb.DESCRIPTOR.package}.StudEngineService/{method}"
    attributes = {"rpc.system.name": "grpc", "rpc.method": name}
    return _tracer.start_as_current_span(name, kind=trace.SpanKind.CLIENT, attributes=attributes)


def trace_metadata() -> tuple[tuple[str, str], ...] | None:
    """The W3C trace context (``traceparent``) of the current span as call metadata; None
    when no span is recording."""
    carrier: dict[str, str] = {}
    inject(carrier)
    return tuple(carrier.items()) or None


class Engine(_Client):
    """The engine over ``grpc.aio``."""

    def _open(self, target: str, options: list[tuple[str, Any]]) -> grpc.aio.Channel:
        tls = self.dial.tls
        if tls is None:
            return grpc.aio.insecure_channel(target, options=options)
        return grpc.aio.secure_channel(target, tls.credentials(), options=options)

    async def call(self, method: str, request: Any) -> Any:
        with _client_span(method):
            metadata = trace_metadata()
            for attempt in self._attempts(method):
                with attempt:
                    return await getattr(self.stubs[attempt.index], method)(
                        request, timeout=self.timeout, metadata=metadata
                    )
        raise AssertionError("unreachable: the attempts end in an answer or an EngineError")

    async def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        response: pb.StartHandResponse = await self.call("StartHand", request)
        return response.hand

    async def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        response: pb.ActResponse = await self.call("Act", request)
        return response.hand

    async def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        response: pb.GetViewResponse = await self.call("GetView", request)
        return response

    async def equity(self, request: pb.EquityRequest) -> pb.EquityResponse:
        response: pb.EquityResponse = await self.call("Equity", request)
        return response

    async def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        response: pb.EvaluateResponse = await self.call("Evaluate", request)
        return response

    async def get_hand_history(
        self, request: pb.GetHandHistoryRequest
    ) -> pb.GetHandHistoryResponse:
        response: pb.GetHandHistoryResponse = await self.call("GetHandHistory", request)
        return response

    async def create_deal_ticket(self, request: pb.CreateDealTicketRequest) -> pb.DealTicket:
        response: pb.CreateDealTicketResponse = await self.call("CreateDealTicket", request)
        return response.ticket

    async def start_verifiable_hand(
        self, request: pb.StartHandRequest, contributions: Sequence[bytes | None] = ()
    ) -> pb.HandUpdate:
        """Deals ``request``'s hand with a deal ticket and one contribution per player
        (``contributions`` by seat, a missing or None one drawn here)."""
        ticket = await self.create_deal_ticket(ticket_request(request))
        return checked_commitment(
            ticket, await self.start_hand(with_ticket(request, ticket, contributions))
        )

    async def close(self) -> None:
        for channel in self.channels:
            await channel.close(None)


class SyncEngine(_Client):
    """The engine over blocking gRPC, for one thread (gRPC channels are thread-safe; the
    rotation's turn is a plain counter)."""

    def _open(self, target: str, options: list[tuple[str, Any]]) -> grpc.Channel:
        tls = self.dial.tls
        if tls is None:
            return grpc.insecure_channel(target, options=options)
        return grpc.secure_channel(target, tls.credentials(), options=options)

    def call(self, method: str, request: Any) -> Any:
        with _client_span(method):
            metadata = trace_metadata()
            for attempt in self._attempts(method):
                with attempt:
                    stub = getattr(self.stubs[attempt.index], method)
                    return stub(request, timeout=self.timeout, metadata=metadata)
        raise AssertionError("unreachable: the attempts end in an answer or an EngineError")

    def start_hand(self, request: pb.StartHandRequest) -> pb.HandUpdate:
        response: pb.StartHandResponse = self.call("StartHand", request)
        return response.hand

    def act(self, request: pb.ActRequest) -> pb.HandUpdate:
        response: pb.ActResponse = self.call("Act", request)
        return response.hand

    def get_view(self, request: pb.GetViewRequest) -> pb.GetViewResponse:
        response: pb.GetViewResponse = self.call("GetView", request)
        return response

    def equity(self, request: pb.EquityRequest) -> pb.EquityResponse:
        response: pb.EquityResponse = self.call("Equity", request)
        return response

    def evaluate(self, request: pb.EvaluateRequest) -> pb.EvaluateResponse:
        response: pb.EvaluateResponse = self.call("Evaluate", request)
        return response

    def get_hand_history(self, request: pb.GetHandHistoryRequest) -> pb.GetHandHistoryResponse:
        response: pb.GetHandHistoryResponse = self.call("GetHandHistory", request)
        return response

    def create_deal_ticket(self, request: pb.CreateDealTicketRequest) -> pb.DealTicket:
        response: pb.CreateDealTicketResponse = self.call("CreateDealTicket", request)
        return response.ticket

    def start_verifiable_hand(
        self, request: pb.StartHandRequest, contributions: Sequence[bytes | None] = ()
    ) -> pb.HandUpdate:
        """As ``Engine.start_verifiable_hand``."""
        ticket = self.create_deal_ticket(ticket_request(request))
        return checked_commitment(
            ticket, self.start_hand(with_ticket(request, ticket, contributions))
        )

    def close(self) -> None:
        for channel in self.channels:
            channel.close()

    def __enter__(self) -> SyncEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def act_request(
    state: bytes, seq: int, seat: int, action: pb.ActionType.ValueType, to: int | None = None
) -> pb.ActRequest:
    """The one Act builder: the move of ``seat`` on the hand at ``seq``, sent back as
    ``expected_seq`` (a self-check: a stale state is refused ABORTED)."""
    request = pb.ActRequest(state=state, seat=seat, action=action, expected_seq=seq)
    if to is not None:
        request.to = to
    return request


def new_contribution(size: int = CONTRIBUTION_BYTES) -> bytes:
    """A player's entropy for a verifiable deal, from the OS CSPRNG."""
    return secrets.token_bytes(size)


def ticket_request(start: pb.StartHandRequest) -> pb.CreateDealTicketRequest:
    """The CreateDealTicket request binding ``start``'s settings and players."""
    return pb.CreateDealTicketRequest(
        variant=start.variant, table=start.table, players=start.players, button=start.button
    )


def with_ticket(
    start: pb.StartHandRequest, ticket: pb.DealTicket, contributions: Sequence[bytes | None] = ()
) -> pb.StartHandRequest:
    """``start`` dealt with ``ticket``: one contribution per player, in seat order, each
    the one given or, when missing (None or past the end), a fresh ``new_contribution``."""
    given = list(contributions)[: len(start.players)]
    given += [None] * (len(start.players) - len(given))
    request = pb.StartHandRequest()
    request.CopyFrom(start)
    request.deal_ticket = ticket.sealed
    request.contributions[:] = [c if c is not None else new_contribution() for c in given]
    return request


class CommitmentMismatch(RuntimeError):
    """A hand dealt with a ticket that does not show the ticket's commitment."""


def checked_commitment(ticket: pb.DealTicket, hand: pb.HandUpdate) -> pb.HandUpdate:
    """``hand``, after checking it shows the ticket's commitment and hand id."""
    if hand.deal_commitment != ticket.commitment or hand.hand_id != ticket.hand_id:
        raise CommitmentMismatch(
            f"hand {hand.hand_id} shows commitment {hand.deal_commitment!r}, "
            f"not ticket {ticket.hand_id}'s {ticket.commitment!r}"
        )
    return hand


__all__ = [
    "CALL_TIMEOUT",
    "CONTRIBUTION_BYTES",
    "COOLDOWN_SECONDS",
    "DRAINING_REST_SECONDS",
    "METHODS",
    "SERVICE_CONFIG",
    "CallObserver",
    "CommitmentMismatch",
    "Dial",
    "Engine",
    "EngineError",
    "Rotation",
    "SyncEngine",
    "Tls",
    "act_request",
    "add_dial_options",
    "channel_options",
    "checked_commitment",
    "dial_from_args",
    "error_reason",
    "new_contribution",
    "parse_targets",
    "ticket_request",
    "with_ticket",
]

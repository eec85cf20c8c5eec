"""stud-server configuration: command-line flags, each also read from ``STUD_<NAME>``.

Precedence: a flag on the command line, then its environment variable, then the default.
Sealing keys come from ``--key-file`` (``STUD_KEY_FILE``) or ``STUD_SEALING_KEYS``
(comma-separated ``kid:base64key`` specs); the first key seals, all of them open.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

ENV_PREFIX = "STUD_"
KEYS_ENV = "STUD_SEALING_KEYS"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


class ConfigError(Exception):
    """The configuration cannot work (the server exits with code 2)."""


#: Either port reads a request of up to this many times --max-message-bytes, so that the
#: server refuses one over the limit itself, with its details (LIMIT_EXCEEDED; a JSON
#: body may be larger than its message); gRPC core and connectrpc cut off larger ones
#: (RESOURCE_EXHAUSTED, no details), bounding what a call may buffer.
READ_FACTOR = 2


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051
    metrics_port: int = 9464  # 0: no metrics endpoint
    workers: int = 1
    threads: int = 2  # threads for the expensive calls (Equity, large Evaluate) per worker
    max_expensive_calls: int = 32  # expensive calls held (running or waiting) per worker
    equity_cpu_seconds: float = 2.0  # CPU time one Equity call may use
    deal_ticket_seconds: float = 300.0  # how long a deal ticket is good for (issue 32)
    key_file: str | None = None
    sealing_keys: str | None = None  # comma-separated specs (env STUD_SEALING_KEYS)
    dev: bool = False
    allow_test_decks: bool = False
    max_message_bytes: int = 1024 * 1024
    max_concurrent_rpcs: int = 256
    max_streams_per_connection: int = 100
    receive_timeout_seconds: float = 10.0
    grace_seconds: float = 10.0
    max_connection_age_seconds: float = 0.0  # 0: off
    reflection: bool = True
    log_level: str = "info"
    log_queue_lines: int = 10_000
    http_port: int | None = None  # None: no HTTP port; 0 picks one
    tls_cert: str | None = None  # PEM certificate chain (both ports)
    tls_key: str | None = None
    tls_client_ca: str | None = None  # PEM CA: client certificates required (mTLS)

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def _env_name(flag: str) -> str:
    return ENV_PREFIX + flag.lstrip("-").replace("-", "_").upper()


def _parse_bool(name: str, text: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ConfigError(f"{name}={text!r} is not a boolean (use true or false)")


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {value}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value}")
    return value


def _non_negative_float(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


class _Version(argparse.Action):
    """``--version``: the server's and its libraries' versions (read only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the versions and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: object) -> None:
        from studengine.server.buildinfo import version_text

        print(version_text())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    d = ServerConfig()
    p = argparse.ArgumentParser(
        prog="stud-server",
        description="Serve the Stud Engine gRPC API. Every flag can also be set with the "
        "environment variable STUD_<FLAG> (e.g. STUD_PORT=50051); a flag given on the "
        "command line wins.",
    )
    add = p.add_argument

    def setting(flag: str, kind: Callable[[str], object], help: str) -> None:
        """A flag whose default is ``ServerConfig``'s field of that name, said in its help."""
        default = getattr(d, flag[2:].replace("-", "_"))
        shown = f"{default:g}" if isinstance(default, float) else str(default)
        add(flag, type=kind, default=default, help=f"{help} (default {shown})")

    add("--version", action=_Version)
    add("--host", default=d.host, help=f"address to bind (default {d.host})")
    setting("--port", _port, "gRPC port; 0 picks one")
    setting("--metrics-port", _port, "Prometheus /metrics port on --host; 0 turns it off")
    setting("--workers", _positive_int, "worker processes sharing the port with SO_REUSEPORT")
    setting(
        "--threads",
        _positive_int,
        "threads per worker for the expensive calls (Equity, Evaluate of more than 500 "
        "hands); the other calls run on the worker's event loop",
    )
    setting(
        "--max-expensive-calls",
        _positive_int,
        "expensive calls a worker holds at once, running or waiting for a thread; more get "
        "RESOURCE_EXHAUSTED",
    )
    setting(
        "--equity-cpu-seconds",
        _positive_float,
        "CPU time one Equity call may use, whatever its deadline: Monte Carlo returns what "
        "it has (complete false)",
    )
    setting(
        "--deal-ticket-seconds",
        _positive_float,
        "how long a deal ticket (CreateDealTicket) is good for; StartHand refuses it after "
        "that (DEAL_TICKET_EXPIRED)",
    )
    add(
        "--key-file",
        default=None,
        help="file of sealing keys, one 'kid:base64key' per line, the first seals (without "
        "it: STUD_SEALING_KEYS, the same specs comma-separated; make one with stud-keygen)",
    )
    add(
        "--dev",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="development mode: with no key configured, use an ephemeral random key",
    )
    add(
        "--allow-test-decks",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="accept StartHand with a chosen deck (and states made that way)",
    )
    add(
        "--max-message-bytes",
        type=_positive_int,
        default=d.max_message_bytes,
        help="largest request accepted, in bytes (default 1 MiB)",
    )
    setting(
        "--max-concurrent-rpcs",
        _positive_int,
        "calls a worker holds at once (health checks aside); more get RESOURCE_EXHAUSTED",
    )
    setting(
        "--max-streams-per-connection",
        _positive_int,
        "HTTP/2 streams (calls) one client connection may have open at once",
    )
    setting(
        "--receive-timeout-seconds",
        _positive_float,
        "how long a call's request may take to arrive in full; a slower one gets DEADLINE_EXCEEDED",
    )
    setting(
        "--grace-seconds",
        _non_negative_float,
        "on SIGTERM, how long calls in flight may take to finish",
    )
    setting(
        "--max-connection-age-seconds",
        _non_negative_float,
        "close client connections after this age so load balancers rebalance; 0 = off",
    )
    add(
        "--reflection",
        action=argparse.BooleanOptionalAction,
        default=d.reflection,
        help="serve gRPC server reflection of the public API (stud.v1 and health); "
        "--no-reflection turns it off (default on)",
    )
    add("--log-level", choices=LOG_LEVELS, default=d.log_level, help="default info")
    setting(
        "--log-queue-lines",
        _positive_int,
        "log lines held for stdout at most; more are dropped and counted "
        "(stud_log_lines_dropped_total)",
    )
    add(
        "--http-port",
        type=_port,
        default=None,
        help="also serve the API over HTTP/1.1 and HTTP/2 (Connect JSON and binary, gRPC-Web) "
        "on this port; 0 picks one (default: off)",
    )
    add("--tls-cert", default=None, help="PEM certificate chain: serve TLS on both ports")
    add("--tls-key", default=None, help="PEM private key of --tls-cert")
    add(
        "--tls-client-ca",
        default=None,
        help="PEM CA certificates: require client certificates signed by them (mTLS)",
    )
    return p


def _env_as_args(parser: argparse.ArgumentParser, environ: Mapping[str, str]) -> list[str]:
    """Turn the ``STUD_*`` variables into flags, placed before the real command line."""
    args: list[str] = []
    for action in parser._actions:  # the parser's own flags, in order
        flags = [s for s in action.option_strings if s.startswith("--") and s != "--help"]
        if not flags or flags[0].startswith("--no-"):
            continue
        name = _env_name(flags[0])
        if name not in environ:
            continue
        text = environ[name]
        if isinstance(action, argparse.BooleanOptionalAction):
            args.append(flags[0] if _parse_bool(name, text) else "--no-" + flags[0][2:])
        else:
            args += [flags[0], text]
    return args


def parse_config(
    argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """Read the configuration; exits with code 2 (argparse) on a malformed flag or variable."""
    env = os.environ if environ is None else environ
    parser = build_parser()
    try:
        from_env = _env_as_args(parser, env)
    except ConfigError as exc:
        parser.error(str(exc))
    ns = parser.parse_args([*from_env, *(argv if argv is not None else sys.argv[1:])])
    return ServerConfig(
        host=ns.host,
        port=ns.port,
        metrics_port=ns.metrics_port,
        workers=ns.workers,
        threads=ns.threads,
        max_expensive_calls=ns.max_expensive_calls,
        equity_cpu_seconds=ns.equity_cpu_seconds,
        deal_ticket_seconds=ns.deal_ticket_seconds,
        key_file=ns.key_file,
        sealing_keys=env.get(KEYS_ENV) or None,
        dev=ns.dev,
        allow_test_decks=ns.allow_test_decks,
        max_message_bytes=ns.max_message_bytes,
        max_concurrent_rpcs=ns.max_concurrent_rpcs,
        max_streams_per_connection=ns.max_streams_per_connection,
        receive_timeout_seconds=ns.receive_timeout_seconds,
        grace_seconds=ns.grace_seconds,
        max_connection_age_seconds=ns.max_connection_age_seconds,
        reflection=ns.reflection,
        log_level=ns.log_level,
        log_queue_lines=ns.log_queue_lines,
        http_port=ns.http_port,
        tls_cert=ns.tls_cert,
        tls_key=ns.tls_key,
        tls_client_ca=ns.tls_client_ca,
    )

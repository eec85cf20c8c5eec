"""Prometheus metrics: the game's own, the gRPC server's, and the multi-process set-up.

Declared once here; with several worker processes prometheus_client's multiprocess mode
(PROMETHEUS_MULTIPROC_DIR, set by ``stud-server`` before this module is first imported)
makes them add up across workers, and the parent process serves the sum.
"""

from __future__ import annotations

import functools
import os
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    start_http_server,
)
from prometheus_client import multiprocess as _multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# ---- gRPC server metrics (the usual names; recorded by api.interceptors) ----------------
GRPC_LABELS = ("grpc_service", "grpc_method", "grpc_type")
GRPC_STARTED = Counter("grpc_server_started", "RPCs started on the server.", GRPC_LABELS)
GRPC_HANDLED = Counter(
    "grpc_server_handled",
    "RPCs completed on the server, whatever their status.",
    (*GRPC_LABELS, "grpc_code"),
)
GRPC_HANDLING_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time from receiving an RPC to its completion on the server.",
    GRPC_LABELS,
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
GRPC_IN_FLIGHT = Gauge(
    "grpc_server_in_flight",
    "RPCs open on the server now: stage receiving (the request has not arrived in full: "
    "a slow or stalled client) or handling.",
    (*GRPC_LABELS, "stage"),
    multiprocess_mode="livesum",
)

# ---- the game's metrics -----------------------------------------------------------------

HANDS_STARTED = Counter("stud_hands_started_total", "Hands started.", ["variant"])
HANDS_FINISHED = Counter("stud_hands_finished_total", "Hands played to the end.", ["variant"])
ACTIONS = Counter("stud_actions_total", "Actions applied.", ["variant", "action"])
RAKE = Counter("stud_rake_chips_total", "Chips taken as rake (R-RAKE).", ["variant"])
REJECTIONS = Counter("stud_rejections_total", "Requests refused, by reason.", ["reason"])
WORK_CANCELLED = Counter(
    "stud_work_cancelled_total",
    "Expensive calls whose work stopped early because the caller cancelled or its deadline passed.",
    ["method"],
)
LOG_LINES_DROPPED = Counter(
    "stud_log_lines_dropped_total",
    "Log lines dropped because the log queue was full (stdout not read fast enough).",
)
STATE_BYTES = Histogram(
    "stud_state_bytes",
    "Size of the sealed state returned, in bytes.",
    buckets=(256, 512, 768, 1024, 1536, 2048, 3072, 4096, 8192),
)


BUILD_INFO = Gauge(
    "stud_build_info",
    "Always 1; the labels say what this server runs: its version, Python, grpcio, protobuf, "
    "connectrpc, the evaluator backend (c or python) and the engine build (mypyc or python).",
    ["version", "python", "grpc", "protobuf", "connectrpc", "evaluator", "engine"],
    multiprocess_mode="max",
)


def record_build_info() -> None:
    from studengine.server.buildinfo import build_info

    BUILD_INFO.labels(**build_info()).set(1)


# The helpers below run on every call: each label set's child is looked up once.
_started_child = functools.cache(HANDS_STARTED.labels)
_finished_child = functools.cache(HANDS_FINISHED.labels)
_action_child = functools.cache(ACTIONS.labels)
_rake_child = functools.cache(RAKE.labels)
_rejection_child = functools.cache(REJECTIONS.labels)
_cancelled_child = functools.cache(WORK_CANCELLED.labels)


def hand_started(variant: str) -> None:
    _started_child(variant).inc()


def hand_finished(variant: str) -> None:
    _finished_child(variant).inc()


def action_taken(variant: str, action: str) -> None:
    _action_child(variant, action).inc()


def rake_taken(variant: str, chips: int) -> None:
    _rake_child(variant).inc(chips)


def rejected(reason: str) -> None:
    """``reason``: bad_request, bad_state, illegal_action, out_of_turn, stale_seq,
    hand_over, hand_not_over (a history asked too early), test_deck_refused, limit (a
    request over a size limit), overloaded (too many expensive calls), cancelled,
    too_many_calls (over --max-concurrent-rpcs), receive_timeout, no_time_left (Equity's
    deadline), draining (a call refused by a server shutting down): the labels of
    ``api.errors`` (``ApiError.metric_label``)."""
    _rejection_child(reason).inc()


def state_size(nbytes: int) -> None:
    STATE_BYTES.observe(nbytes)


def work_cancelled(method: str) -> None:
    _cancelled_child(method).inc()


def log_lines_dropped(count: int) -> None:
    LOG_LINES_DROPPED.inc(count)


# ---- serving the metrics ------------------------------------------------------------------


def multiprocess_mode() -> bool:
    return bool(os.environ.get(MULTIPROC_ENV))


def registry() -> CollectorRegistry:
    """The registry to serve: the sum over workers in multiprocess mode, else this process's."""
    if not multiprocess_mode():
        return REGISTRY
    summed = CollectorRegistry()
    _multiprocess.MultiProcessCollector(summed)  # type: ignore[no-untyped-call]
    return summed


def serve(host: str, port: int) -> WSGIServer:
    """Serve ``/metrics`` over HTTP in a daemon thread; ``server_port`` is the bound port."""
    server, _thread = start_http_server(port, addr=host, registry=registry())
    return server


def mark_process_dead(pid: int) -> None:
    """Forget a dead worker's live-only values (its counters still add to the totals)."""
    if multiprocess_mode():
        _multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]

"""Shared test fixtures and helpers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from support.otlp_receiver import OtlpReceiver
    from support.server_harness import LiveServer

# gRPC's fork handlers (on in grpcio's wheels) restart its pollers in a forked child, which
# then dies when the child closes its descriptors before exec (SIGSEGV, or an abort on a
# "wakeup_fd" check or a failed Kick): grpc/grpc#43055, since grpcio 1.81. Tests fork with
# gRPC busy in their own process (pexpect's pty children after in-process servers and
# channels); every child execs, none uses gRPC after a bare fork, so the handlers are off.
# grpc reads this when it is imported: nothing above imports it.
os.environ["GRPC_ENABLE_FORK_SUPPORT"] = "false"


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Factory of real ``stud-server`` subprocesses on 127.0.0.1 (tests/support/server_harness.py):
    ``live_server(workers=2, allow_test_decks=True, key_specs=[...], args=[...])``. Each is
    waited for (health SERVING) and stopped (SIGTERM) at teardown."""
    from support.server_harness import launch

    started: list[LiveServer] = []

    def start(**kwargs: Any) -> LiveServer:
        server = launch(tmp_path, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def inprocess_server() -> Iterator[Callable[..., str]]:
    """Start real gRPC servers in this process with the API servicer on 127.0.0.1 (free
    port): ``inprocess_server(keyring, allow_test_decks) -> "HOST:PORT"``; all stop after."""
    from support.api_helpers import start_inprocess

    servers = []

    def start(keyring: Any, allow_test_decks: bool) -> str:
        server, target = start_inprocess(keyring, allow_test_decks)
        servers.append(server)
        return target

    yield start
    for server in servers:
        server.stop(grace=None)


@pytest.fixture
def otlp_receiver(monkeypatch: pytest.MonkeyPatch) -> Iterator[OtlpReceiver]:
    """A real OTLP trace receiver on 127.0.0.1 (tests/support/otlp_receiver.py), and the
    OpenTelemetry settings every process started here inherits (request it before
    ``live_server``, so that the servers stop before it does)."""
    from support.otlp_receiver import OtlpReceiver

    with OtlpReceiver() as receiving:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiving.endpoint)
        monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_on")
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # ms: export soon
        yield receiving

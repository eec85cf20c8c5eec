"""Shared test fixtures and helpers."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from server_harness import LiveServer

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("STUD_SHARED", REPO.parent / "shared"))
CONFORMANCE_DIR = SHARED / "conformance"
RULEBOOK = SHARED / "rules" / "stud-rules.md"
IN_CI = os.environ.get("CI", "").lower() == "true"

# Vectors of games and options issue 12 builds (Razz, Stud Hi-Lo, rake): expected to fail
# until then, strictly (an unexpected pass fails, so the marks go when issue 12 lands).
ISSUE_12 = "issue 12: Razz, Seven Card Stud Hi-Lo and rake are not built yet"


def awaits_issue_12(path: Path) -> bool:
    return path.stem.startswith(("7r-", "7h-")) or "-rake-" in path.stem


def vector_params(paths: list[Path]) -> list[Any]:
    """``pytest.param`` per vector file, the issue-12 ones marked strict expected failures."""
    return [
        pytest.param(
            path,
            id=path.stem,
            marks=[pytest.mark.xfail(strict=True, reason=ISSUE_12)]
            if awaits_issue_12(path)
            else [],
        )
        for path in paths
    ]


def require_tool(name: str, how_to_install: str) -> str:
    """Path of a non-Python tool; skip outside CI when missing, fail under CI=true."""
    path = shutil.which(name)
    if path is None:
        for candidate in (REPO / ".tools" / "bin" / name, REPO / "node_modules" / ".bin" / name):
            if candidate.exists():
                return str(candidate)
        message = f"{name} is not installed: {how_to_install}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Factory of real ``stud-server`` subprocesses on 127.0.0.1 (see tests/server_harness.py):
    ``live_server(workers=2, allow_test_decks=True, key_specs=[...], args=[...])``. Each is
    waited for (health SERVING) and stopped (SIGTERM) at teardown."""
    from server_harness import launch

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
    from api_helpers import start_inprocess

    servers = []

    def start(keyring: Any, allow_test_decks: bool) -> str:
        server, target = start_inprocess(keyring, allow_test_decks)
        servers.append(server)
        return target

    yield start
    for server in servers:
        server.stop(grace=None)

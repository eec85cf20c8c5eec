"""The Node.js sample client (clients/node) plays whole hands against a real server and
exits 0 with the chips conserved. Needs node and ``npm ci`` in clients/node (``make
node-client``, which ``make test`` runs): skips without them, fails under CI=true."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

import pytest
from support.paths import IN_CI, REPO, require_tool
from support.server_harness import LiveServer

NODE_DIR = REPO / "clients" / "node"


def node_client() -> str:
    node = require_tool("node", "install Node.js 18+ (Debian: apt-get install nodejs npm)")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        message = "clients/node has no node_modules: run `make node-client` (npm ci there)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return node


def test_node_client_plays_hands_with_chips_conserved(
    live_server: Callable[..., LiveServer],
) -> None:
    node = node_client()
    server = live_server()
    for variant, players, seed in (("seven", 4, 1), ("five", 6, 2), ("seven", 8, 3)):
        proc = subprocess.run(
            [node, "play.js", "--target", server.target, "--variant", variant,
             "--players", str(players), "--seed", str(seed), "--json"],
            cwd=NODE_DIR, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["conserved"] is True
        assert len(result["stacks"]) == players == len(result["start_stacks"])
        assert sum(result["stacks"]) == sum(result["start_stacks"]) == players * 1000
        assert result["actions"] == result["seq"] > 0
        won = sum(share for pot in result["pots"] for share in pot["shares"])
        assert won == sum(pot["amount"] for pot in result["pots"]) > 0
    # the human-readable output
    proc = subprocess.run(
        [node, "play.js", "--target", server.target, "--seed", "4"],
        cwd=NODE_DIR, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "main pot" in proc.stdout
    assert "final stacks:" in proc.stdout
    assert proc.stdout.rstrip().endswith("chips conserved")


def test_node_client_reports_a_dead_target() -> None:
    node = node_client()
    from support.server_harness import free_port

    proc = subprocess.run(
        [node, "play.js", "--target", f"127.0.0.1:{free_port()}"],
        cwd=NODE_DIR, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "gRPC status 14" in proc.stderr  # UNAVAILABLE

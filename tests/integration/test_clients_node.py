"""The TypeScript client (clients/node) plays whole hands against a real server over
gRPC with the chips conserved, retries a dead target with backoff (and reaches a server
that comes up meanwhile), and passes its own unit tests (retries over gRPC, Connect and
gRPC-Web against an in-process Connect server). Needs node and the built client (``make
node-client``, which ``make test`` runs): skips without them, fails under CI=true."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

import pytest
from support.paths import IN_CI, REPO, require_tool
from support.server_harness import LiveServer, free_port

NODE_DIR = REPO / "clients" / "node"
PLAY = NODE_DIR / "dist" / "play.js"


def node_client() -> str:
    node = require_tool("node", "install Node.js 20+ (Debian: apt-get install nodejs npm)")
    if not PLAY.is_file():
        message = "clients/node is not built: run `make node-client`"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return node


def play(node: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node, str(PLAY), *args], cwd=NODE_DIR, capture_output=True, text=True, timeout=120
    )


def test_node_client_plays_hands_with_chips_conserved(
    live_server: Callable[..., LiveServer],
) -> None:
    """R-CONSERVATION, R-RAKE: every hand the client plays, in each of the four games,
    ends with the chips it started with (less the rake on a raked table)."""
    node = node_client()
    server = live_server()
    games = (("seven", 4, 1, 0), ("five", 6, 2, 0), ("seven", 8, 3, 0), ("razz", 5, 4, 500))
    games += (("hilo", 6, 5, 0), ("hilo", 4, 6, 1000))
    for variant, players, seed, rake_bp in games:
        proc = play(node, "--target", server.target, "--transport", "grpc", "--variant", variant,
                    "--players", str(players), "--seed", str(seed), "--json",
                    "--rake-bp", str(rake_bp))  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["conserved"] is True
        assert result["transport"] == "grpc"
        assert len(result["stacks"]) == players == len(result["start_stacks"])
        assert sum(result["stacks"]) + result["rake"] == sum(result["start_stacks"])
        assert sum(result["start_stacks"]) == players * 1000
        assert result["actions"] == result["seq"] > 0
        pots = result["pots"]
        won = sum(sum(pot["shares"]) + sum(pot["low_shares"]) for pot in pots)
        assert won == sum(pot["amount"] for pot in pots) > 0
        if variant != "hilo":
            assert not any(pot["low_winners"] for pot in pots)
    # the human-readable output
    proc = play(node, "--target", server.target, "--seed", "4")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "main pot" in proc.stdout
    assert "final stacks:" in proc.stdout
    assert proc.stdout.rstrip().endswith("chips conserved")


def test_node_client_gives_up_on_a_dead_target_after_bounded_retries() -> None:
    node = node_client()
    proc = play(node, "--target", f"127.0.0.1:{free_port()}", "--attempts", "3",
                "--max-backoff-ms", "50")  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    retries = [line for line in proc.stderr.splitlines() if "failed with UNAVAILABLE" in line]
    assert len(retries) == 2, proc.stderr
    assert "UNAVAILABLE (status 14) after 3 attempts" in proc.stderr


def test_node_client_retries_until_the_server_comes_up(
    live_server: Callable[..., LiveServer],
) -> None:
    """The client starts against a port nobody listens on; once it has retried, a server
    starts there, and the client's next attempt plays the hand."""
    node = node_client()
    port = free_port()
    client = subprocess.Popen(
        [node, str(PLAY), "--target", f"127.0.0.1:{port}", "--json", "--attempts", "200",
         "--max-backoff-ms", "500"],
        cwd=NODE_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert client.stderr is not None
        first = client.stderr.readline()
        assert "StartHand failed with UNAVAILABLE" in first, first
        live_server(args=["--port", str(port)])
        out, err = client.communicate(timeout=120)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
    assert client.returncode == 0, out + first + err
    assert json.loads(out.strip().splitlines()[-1])["conserved"] is True


def test_node_client_unit_tests() -> None:
    node = node_client()
    proc = subprocess.run(
        [node, "--test", "dist/test/"], cwd=NODE_DIR, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "# fail 0" in proc.stdout


def test_node_client_deals_verifiably_and_checks_the_deck(
    live_server: Callable[..., LiveServer],
) -> None:
    """Issue 32: --verifiable asks for a deal ticket, contributes each player's entropy,
    shows the ticket's commitment from the first update, and checks at the end that the
    revealed deck follows from the committed seed, the hand id and the contributions."""
    node = node_client()
    server = live_server()
    for variant, players, seed in (("seven", 4, 7), ("five", 3, 8)):
        proc = play(node, "--target", server.target, "--variant", variant, "--players",
                    str(players), "--seed", str(seed), "--verifiable", "--json")  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["deal_verified"] == "ok"
        assert len(result["deal_commitment"]) == 64
        assert result["conserved"] is True
    proc = play(node, "--target", server.target, "--verifiable")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "deal verified" in proc.stdout
    proc = play(node, "--target", server.target, "--verifiable", "--test-deck", "Ac,Kd")
    assert proc.returncode == 2
    assert "exclude each other" in proc.stderr

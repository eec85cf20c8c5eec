"""The Go sample back-end (clients/go), built from a clean copy of the tree with Debian's
Go packages only (``make go-client``: protoc-gen-go from Debian's sources, the API code
generated from proto/, GOPATH mode, offline), plays the shared fixed-deck hand over gRPC
with the same result as the TypeScript client and a Python client (the same seeded
choices), reads the ErrorInfo of a refused move, and ``make go-play TARGET=...`` plays
one hand and exits 0, and carries a caller's W3C trace context to the engine's spans.
Skips without Go or Node (``make integration`` installs them); fails under CI=true."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.otlp_receiver import OtlpReceiver, ReceivedSpan
from support.paths import IN_CI, REPO, require_tool
from support.polling import poll_until
from support.server_harness import LiveServer
from test_clients_node import node_client, play

Launch = Callable[..., LiveServer]
CARDS = [rank + suit for rank in "23456789TJQKA" for suit in "cdhs"]
DECK = random.Random(21).sample(CARDS, len(CARDS))  # the shared fixed deck
HANDS = (("seven", 4, 4), ("seven", 4, 7), ("five", 3, 2), ("razz", 5, 3), ("hilo", 6, 5))


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make go-client`` in a copy of the tree holding only what git would check out (no
    generated code, no build output): the Go client as a fresh clone builds it."""
    for tool, how in (("go", "golang-go"), ("protoc", "protobuf-compiler"),
                      ("protoc-gen-go-grpc", "protoc-gen-go-grpc")):  # fmt: skip
        require_tool(tool, f"apt-get install {how} (or run `make go-client` as root)")
    tree = tmp_path_factory.mktemp("clean") / "stud-engine"
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            cwd=REPO, capture_output=True, check=True).stdout  # fmt: skip
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, tree / name)
    assert not (tree / "clients" / "go" / "gen").exists()  # generated in the build, never kept
    built = subprocess.run(["make", "-s", "go-client"], cwd=tree, capture_output=True,
                           text=True, timeout=900)  # fmt: skip
    if built.returncode != 0:
        message = "make go-client failed:\n" + built.stdout + built.stderr
        if IN_CI or "apt-get install" not in built.stdout + built.stderr:
            pytest.fail(message)
        pytest.skip(message)
    return tree


def go_play(tree: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(tree / "build" / "go" / "bin" / "go-play"), *args],
                          capture_output=True, text=True, timeout=120)  # fmt: skip


class Mulberry32:
    """The TypeScript client's seeded generator (clients/node/src/hand.ts), in Python."""

    def __init__(self, seed: int) -> None:
        self.a = seed & 0xFFFFFFFF

    def __call__(self) -> float:
        m = 0xFFFFFFFF
        self.a = (self.a + 0x6D2B79F5) & m
        t = self.a
        t = ((t ^ (t >> 15)) * (t | 1)) & m
        t ^= (t + ((t ^ (t >> 7)) * (t | 61))) & m
        return ((t ^ (t >> 14)) & m) / 4294967296


def choose(legal: Any, random_: Mulberry32) -> Any:
    free = any(a.type == pb.ACTION_TYPE_CHECK for a in legal)
    passive = (pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_CALL, pb.ACTION_TYPE_BRING_IN)
    weights = [(0 if free else 0.1) if a.type == pb.ACTION_TYPE_FOLD
               else 1 if a.type in passive else 0.3 for a in legal]  # fmt: skip
    total = 0.0
    for w in weights:
        total += w
    pick = random_() * total
    for action, weight in zip(legal, weights, strict=True):
        pick -= weight
        if pick < 0:
            return action
    return legal[-1]


VARIANTS = {"five": pb.VARIANT_FIVE_CARD_STUD, "seven": pb.VARIANT_SEVEN_CARD_STUD,
            "razz": pb.VARIANT_RAZZ, "hilo": pb.VARIANT_SEVEN_CARD_STUD_HI_LO}  # fmt: skip


def python_play(target: str, variant: str, players: int, seed: int) -> dict[str, Any]:
    """The same hand through the Python API package, as the other two play it."""
    rng = Mulberry32(seed)
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        table = pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)
        hand = stub.StartHand(pb.StartHandRequest(
            variant=VARIANTS[variant], table=table, test_deck=DECK,
            players=[pb.Player(id=f"py-{i}", stack=1000) for i in range(players)],
            button=int(rng() * players)), timeout=30).hand  # fmt: skip
        moves = []
        while not hand.over:
            choice = choose(hand.legal_actions, rng)
            to = {"to": choice.to} if choice.HasField("to") else {}
            seat = hand.to_act
            act = pb.ActRequest(state=hand.state, seat=seat, action=choice.type,
                                expected_seq=hand.seq, **to)  # fmt: skip
            hand = stub.Act(act, timeout=30).hand
            moves.append({"seat": seat, "action": pb.ActionType.Name(choice.type)[12:], **to})
    result = hand.result
    return {
        "button": hand.spectator.button, "seq": hand.seq, "actions": len(moves), "moves": moves,
        "pots": [{"amount": p.amount, "eligible": list(p.eligible), "winners": list(p.winners),
                  "shares": list(p.shares), "low_winners": list(p.low_winners),
                  "low_shares": list(p.low_shares)} for p in result.pots],
        "shown": [{"seat": s.seat, "cards": list(s.cards), "description": s.description,
                   "low_description": s.low_description} for s in result.shown],
        "rake": result.rake, "start_stacks": [1000] * players, "stacks": list(result.stacks),
        "conserved": sum(result.stacks) + result.rake == 1000 * players,
    }  # fmt: skip


def same_result(result: dict[str, Any]) -> dict[str, Any]:
    """What must be equal across clients: all but the hand id (new each hand) and the
    fields one client adds."""
    return {k: v for k, v in result.items() if k not in ("hand_id", "transport", "refusal")}


def hand_args(target: str, variant: str, players: int, seed: int) -> list[str]:
    """The CLI arguments of one shared hand (the same for Go, Java and TypeScript)."""
    return ["--target", target, "--variant", variant, "--players", str(players),
            "--seed", str(seed), "--test-deck", ",".join(DECK), "--json"]  # fmt: skip


def others_result(node: str, target: str, variant: str, players: int, seed: int) -> dict[str, Any]:
    """The shared hand as the TypeScript and the Python clients end it (checked equal)."""
    proc = play(node, *hand_args(target, variant, players, seed), "--transport", "grpc")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_node = same_result(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert by_node == python_play(target, variant, players, seed), (variant, seed)
    return by_node


def check_probe(result: dict[str, Any]) -> None:
    """The move a sample sent out of turn, as it read the refusal's ErrorInfo."""
    refusal = result["refusal"]
    assert (refusal["code"], refusal["reason"]) == ("FAILED_PRECONDITION", "OUT_OF_TURN")
    assert set(refusal["metadata"]) == {"seq", "to_act", "legal"}
    assert refusal["metadata"]["seq"] == "0"


def test_go_client_plays_the_shared_hand_as_the_other_clients_do(
    clean_build: Path, live_server: Launch
) -> None:
    node = node_client()
    server = live_server(allow_test_decks=True)
    for hand in HANDS:
        go = go_play(clean_build, *hand_args(server.target, *hand))
        assert go.returncode == 0, go.stdout + go.stderr
        by_go = json.loads(go.stdout)
        assert by_go["conserved"] is True and by_go["actions"] == by_go["seq"] > 0
        assert same_result(by_go) == others_result(node, server.target, *hand), hand
        check_probe(by_go)


def check_make_play(goal: str, tree: Path, target: str) -> None:
    """``make GOAL TARGET=...`` plays one hand, says how the refused probe read, exits 0."""
    played = subprocess.run(["make", "-s", goal, f"TARGET={target}"], cwd=tree,
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    assert "a move out of turn was refused: OUT_OF_TURN" in played.stdout
    assert played.stdout.rstrip().endswith("chips conserved")


def test_make_go_play_plays_one_hand(clean_build: Path, live_server: Launch) -> None:
    check_make_play("go-play", clean_build, live_server().target)


def test_go_client_reports_a_dead_target(clean_build: Path) -> None:
    """Nobody listens: after the service config's attempts, UNAVAILABLE and exit 2."""
    from support.server_harness import free_port

    proc = go_play(clean_build, "--target", f"127.0.0.1:{free_port()}", "--timeout-ms", "20000")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "code = Unavailable" in proc.stderr


def test_go_client_deals_verifiably_and_checks_the_deck(
    clean_build: Path, live_server: Launch
) -> None:
    """Issue 32: --verifiable asks for a deal ticket, contributes each player's entropy
    (crypto/rand), and at the end finds the revealed seed's SHA-256 to be the commitment
    and the revealed deck the one seed, hand id and contributions make (the build ran the
    Go tests: NIST CAVP count 0 and the documented vector)."""
    server = live_server()
    for variant, players, seed in (("seven", 4, 3), ("razz", 2, 9)):
        args = ["--variant", variant, "--players", str(players), "--seed", str(seed)]
        proc = go_play(clean_build, "--target", server.target, *args, "--verifiable", "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert result["deal_verified"] == "ok"
        assert len(result["deal_commitment"]) == 64
        assert result["conserved"] is True
    proc = go_play(clean_build, "--target", server.target, "--verifiable")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "deal commitment " in proc.stdout and ": ok" in proc.stdout


CALLER_TRACE, CALLER_SPAN = "5e" * 16, "c0" * 8  # the span that go-play's caller is in


def engine_spans(receiver: OtlpReceiver, count: int) -> list[ReceivedSpan]:
    """The engine's call spans, once ``count`` of them have arrived."""

    def arrived() -> list[ReceivedSpan] | None:
        spans = [s for s in receiver.received() if s.name.startswith("stud.v1.StudEngineService/")]
        return spans if len(spans) >= count else None

    return poll_until(arrived, f"{count} spans of the engine's calls", 60, 0.1)


def test_go_client_carries_the_callers_trace_context(
    otlp_receiver: OtlpReceiver,
    clean_build: Path,
    live_server: Launch,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 33: every call of a hand that go-play plays with ``--traceparent`` (its
    context from ``stud.ContextWithTraceparent``, the interceptor's OpenTelemetry W3C
    propagator writing it into the metadata) is a server span whose trace and parent are
    that traceparent's, with its tracestate; the server samples by its parent (the sampled
    flag came too). Without one, each call is the root of a trace of its own; an invalid
    one is refused before any call."""
    monkeypatch.setenv("OTEL_TRACES_SAMPLER", "parentbased_always_on")
    server = live_server()
    traceparent = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"
    proc = go_play(clean_build, "--target", server.target, "--verifiable", "--json",
                   "--traceparent", traceparent, "--tracestate", "stud=go")  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    acts = json.loads(proc.stdout)["actions"] + 1  # the moves and the out-of-turn probe
    spans = engine_spans(otlp_receiver, acts + 2)
    names = Counter(s.name.rsplit("/", 1)[1] for s in spans)
    assert names == {"CreateDealTicket": 1, "StartHand": 1, "Act": acts}, names
    for span in spans:
        assert (span.trace_id, span.parent_id) == (CALLER_TRACE, CALLER_SPAN), span
        assert span.trace_state == "stud=go", span  # the parent's, kept by the server span
        assert span.kind == 2 and span.service == "stud-server"  # SPAN_KIND_SERVER
    assert [s.attributes.get("error.type") for s in spans].count("OUT_OF_TURN") == 1

    proc = go_play(clean_build, "--target", server.target, "--players", "2", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    later = engine_spans(otlp_receiver, len(spans) + 1)[len(spans) :]
    assert all(s.parent_id == "" and s.trace_id != CALLER_TRACE for s in later), later

    for invalid in (traceparent.upper(), f"00-{'0' * 32}-{CALLER_SPAN}-01", traceparent + "-x"):
        proc = go_play(clean_build, "--target", server.target, "--traceparent", invalid)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "not a valid W3C traceparent" in proc.stderr

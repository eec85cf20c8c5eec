"""The one engine client against real gRPC servers on loopback: the service config's
retries (UNAVAILABLE tried again by the channel, CANCELLED never), a method found
UNIMPLEMENTED is not asked again, a dead target fails over to a live one, and every
Python CLI dials a real stud-server over TLS and mTLS (stud-load, stud-conformance's
remote driver, stud-play's table, stud-table's grpc.aio engine)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.client import default_table
from studclients.engine import Dial, Engine, EngineError, SyncEngine, Tls, act_request
from support.certs import CertAuthority, Issued
from support.paths import REPO
from support.server_harness import LiveServer, free_port

BIN = Path(sys.executable).parent
HAND = pb.EvaluateRequest(hands=[pb.CardSet(cards=["Ac", "Kc", "Qc", "Jc", "Tc"])])
VECTORS = [
    REPO.parent / "shared" / "conformance" / f"{name}.json"
    for name in ("5s-worked-example", "7s-rejected-actions", "5s-multiway-side-pots")
]


class Scripted(pb_grpc.StudEngineServiceServicer):
    """Evaluate fails with ``codes`` in turn, then answers; Equity is UNIMPLEMENTED (the
    base servicer's answer). Records each attempt's ``grpc-previous-rpc-attempts``."""

    def __init__(self, codes: list[grpc.StatusCode]) -> None:
        self.codes = list(codes)
        self.attempts: list[str] = []
        self.equity_calls = 0

    def Evaluate(self, request: pb.EvaluateRequest, context: grpc.ServicerContext) -> Any:
        metadata = dict(context.invocation_metadata())
        self.attempts.append(str(metadata.get("grpc-previous-rpc-attempts", "0")))
        if self.codes:
            context.abort(self.codes.pop(0), "scripted failure")
        return pb.EvaluateResponse(values=[pb.HandValue(category="Straight Flush")])

    def Equity(self, request: pb.EquityRequest, context: grpc.ServicerContext) -> Any:
        self.equity_calls += 1
        return super().Equity(request, context)


@pytest.fixture
def scripted() -> Iterator[Callable[[list[grpc.StatusCode]], tuple[Scripted, str]]]:
    servers: list[grpc.Server] = []

    def start(codes: list[grpc.StatusCode]) -> tuple[Scripted, str]:
        servicer = Scripted(codes)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        pb_grpc.add_StudEngineServiceServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return servicer, f"127.0.0.1:{port}"

    yield start
    for server in servers:
        server.stop(grace=None)


UNAVAILABLE, CANCELLED = grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED


def test_the_channel_retries_unavailable_and_never_cancelled(scripted: Any) -> None:
    servicer, target = scripted([UNAVAILABLE, UNAVAILABLE])
    with SyncEngine(Dial((target,))) as engine:
        assert engine.call("Evaluate", HAND).values[0].category == "Straight Flush"
    assert servicer.attempts == ["0", "1", "2"]  # the service config's retries, one call

    servicer, target = scripted([UNAVAILABLE] * 4)
    with SyncEngine(Dial((target,))) as engine, pytest.raises(EngineError) as failed:
        engine.call("Evaluate", HAND)
    assert failed.value.code == "UNAVAILABLE" and len(servicer.attempts) == 4  # maxAttempts

    servicer, target = scripted([CANCELLED])

    async def cancelled() -> str:
        engine = Engine(Dial((target,)))
        try:
            await engine.evaluate(HAND)
        except EngineError as error:
            return error.code
        finally:
            await engine.close()
        return "OK"

    assert asyncio.run(cancelled()) == "CANCELLED"
    assert servicer.attempts == ["0"]  # not retried, by the channel or the client


def test_unimplemented_is_not_asked_again(scripted: Any) -> None:
    servicer, target = scripted([])
    with SyncEngine(Dial((target,))) as engine:
        for _ in range(3):
            with pytest.raises(EngineError) as failed:
                engine.call("Equity", pb.EquityRequest())
            assert failed.value.code == "UNIMPLEMENTED"
        assert engine.call("Evaluate", HAND).values  # other methods still asked
    assert servicer.equity_calls == 1


def test_a_dead_target_fails_over_to_a_live_one(scripted: Any) -> None:
    servicer, live = scripted([])
    dead = f"127.0.0.1:{free_port()}"
    moved: list[str] = []

    class Observer:
        def answered(self, method: str, seconds: float) -> None:
            assert seconds >= 0

        def failed_over(self, method: str, code: str) -> None:
            moved.append(f"{method} {code}")

    async def calls() -> list[str]:
        engine = Engine(Dial((dead, live)), observer=Observer())
        try:
            return [(await engine.evaluate(HAND)).values[0].category for _ in range(4)]
        finally:
            await engine.close()

    assert asyncio.run(calls()) == ["Straight Flush"] * 4
    assert moved == ["Evaluate UNAVAILABLE"]  # then the dead target rests for a second
    assert len(servicer.attempts) == 4


def tls_server(
    live_server: Callable[..., LiveServer], ca: CertAuthority, mtls: bool, *extra: str
) -> LiveServer:
    issued = ca.issue("server", server=True)
    args = ["--tls-cert", str(issued.cert), "--tls-key", str(issued.key), *extra]
    if mtls:
        args += ["--tls-client-ca", str(ca.files.cert)]
    server = live_server(args=args, wait=False)
    server.wait_serving()
    return server


def flags(ca: CertAuthority, client: Issued | None = None) -> list[str]:
    out = ["--tls-ca", str(ca.files.cert)]
    if client is not None:
        out += ["--tls-cert", str(client.cert), "--tls-key", str(client.key)]
    return out


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def test_stud_load_and_stud_conformance_over_tls_and_mtls(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    ca = CertAuthority(tmp_path / "ca")
    server = tls_server(live_server, ca, mtls=False)
    load = [str(BIN / "stud-load"), "--target", server.target, "--hands", "6", "--quiet"]
    done = run(*load, *flags(ca))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "chips conserved 6" in done.stdout
    plain = run(*load, "--duration", "1")
    assert plain.returncode == 1 and "UNAVAILABLE" in plain.stdout  # plaintext to a TLS port

    secured = tls_server(live_server, ca, True, "--allow-test-decks")
    client = ca.issue("client", server=False)
    conformance = [str(BIN / "stud-conformance"), *map(str, VECTORS), "--target", secured.target]
    done = run(*conformance, *flags(ca, client))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(VECTORS)} passed, 0 failed" in done.stdout
    refused = run(*conformance, *flags(ca))  # mTLS: no client certificate
    assert refused.returncode != 0


def test_stud_play_and_stud_tables_engine_over_mtls(
    live_server: Callable[..., LiveServer], tmp_path: Path
) -> None:
    from studclients.play import Game, build_parser

    ca = CertAuthority(tmp_path / "ca")
    server = tls_server(live_server, ca, mtls=True)
    client = ca.issue("client", server=False)
    tls = Tls.from_files(ca.files.cert, client.cert, client.key)
    args = build_parser().parse_args(["--players", "3", "--bots", "station", "--hands", "1"])
    said: list[str] = []

    def passive(prompt: str) -> str:
        return next((k for k in ("k", "c", "i") if f"[{k}]" in prompt), "")

    with SyncEngine(Dial((server.target,), tls)) as engine:
        assert Game(engine, args, read=passive, write=said.append).run() == 0
    assert any(line.startswith("Played 1 hand(s)") for line in said), said

    async def table_engine() -> pb.HandUpdate:  # stud-table's grpc.aio client
        engine = Engine(Dial((server.target,), tls))
        try:
            players = [pb.Player(id=f"p{i}", stack=100) for i in range(2)]
            start = pb.StartHandRequest(
                variant=pb.VARIANT_RAZZ, table=default_table(), players=players
            )
            return await engine.start_hand(start)
        finally:
            await engine.close()

    assert asyncio.run(table_engine()).hand_id


def test_a_refusal_carries_its_errorinfo_reason(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    players = [pb.Player(id=f"p{i}", stack=500) for i in range(2)]
    start = pb.StartHandRequest(variant=pb.VARIANT_SEVEN_CARD_STUD, table=default_table(),
                                players=players)  # fmt: skip
    with SyncEngine(Dial((server.target,))) as engine:
        update = engine.start_hand(start)
        stale = act_request(update.state, update.seq + 1, update.to_act, pb.ACTION_TYPE_FOLD)
        with pytest.raises(EngineError) as refused:
            engine.act(stale)
    assert (refused.value.code, refused.value.reason) == ("ABORTED", "STALE_SEQ")

"""The test processes fork safely while their own gRPC is busy: pexpect's pty children
(stud-play, stud-load's Ctrl-C) are forked from a pytest worker whose earlier tests left
gRPC channels, servers and threads in it. gRPC's fork handlers would restart its pollers
in the child, which then dies before exec (grpc/grpc#43055); tests/conftest.py turns them
off for the tests' processes."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable

import pexpect
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.client import default_table
from studclients.engine import Dial, SyncEngine
from support.server_harness import LiveServer

CHILDREN = 40


def test_pty_children_survive_while_grpc_is_busy_here(
    live_server: Callable[..., LiveServer],
) -> None:
    server = live_server()
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=default_table(),
        players=[pb.Player(id=f"p{i}", stack=500) for i in range(3)],
    )
    stop = threading.Event()
    answered = threading.Event()

    def busy() -> None:
        with SyncEngine(Dial((server.target,))) as engine:
            while not stop.is_set():
                engine.start_hand(request)
                answered.set()

    caller = threading.Thread(target=busy, daemon=True)
    caller.start()
    true = shutil.which("true") or "/bin/true"
    endings = []
    try:
        assert answered.wait(30), "the engine never answered"
        for _ in range(CHILDREN):
            child = pexpect.spawn(true, timeout=30)
            child.expect(pexpect.EOF)
            child.close()
            endings.append((child.exitstatus, child.signalstatus, child.before))
    finally:
        stop.set()
        caller.join(30)
    assert endings == [(0, None, b"")] * CHILDREN

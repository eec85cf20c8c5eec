"""No leak over real gRPC: the leak checks of tests/unit/test_api_leaks.py on hands played
through an in-process server on 127.0.0.1."""

from __future__ import annotations

import pytest
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studengine.api.handlers import Handlers
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, start_inprocess
from support.leaks import LeakChecker, play_hands


@pytest.mark.slow
def test_no_leaks_in_250_random_hands_over_grpc() -> None:
    keyring = KeyRing([new_key("k1")])
    server, target = start_inprocess(keyring, allow_test_decks=False)
    try:
        import grpc

        with grpc.insecure_channel(target) as channel:
            stub = pb_grpc.StudEngineServiceStub(channel)
            checker = LeakChecker(Handlers(keyring, allow_test_decks=False))
            play_hands(
                250,
                7,
                lambda r: stub.StartHand(r, timeout=10).hand,
                lambda r: stub.Act(r, timeout=10).hand,
                checker,
            )
        assert checker.showdowns > 20 and checker.mucked > 3, vars(checker)
    finally:
        server.stop(grace=None)

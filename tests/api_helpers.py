"""Helpers for the API tests: keys, real gRPC servers (in-process and subprocess), random
play through the handlers or a stub, and a scan of every card a message shows.

Run as a script (``python tests/api_helpers.py``) it is a minimal server process: the API
servicer on 127.0.0.1 with a free port (printed as ``PORT <n>`` once serving), keys from
``STUD_TEST_KEYS`` (comma-separated ``kid:base64`` specs), test decks allowed when
``STUD_TEST_DECKS=1``; it stops on SIGTERM.
"""

from __future__ import annotations

import base64
import os
import random
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from studengine.cards import format_card
from studengine.gen.stud.v1 import stud_engine_pb2 as pb
from studengine.state.sealing import KeyRing

REPO = Path(__file__).resolve().parent.parent


def new_key(kid: str) -> tuple[str, bytes]:
    return kid, os.urandom(32)


def spec_of(key: tuple[str, bytes]) -> str:
    return f"{key[0]}:{base64.b64encode(key[1]).decode()}"


def table_7s() -> pb.Table:
    return pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)


def table_5s() -> pb.Table:
    return pb.Table(ante=50, bring_in=50, small_bet=100, big_bet=200)


def random_start(rng: random.Random) -> pb.StartHandRequest:
    """A random legal StartHand request (no test deck)."""
    seven = rng.random() < 0.5
    players = rng.randint(2, 8 if seven else 10)
    stacks = [rng.choice([rng.randint(1, 60), rng.randint(60, 600), 1000]) for _ in range(players)]
    table = table_7s() if seven else table_5s()
    if not seven:
        stacks = [s * 10 for s in stacks]
    if rng.random() < 0.2:
        table.ante = 0
    return pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD if seven else pb.VARIANT_FIVE_CARD_STUD,
        table=table,
        players=[pb.Player(id=f"player-{i}", stack=s) for i, s in enumerate(stacks)],
        button=rng.randrange(players),
    )


def random_act(rng: random.Random, update: pb.HandUpdate) -> pb.ActRequest:
    """A random legal action (or a TIMEOUT now and then) for the seat to act."""
    request = pb.ActRequest(state=update.state, seat=update.to_act, expected_seq=update.seq)
    if rng.random() < 0.05:
        request.action = pb.ACTION_TYPE_TIMEOUT
        return request
    weights = [0.4 if a.type == pb.ACTION_TYPE_FOLD else 1.0 for a in update.legal_actions]
    choice = rng.choices(list(update.legal_actions), weights=weights)[0]
    request.action = choice.type
    if choice.HasField("to"):
        request.to = choice.to
    return request


CARD_INDEX = {format_card(c): c for c in range(52)}
_REPEATED: dict[str, bool] = {}


def _repeated(field: FieldDescriptor) -> bool:
    known = _REPEATED.get(field.full_name)
    if known is None:
        if hasattr(field, "is_repeated"):  # protobuf >= 6
            known = bool(field.is_repeated)
        else:
            known = field.label == field.LABEL_REPEATED
        _REPEATED[field.full_name] = known
    return known


def cards_in(message: Message) -> set[int]:
    """Every card a message shows: any string field, at any depth, that is a card."""
    found: set[int] = set()
    stack = [message]
    while stack:
        current = stack.pop()
        for field, value in current.ListFields():
            many = _repeated(field)
            if field.message_type is not None:
                if many:
                    stack.extend(value)
                else:
                    stack.append(value)
            elif field.type == FieldDescriptor.TYPE_STRING:
                for item in value if many else (value,):
                    card = CARD_INDEX.get(item)
                    if card is not None:
                        found.add(card)
    return found


def start_inprocess(keyring: KeyRing, allow_test_decks: bool) -> tuple[grpc.Server, str]:
    """A real gRPC server in this process on 127.0.0.1 (free port) with the API servicer."""
    from studengine.api.servicer import StudEngineServicer, add_servicer

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    add_servicer(server, StudEngineServicer(keyring, allow_test_decks))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


@contextmanager
def subprocess_server(specs: list[str], allow_test_decks: bool) -> Iterator[str]:
    """A server in its own process (this file run as a script); yields HOST:PORT."""
    env = dict(os.environ)
    env["STUD_TEST_KEYS"] = ",".join(specs)
    env["STUD_TEST_DECKS"] = "1" if allow_test_decks else "0"
    env["PYTHONPATH"] = str(REPO / "service")
    proc = subprocess.Popen([sys.executable, __file__], env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            raise RuntimeError(f"test server did not start: {line!r}")
        yield f"127.0.0.1:{int(line.split()[1])}"
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def call_code(call: Callable[[], object]) -> grpc.StatusCode:
    """The status code of a call (OK when it returns)."""
    try:
        call()
    except grpc.RpcError as error:
        assert isinstance(error, grpc.Call)
        code: grpc.StatusCode = error.code()
        return code
    return grpc.StatusCode.OK


def _serve() -> None:
    from studengine.state.keys import keys_from_env_value

    keyring = KeyRing(keys_from_env_value(os.environ["STUD_TEST_KEYS"]))
    server, target = start_inprocess(keyring, os.environ.get("STUD_TEST_DECKS") == "1")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"PORT {target.rsplit(':', 1)[1]}", flush=True)
    stop.wait()
    server.stop(grace=2).wait()


if __name__ == "__main__":
    _serve()

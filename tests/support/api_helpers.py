"""Helpers for the API tests: keys, a real in-process gRPC server, random play through
the handlers or a stub, and a scan of every card a message shows."""

from __future__ import annotations

import base64
import hashlib
import os
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.rpc import status_pb2
from grpc_status import rpc_status
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.errors import ApiError
from studengine.cards import format_card
from studengine.rules.hand import Hand
from studengine.rules.types import ActionType
from studengine.state.sealing import KeyRing

if TYPE_CHECKING:
    from studengine.server.worker import BackgroundServer


def smallest_size(hand: Hand, action: ActionType) -> int | None:
    """The ``to`` parse_act gave an Act that had none, before it left that to the engine
    (issue 22; the reference): the smaller of two legal sizes (the open-pair round), else
    None."""
    sizes = [a.to for a in hand.legal_actions() if a.type is action and a.to is not None]
    return min(sizes) if len(sizes) > 1 else None


def reference_commitment(hand_id: bytes, salt: bytes, deck: list[int]) -> str:
    """The deck commitment as the API defines it: hex SHA-256 of hand_id || salt || deck."""
    return hashlib.sha256(hand_id + salt + bytes(deck)).hexdigest()


def new_key(kid: str) -> tuple[str, bytes]:
    return kid, os.urandom(32)


def spec_of(key: tuple[str, bytes]) -> str:
    return f"{key[0]}:{base64.b64encode(key[1]).decode()}"


def table_7s() -> pb.Table:
    return pb.Table(ante=5, bring_in=10, small_bet=20, big_bet=40)


def table_5s() -> pb.Table:
    return pb.Table(ante=50, bring_in=50, small_bet=100, big_bet=200)


SEVEN_CARD_GAMES = (
    pb.VARIANT_SEVEN_CARD_STUD,
    pb.VARIANT_RAZZ,
    pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
)


def random_start(rng: random.Random) -> pb.StartHandRequest:
    """A random legal StartHand request of any of the four games (no test deck), raked
    now and then."""
    seven = rng.random() < 0.5
    players = rng.randint(2, 8 if seven else 10)
    stacks = [rng.choice([rng.randint(1, 60), rng.randint(60, 600), 1000]) for _ in range(players)]
    table = table_7s() if seven else table_5s()
    if not seven:
        stacks = [s * 10 for s in stacks]
    if rng.random() < 0.2:
        table.ante = 0
    variant = rng.choice(SEVEN_CARD_GAMES) if seven else pb.VARIANT_FIVE_CARD_STUD
    if rng.random() < 0.3:  # R-RAKE
        table.rake_percent_bp = rng.choice([250, 500, 1000])
        table.rake_cap = rng.choice([0, 30])
    return pb.StartHandRequest(
        variant=variant,
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


def is_repeated(field: Any) -> bool:
    """Whether a field descriptor's field is repeated, on every protobuf the package
    declares: ``is_repeated`` from protobuf 6 (which later drops ``label``), ``label``
    before it (4.25, the floor)."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return bool(field.label == FieldDescriptor.LABEL_REPEATED)


CARD_INDEX = {format_card(c): c for c in range(52)}
_SKIP, _MESSAGE, _MESSAGES, _STRING, _STRINGS = range(5)
_KINDS: dict[FieldDescriptor, int] = {}


def _kind(field: FieldDescriptor) -> int:
    kind = _KINDS.get(field)
    if kind is None:
        many = is_repeated(field)
        if field.message_type is not None:
            kind = _MESSAGES if many else _MESSAGE
        elif field.type == FieldDescriptor.TYPE_STRING:
            kind = _STRINGS if many else _STRING
        else:
            kind = _SKIP
        _KINDS[field] = kind
    return kind


def cards_in(message: Message) -> set[int]:
    """Every card a message shows: any string field, at any depth, that is a card."""
    found: set[int] = set()
    stack = [message]
    index = CARD_INDEX
    while stack:
        for field, value in stack.pop().ListFields():
            kind = _kind(field)
            if kind == _STRINGS:
                found.update(index[v] for v in value if v in index)
            elif kind == _STRING:
                if value in index:
                    found.add(index[value])
            elif kind == _MESSAGES:
                stack.extend(value)
            elif kind == _MESSAGE:
                stack.append(value)
    return found


def start_inprocess(keyring: KeyRing, allow_test_decks: bool) -> tuple[BackgroundServer, str]:
    """A real gRPC server in this process on 127.0.0.1 (free port) with the API servicer:
    the server's own listener on an event loop thread; ``stop()`` it after."""
    from studengine.server.config import ServerConfig
    from studengine.server.worker import BackgroundServer

    config = ServerConfig(port=0, allow_test_decks=allow_test_decks)
    server = BackgroundServer(config, keyring)
    return server, f"127.0.0.1:{server.port}"


def call_code(call: Callable[[], object]) -> grpc.StatusCode:
    """The status code of a call (OK when it returns)."""
    try:
        call()
    except grpc.RpcError as error:
        assert isinstance(error, grpc.Call)
        code: grpc.StatusCode = error.code()
        return code
    return grpc.StatusCode.OK


def status_as_received(status: grpc.Status) -> status_pb2.Status:
    """The ``google.rpc.Status`` a client reads (``rpc_status.from_call``) from a server's
    ``grpc.Status``: what travels in its trailing metadata."""

    class Received:
        def trailing_metadata(self) -> object:
            return status.trailing_metadata

        def code(self) -> grpc.StatusCode:
            return status.code

        def details(self) -> str:
            return status.details

    rich = rpc_status.from_call(Received())  # type: ignore[arg-type]
    assert rich is not None, "no rich status in the trailing metadata"
    return rich


def refused(call: object, *args: object) -> ApiError:
    """The ``ApiError`` that ``call(*args)`` raises (it must raise one)."""
    with pytest.raises(ApiError) as error:
        call(*args)  # type: ignore[operator]
    return error.value

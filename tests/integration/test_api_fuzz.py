"""Fuzzing a live stud-server (hypothesis): thousands of random and mutated requests get
only OK, INVALID_ARGUMENT, FAILED_PRECONDITION or ABORTED (never INTERNAL or UNKNOWN),
and the server stays up."""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest
from grpc_health.v1 import health_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from support.api_helpers import random_start, table_7s
from support.server_harness import LiveServer

ALLOWED = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ABORTED,
}
METHODS = ("StartHand", "Act", "GetView", "Evaluate", "Equity", "GetHandHistory")
CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]

ints = st.one_of(
    st.integers(-3, 12),
    st.integers(-(2**31), 2**31 - 1),
    st.sampled_from([0, 1, 2**31 - 1, -(2**31)]),
)
big = st.one_of(ints, st.integers(-(2**63), 2**63 - 1))
card_text = st.one_of(st.sampled_from(CARDS), st.text(max_size=4))
cards = st.lists(card_text, max_size=9)


@st.composite
def tables(draw: st.DrawFn) -> pb.Table:
    table = pb.Table(ante=draw(big), bring_in=draw(big), small_bet=draw(big), big_bet=draw(big))
    if draw(st.booleans()):
        table.max_bets = draw(ints)
    table.odd_chip = draw(st.integers(0, 4))
    return table


@st.composite
def start_requests(draw: st.DrawFn) -> pb.StartHandRequest:
    if draw(st.booleans()):  # near-valid: a real request with one thing changed
        request = random_start(draw(st.randoms(use_true_random=False)))
        which = draw(st.integers(0, 4))
        if which == 0:
            request.players[0].stack = draw(big)
        elif which == 1:
            request.button = draw(ints)
        elif which == 2:
            request.test_deck.extend(draw(cards))
        elif which == 3:
            request.table.CopyFrom(draw(tables()))
        return request
    players = draw(st.lists(st.builds(pb.Player, id=st.text(max_size=70), stack=big), max_size=12))
    return pb.StartHandRequest(
        variant=draw(st.integers(0, 3)),
        table=draw(tables()),
        players=players,
        button=draw(ints),
        test_deck=draw(cards),
    )


@st.composite
def states(draw: st.DrawFn, real: list[bytes]) -> bytes:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return draw(st.binary(max_size=400))
    state = bytearray(draw(st.sampled_from(real)))
    if kind == 1:
        return bytes(state)
    if kind == 2:
        position = draw(st.integers(0, len(state) - 1))
        state[position] ^= draw(st.integers(1, 255))
        return bytes(state)
    return bytes(state[: draw(st.integers(0, len(state)))])


def fuzz_requests(real: list[bytes]) -> st.SearchStrategy[tuple[str, object]]:
    act = st.builds(
        lambda state, seat, action, to, seq: pb.ActRequest(
            state=state, seat=seat, action=action, **to, **seq
        ),
        states(real),
        ints,
        st.integers(0, 10),
        st.one_of(st.just({}), big.map(lambda v: {"to": v})),
        st.one_of(st.just({}), st.integers(0, 2**64 - 1).map(lambda v: {"expected_seq": v})),
    )
    view = st.builds(
        lambda state, seat: pb.GetViewRequest(state=state, **seat),
        states(real),
        st.one_of(st.just({}), ints.map(lambda v: {"seat": v})),
    )
    history = st.builds(
        lambda state, audience: pb.GetHandHistoryRequest(state=state, audience=audience),
        states(real),
        st.integers(0, 3),
    )
    evaluate = st.builds(
        lambda hands: pb.EvaluateRequest(hands=[pb.CardSet(cards=h) for h in hands]),
        st.lists(cards, max_size=4),
    )
    equity = st.builds(
        lambda variant, players, dead, samples, street: pb.EquityRequest(
            variant=variant,
            players=[pb.EquityPlayer(up_cards=u, down_cards=d) for u, d in players],
            dead_cards=dead,
            samples=samples,
            **street,
        ),
        st.integers(0, 3),
        st.lists(st.tuples(cards, st.lists(card_text, max_size=3)), max_size=4),
        st.lists(card_text, max_size=4),
        st.sampled_from([0, 1, 500, 10**7]),
        st.one_of(st.just({}), ints.map(lambda v: {"street": v})),
    )
    raw = st.tuples(st.sampled_from(METHODS), st.binary(max_size=300))
    return st.one_of(
        start_requests().map(lambda r: ("StartHand", r)),
        act.map(lambda r: ("Act", r)),
        view.map(lambda r: ("GetView", r)),
        evaluate.map(lambda r: ("Evaluate", r)),
        equity.map(lambda r: ("Equity", r)),
        history.map(lambda r: ("GetHandHistory", r)),
        raw.map(lambda pair: (pair[0], pair[1])),
    )


@pytest.mark.slow
def test_fuzzing_a_live_server(live_server: Callable[..., LiveServer]) -> None:
    server = live_server(allow_test_decks=True)
    codes: dict[grpc.StatusCode, int] = {}
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        real = []
        update = stub.StartHand(
            pb.StartHandRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD,
                table=table_7s(),
                players=[pb.Player(id=f"player-{i}", stack=500) for i in range(3)],
            ),
            timeout=10,
        ).hand
        real.append(update.state)
        while not update.over:
            action = update.legal_actions[-1]
            request = pb.ActRequest(state=update.state, seat=update.to_act, action=action.type)
            update = stub.Act(request, timeout=10).hand
            real.append(update.state)
        raw_calls = {m: channel.unary_unary(f"/stud.v1.StudEngineService/{m}") for m in METHODS}

        @settings(
            max_examples=2000,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(fuzz_requests(real))
        def send(call: tuple[str, object]) -> None:
            method, request = call
            try:
                if isinstance(request, bytes):
                    raw_calls[method](request, timeout=10)
                else:
                    getattr(stub, method)(request, timeout=10)
                code = grpc.StatusCode.OK
            except grpc.RpcError as error:
                assert isinstance(error, grpc.Call)
                code = error.code()
                assert code in ALLOWED, f"{method} answered {code}: {error.details()}"
            codes[code] = codes.get(code, 0) + 1

        send()
    assert server.health() == health_pb2.HealthCheckResponse.SERVING
    assert server.proc.poll() is None  # still running
    assert sum(codes.values()) >= 1500 and len(codes) >= 3, codes
    print("fuzz status codes:", {c.name: n for c, n in codes.items()})

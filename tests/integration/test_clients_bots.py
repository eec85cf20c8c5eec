"""The sample bots against a real server: every move they pick is legal, the calling
station never folds or raises, the equity bot decides from Equity or falls back to
Evaluate; and stud-play's one-key choices for the legal actions."""

from __future__ import annotations

import random
from collections.abc import Callable

import grpc
from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.bots import (
    Bot,
    EquityBot,
    act_request,
    local_low_strength,
    local_strength,
    make_bot,
    strength_sync,
)
from studclients.client import chips_conserved, default_table
from studclients.play import action_options
from support.server_harness import LiveServer

AGGRESSIVE = {pb.ACTION_TYPE_BET, pb.ACTION_TYPE_RAISE, pb.ACTION_TYPE_COMPLETE}

GAMES = (
    pb.VARIANT_FIVE_CARD_STUD,
    pb.VARIANT_SEVEN_CARD_STUD,
    pb.VARIANT_RAZZ,
    pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
)


def play(
    stub: pb_grpc.StudEngineServiceStub, bots: list[Bot], variant: int, rng: random.Random
) -> tuple[pb.HandUpdate, list[pb.ActionTaken]]:
    stacks = [rng.choice([1000, 1000, rng.randint(5, 120)]) for _ in bots]
    update = stub.StartHand(
        pb.StartHandRequest(
            variant=variant,  # type: ignore[arg-type]
            table=default_table(),
            players=[pb.Player(id=f"p{i}", stack=s) for i, s in enumerate(stacks)],
            button=rng.randrange(len(bots)),
        ),
        timeout=10,
    ).hand
    taken: list[pb.ActionTaken] = []
    while not update.over:
        seat = update.to_act
        view = update.seats[seat]
        bot = bots[seat]
        strength = strength_sync(
            bot, view, seat, lambda q: stub.Equity(q, timeout=10), lambda q: stub.Evaluate(q)
        )
        decision = bot.decide(view, seat, update.legal_actions, strength)
        legal = {(a.type, a.to if a.HasField("to") else None) for a in update.legal_actions}
        assert (decision.action, decision.to) in legal
        update = stub.Act(act_request(update, decision), timeout=10).hand
        taken += [e.action_taken for e in update.spectator.events if e.HasField("action_taken")]
    assert chips_conserved(stacks, update)
    return update, taken


def test_bots_play_only_legal_moves(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        for kind in ("random", "station", "equity"):
            rng = random.Random(kind)
            for index in range(10):
                variant = GAMES[index % len(GAMES)]
                seats = rng.randint(2, 6)
                bots = [make_bot(kind, random.Random(rng.random())) for _ in range(seats)]
                _, taken = play(stub, bots, variant, rng)
                if kind == "station":
                    assert not [t for t in taken if t.type == pb.ACTION_TYPE_FOLD]
                    assert not [t for t in taken if t.type in AGGRESSIVE]


def test_equity_bot_asks_the_server(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    asked: list[str] = []
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)

        def equity(q: pb.EquityRequest) -> pb.EquityResponse:
            asked.append("Equity")
            assert q.players[0].down_cards  # its own down cards, the others' up cards only
            assert all(not p.down_cards for p in q.players[1:])
            return stub.Equity(q, timeout=10)

        def evaluate(q: pb.EvaluateRequest) -> pb.EvaluateResponse:
            asked.append("Evaluate")
            return stub.Evaluate(q, timeout=10)

        bot = EquityBot(random.Random(5))
        update = stub.StartHand(
            pb.StartHandRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD,
                table=default_table(),
                players=[pb.Player(id=f"p{i}", stack=1000) for i in range(2)],
                button=0,
            )
        ).hand
        while not update.over:
            seat = update.to_act
            strength = strength_sync(bot, update.seats[seat], seat, equity, evaluate)
            assert strength is not None and 0.0 <= strength <= 1.0
            decision = bot.decide(update.seats[seat], seat, update.legal_actions, strength)
            update = stub.Act(act_request(update, decision)).hand
    assert asked and asked[0] == "Equity"
    if not bot.equity_available:  # the server has no Equity: later decisions used Evaluate
        assert "Equity" not in asked[1:]
        assert "Evaluate" in asked
    else:
        assert set(asked) == {"Equity"}


def test_equity_bot_falls_back_when_the_call_fails() -> None:
    class Unimplemented(grpc.RpcError):
        def code(self) -> grpc.StatusCode:
            return grpc.StatusCode.UNIMPLEMENTED

    def equity(_q: pb.EquityRequest) -> pb.EquityResponse:
        raise Unimplemented()

    evaluated: list[list[str]] = []

    def evaluate(q: pb.EvaluateRequest) -> pb.EvaluateResponse:
        evaluated.append(list(q.hands[0].cards))
        return pb.EvaluateResponse(values=[pb.HandValue(rank=1, category="Full House")])

    view = pb.View(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        pot=100,
        seats=[
            pb.SeatInfo(seat=0, cards=["Ah", "Ad", "As", "Kd", "Kc"], up_cards=["As", "Kd", "Kc"],
                        down_cards=["Ah", "Ad"]),
            pb.SeatInfo(seat=1, cards=["", "", "2c", "7d", "9h"], up_cards=["2c", "7d", "9h"]),
        ],
    )  # fmt: skip
    bot = EquityBot(random.Random(1))
    strength = strength_sync(bot, view, 0, equity, evaluate)
    assert not bot.equity_available
    assert evaluated == [["Ah", "Ad", "As", "Kd", "Kc"]]
    assert strength is not None and strength > 0.9
    legal = [
        pb.LegalAction(type=pb.ACTION_TYPE_CHECK),
        pb.LegalAction(type=pb.ACTION_TYPE_BET, to=40),
    ]
    assert bot.decide(view, 0, legal, strength).action == pb.ACTION_TYPE_BET
    # before five cards are known it decides from a local rule, without a call
    early = pb.View(seats=[pb.SeatInfo(seat=0, cards=["2c", "7d", "9h"]), view.seats[1]])
    assert bot.evaluate_request(early, 0) is None


def test_local_strength_orders_hands() -> None:
    assert local_strength(["Ah", "Ad", "As"], 1) > local_strength(["Kh", "Kd", "2s"], 1)
    assert local_strength(["Kh", "Kd", "2s"], 1) > local_strength(["Kh", "9d", "2s"], 1)
    assert local_strength(["Kh", "Kd", "2s"], 3) < local_strength(["Kh", "Kd", "2s"], 1)


def test_action_options_keys() -> None:
    legal = [
        pb.LegalAction(type=pb.ACTION_TYPE_FOLD),
        pb.LegalAction(type=pb.ACTION_TYPE_CALL, to=20),
        pb.LegalAction(type=pb.ACTION_TYPE_RAISE, to=40),
    ]
    options = action_options(legal, round_bet=0)
    assert [o.label for o in options] == ["[f]old", "[c]all 20", "[r]aise to 40"]
    # the open-pair round: two bet sizes, the larger on the capital key
    two = [
        pb.LegalAction(type=pb.ACTION_TYPE_CHECK),
        pb.LegalAction(type=pb.ACTION_TYPE_BET, to=40),
        pb.LegalAction(type=pb.ACTION_TYPE_BET, to=20),
    ]
    options = action_options(two, round_bet=0)
    assert [(o.key, o.label) for o in options] == [
        ("k", "chec[k]"),
        ("b", "[b]et 20"),
        ("B", "[B]et 40"),
    ]
    assert options[2].decision.to == 40
    # a call shows what it costs, not the round total
    options = action_options([pb.LegalAction(type=pb.ACTION_TYPE_CALL, to=30)], round_bet=10)
    assert options[0].label == "[c]all 20"


def test_equity_request_with_the_community_card(live_server: Callable[..., LiveServer]) -> None:
    """Eight calling stations run out of cards: seventh street is a community card, and
    the equity bot's request for that spot is one the server answers."""
    server = live_server()
    bots: list[Bot] = [make_bot("station", random.Random(i)) for i in range(8)]
    asker = EquityBot(random.Random(8))
    answered = []
    with server.channel() as channel:
        stub = pb_grpc.StudEngineServiceStub(channel)
        update = stub.StartHand(
            pb.StartHandRequest(
                variant=pb.VARIANT_SEVEN_CARD_STUD,
                table=default_table(),
                players=[pb.Player(id=f"p{i}", stack=1000) for i in range(8)],
                button=0,
            )
        ).hand
        while not update.over:
            seat = update.to_act
            view = update.seats[seat]
            request = asker.equity_request(view, seat)
            assert request is not None and len(request.players) == 8
            assert request.street == len([c for c in view.seats[seat].cards if c]) or (
                request.HasField("community_card")
            )
            if view.HasField("community_card"):
                assert request.community_card == view.community_card
                answer = stub.Equity(request, timeout=30)
                answered.append(answer)
            decision = bots[seat].decide(view, seat, update.legal_actions)
            update = stub.Act(act_request(update, decision)).hand
    assert answered  # every station reached seventh street
    for answer in answered:
        assert len(answer.players) == 8
        assert abs(sum(p.equity for p in answer.players) - 1.0) < 1e-6


def test_razz_fallback_ranks_lows(live_server: Callable[..., LiveServer]) -> None:
    """In Razz the equity bot's fallback asks Evaluate for the ace-to-five low (R-LOW-A5)
    and judges a low by its top card; before five cards, by its distinct low cards."""
    bot = EquityBot(random.Random(3))
    view = pb.View(
        variant=pb.VARIANT_RAZZ,
        seats=[
            pb.SeatInfo(seat=0, cards=["Ac", "2d", "3h", "6s", "7c"]),
            pb.SeatInfo(seat=1, up_cards=["Kd", "Qs", "Jh"]),
        ],
    )
    request = bot.evaluate_request(view, 0)
    assert request is not None and request.ranking == pb.HAND_RANKING_ACE_TO_FIVE_LOW
    server = live_server()
    with server.channel() as channel:
        answer = pb_grpc.StudEngineServiceStub(channel).Evaluate(request, timeout=10)
    assert answer.values[0].description == "7-6-3-2-A low"
    strong = bot.strength_from_evaluate(answer, view, 0)
    paired = pb.EvaluateResponse(values=[pb.HandValue(category="One Pair", description="x")])
    assert strong > bot.strength_from_evaluate(paired, view, 0)
    assert local_low_strength(["Ac", "2d", "3h"], 1) > local_low_strength(["Kc", "Kd", "3h"], 1)

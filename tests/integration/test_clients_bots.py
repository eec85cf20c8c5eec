"""The sample bots against a real server: every move they pick is legal, the calling
station never folds or raises, the equity bot decides from Equity or falls back to
Evaluate (the one ``think`` every client uses; after UNIMPLEMENTED it asks no more); and
stud-play's one-key choices for the legal actions."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb
from stud_api.stud.v1 import stud_engine_pb2_grpc as pb_grpc
from studclients.bots import (
    Bot,
    EquityBot,
    local_low_strength,
    local_strength,
    make_bot,
    think,
    think_sync,
)
from studclients.client import chips_conserved, default_table
from studclients.engine import Dial, EngineError, SyncEngine, act_request
from studclients.play import action_options
from support.server_harness import LiveServer

AGGRESSIVE = {pb.ACTION_TYPE_BET, pb.ACTION_TYPE_RAISE, pb.ACTION_TYPE_COMPLETE}

GAMES = (
    pb.VARIANT_FIVE_CARD_STUD,
    pb.VARIANT_SEVEN_CARD_STUD,
    pb.VARIANT_RAZZ,
    pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
)


class Asked:
    """The engine observer that lists the methods answered."""

    def __init__(self) -> None:
        self.methods: list[str] = []

    def answered(self, method: str, seconds: float) -> None:
        self.methods.append(method)

    def failed_over(self, method: str, code: str) -> None:
        raise AssertionError(f"one target: no failover ({method} {code})")


def seven_card_stud(players: int) -> pb.StartHandRequest:
    return pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=default_table(),
        players=[pb.Player(id=f"p{i}", stack=1000) for i in range(players)],
        button=0,
    )


def move(update: pb.HandUpdate, decision: Any) -> pb.ActRequest:
    return act_request(update.state, update.seq, update.to_act, decision.action, decision.to)


def play(
    engine: SyncEngine, bots: list[Bot], variant: int, rng: random.Random
) -> tuple[pb.HandUpdate, list[pb.ActionTaken]]:
    stacks = [rng.choice([1000, 1000, rng.randint(5, 120)]) for _ in bots]
    update = engine.start_hand(
        pb.StartHandRequest(
            variant=variant,  # type: ignore[arg-type]
            table=default_table(),
            players=[pb.Player(id=f"p{i}", stack=s) for i, s in enumerate(stacks)],
            button=rng.randrange(len(bots)),
        )
    )
    taken: list[pb.ActionTaken] = []
    while not update.over:
        seat = update.to_act
        decision = think_sync(bots[seat], update.seats[seat], seat, update.legal_actions, engine)
        legal = {(a.type, a.to if a.HasField("to") else None) for a in update.legal_actions}
        assert (decision.action, decision.to) in legal
        update = engine.act(move(update, decision))
        taken += [e.action_taken for e in update.spectator.events if e.HasField("action_taken")]
    assert chips_conserved(stacks, update)
    return update, taken


def test_bots_play_only_legal_moves(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    with SyncEngine(Dial((server.target,))) as engine:
        for kind in ("random", "station", "equity"):
            rng = random.Random(kind)
            for index in range(10):
                variant = GAMES[index % len(GAMES)]
                seats = rng.randint(2, 6)
                bots = [make_bot(kind, random.Random(rng.random())) for _ in range(seats)]
                _, taken = play(engine, bots, variant, rng)
                if kind == "station":
                    assert not [t for t in taken if t.type == pb.ACTION_TYPE_FOLD]
                    assert not [t for t in taken if t.type in AGGRESSIVE]


def test_equity_bot_asks_the_server(live_server: Callable[..., LiveServer]) -> None:
    server = live_server()
    asked = Asked()
    bot = EquityBot(random.Random(5))
    with SyncEngine(Dial((server.target,)), observer=asked) as engine:
        update = engine.start_hand(seven_card_stud(2))
        while not update.over:
            seat = update.to_act
            view, legal = update.seats[seat], update.legal_actions
            request = bot.equity_request(view, seat)
            assert request is not None and request.players[0].down_cards
            assert all(not p.down_cards for p in request.players[1:])  # the others' up cards
            decision = think_sync(bot, view, seat, legal, engine)
            update = engine.act(move(update, decision))
    assert asked.methods[:2] == ["StartHand", "Equity"]
    assert "Evaluate" not in asked.methods  # the dev server has Equity: no fallback
    assert asked.methods.count("Equity") == asked.methods.count("Act")


class NoEquity:
    """An engine whose Equity is UNIMPLEMENTED (reported once, then remembered, as
    ``studclients.engine`` does: test_clients_engine), with an Evaluate that answers a full
    house."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.unimplemented: set[str] = set()

    def call(self, method: str, request: Any) -> Any:
        if method in self.unimplemented:
            raise EngineError(method, "UNIMPLEMENTED", "remembered")
        self.calls.append(method)
        if method == "Equity":
            self.unimplemented.add(method)
            raise EngineError(method, "UNIMPLEMENTED", "no Equity here")
        assert list(request.hands[0].cards) == ["Ah", "Ad", "As", "Kd", "Kc"]
        return pb.EvaluateResponse(values=[pb.HandValue(rank=1, category="Full House")])


def test_equity_bot_falls_back_when_the_call_fails_and_stops_asking() -> None:
    view = pb.View(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        pot=100,
        seats=[
            pb.SeatInfo(seat=0, cards=["Ah", "Ad", "As", "Kd", "Kc"], up_cards=["As", "Kd", "Kc"],
                        down_cards=["Ah", "Ad"]),
            pb.SeatInfo(seat=1, cards=["", "", "2c", "7d", "9h"], up_cards=["2c", "7d", "9h"]),
        ],
    )  # fmt: skip
    legal = [
        pb.LegalAction(type=pb.ACTION_TYPE_CHECK),
        pb.LegalAction(type=pb.ACTION_TYPE_BET, to=40),
    ]
    engine = NoEquity()
    for _ in range(3):  # a new bot each time, as stud-table makes them: the engine remembers
        bot = EquityBot(random.Random(1))
        decision = think_sync(bot, view, 0, legal, engine)  # type: ignore[arg-type]
        assert decision.action == pb.ACTION_TYPE_BET  # a full house bets
    assert engine.calls == ["Equity", "Evaluate", "Evaluate", "Evaluate"]

    class AsyncNoEquity(NoEquity):
        async def call(self, method: str, request: Any) -> Any:  # type: ignore[override]
            return NoEquity.call(self, method, request)

    async_engine, fallbacks = AsyncNoEquity(), list[str]()
    for _ in range(2):
        bot = EquityBot(random.Random(1))
        thinking = think(bot, view, 0, legal, async_engine, fallbacks.append)  # type: ignore[arg-type]
        assert asyncio.run(thinking).action == pb.ACTION_TYPE_BET
    assert async_engine.calls == ["Equity", "Evaluate", "Evaluate"]
    assert fallbacks == ["UNIMPLEMENTED"] * 2  # stud-load counts each fallback
    # before five cards are known it decides from a local rule, without a call
    early = pb.View(seats=[pb.SeatInfo(seat=0, cards=["2c", "7d", "9h"]), view.seats[1]])
    assert EquityBot(random.Random(1)).evaluate_request(early, 0) is None


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
        update = stub.StartHand(seven_card_stud(8)).hand
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
            update = stub.Act(move(update, decision)).hand
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

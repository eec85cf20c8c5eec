"""The API handlers of the calculators without gRPC: Evaluate (high, ace-to-five and
eight-or-better rankings, its categories and refusals) and Equity (each game's own
showdown, the call's deadline)."""

from __future__ import annotations

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api.handlers import Handlers
from studengine.api.requests import MAX_EVALUATE_BATCH
from studengine.cards import parse_cards
from studengine.state.sealing import KeyRing
from support.api_helpers import new_key, refused


@pytest.fixture
def handlers() -> Handlers:
    return Handlers(KeyRing([new_key("k1")]), allow_test_decks=True)


def test_evaluate(handlers: Handlers) -> None:
    request = pb.EvaluateRequest(
        hands=[
            pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"]),
            pb.CardSet(cards=["2c", "2d", "9h", "9s", "Kc", "3d"]),
            pb.CardSet(cards=["Ac", "2d", "3h", "4s", "5c", "9d", "Jh"]),
        ]
    )
    values = handlers.evaluate(request).values
    assert [v.category for v in values] == ["Straight Flush", "Two Pair", "Straight"]
    assert values[0].rank > values[2].rank > values[1].rank
    assert values[1].description.startswith("Two Pair")
    for cards, field in [(["As"] * 5, "hands[0].cards"), (["As", "Kd"], "hands[0].cards")]:
        error = refused(handlers.evaluate, pb.EvaluateRequest(hands=[pb.CardSet(cards=cards)]))
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.violations[0][0] == field
    too_many = pb.EvaluateRequest(
        hands=[pb.CardSet(cards=["As", "Ks", "Qs", "Js", "Ts"])] * (MAX_EVALUATE_BATCH + 1)
    )
    assert refused(handlers.evaluate, too_many).code == grpc.StatusCode.INVALID_ARGUMENT


def test_equity_refuses_when_no_time_is_left(handlers: Handlers) -> None:
    request = pb.EquityRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        players=[pb.EquityPlayer(up_cards=["As"]), pb.EquityPlayer(up_cards=["Kd"])],
    )
    error = refused(handlers.equity, request, 0.01)
    assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert handlers.equity(request, 30.0).samples > 0


@pytest.mark.parametrize(
    ("ranking", "cards", "rank", "category", "description"),
    [
        (
            pb.HAND_RANKING_ACE_TO_FIVE_LOW,
            ["8s", "5d", "4c", "3h", "2s"],
            None,
            "Low",
            "8-5-4-3-2 low",
        ),
        (pb.HAND_RANKING_ACE_TO_FIVE_LOW, ["Ks", "Kd", "4c", "3h", "As"], None, "One Pair", None),
        (
            pb.HAND_RANKING_EIGHT_OR_BETTER_LOW,
            ["9s", "5d", "4c", "3h", "2s"],
            0,
            "No Low",
            "No qualifying low",
        ),
        (
            pb.HAND_RANKING_EIGHT_OR_BETTER_LOW,
            ["Ac", "2d", "3h", "4s", "5c", "Kd", "Kh"],
            None,
            "Low",
            "5-4-3-2-A low",
        ),
        (
            pb.HAND_RANKING_HIGH,
            ["Ac", "2d", "3h", "4s", "5c"],
            None,
            "Straight",
            "Straight, Five High",
        ),
    ],
)
def test_evaluate_ranks_high_or_low(
    handlers: Handlers,
    ranking: int,
    cards: list[str],
    rank: int | None,
    category: str,
    description: str | None,
) -> None:
    """Evaluate ranks high (R-HAND-RANK), ace-to-five low (R-LOW-A5) or eight or better
    (R-HILO-QUALIFY); a low's rank is the evaluator's, larger is better."""
    from studengine import evaluator

    request = pb.EvaluateRequest(hands=[pb.CardSet(cards=cards)], ranking=ranking)  # type: ignore[arg-type]
    value = handlers.evaluate(request).values[0]
    assert value.category == category
    if description is not None:
        assert value.description == description
    if rank is not None:
        assert value.rank == rank
    elif ranking == pb.HAND_RANKING_ACE_TO_FIVE_LOW:
        assert value.rank == evaluator.evaluate_low(parse_cards(" ".join(cards)))
    wheel_low = pb.EvaluateRequest(
        hands=[pb.CardSet(cards=["Ac", "2d", "3h", "4s", "5c"]), pb.CardSet(cards=cards)],
        ranking=pb.HAND_RANKING_ACE_TO_FIVE_LOW,
    )
    best, other = handlers.evaluate(wheel_low).values
    assert best.rank >= other.rank
    error = refused(
        handlers.evaluate, pb.EvaluateRequest(hands=[pb.CardSet(cards=cards)], ranking=9)
    )  # type: ignore[arg-type]
    assert error.violations[0][0] == "ranking"


def test_equity_of_the_new_games(handlers: Handlers) -> None:
    """Equity plays each game's own showdown: Razz a low (an ace-deuce board is ahead of
    kings), Hi-Lo high and low halves (a low draw's low chance shows)."""

    def low_draw_against_trips(variant: pb.Variant.ValueType) -> pb.EquityResponse:
        players = [
            pb.EquityPlayer(down_cards=["Ac", "2d"], up_cards=["3h"]),
            pb.EquityPlayer(down_cards=["Kc", "Kd"], up_cards=["Ks"]),
        ]
        request = pb.EquityRequest(variant=variant, players=players, samples=2000, seed=1)
        return handlers.equity(request)

    razz = low_draw_against_trips(pb.VARIANT_RAZZ)
    assert razz.players[0].equity > 0.8 and razz.players[0].high == 0 == razz.players[0].low
    hilo = low_draw_against_trips(pb.VARIANT_SEVEN_CARD_STUD_HI_LO)
    low_draw, trips = hilo.players
    assert low_draw.low > 0.3 and trips.low < low_draw.low and trips.high > low_draw.high
    assert abs(low_draw.equity + trips.equity - 1) < 1e-9

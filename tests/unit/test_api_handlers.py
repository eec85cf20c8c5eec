"""The API handlers without gRPC: StartHand, Act, GetView; their refusals and what every
hand response carries (Evaluate and Equity: ``test_api_evaluate``)."""

from __future__ import annotations

import hashlib
import random

import grpc
import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studengine.api import logfields
from studengine.api.errors import ApiError, field_violations, to_status
from studengine.api.handlers import Handlers
from studengine.cards import parse_cards
from studengine.state.sealing import KeyRing
from support.api_helpers import (
    new_key,
    random_act,
    random_start,
    refused,
    status_as_received,
    table_5s,
    table_7s,
)

SEVEN_DECK = ["Ac", "3c", "9s", "Kd", "3d", "9d", "Qh", "2d", "7c"]  # 7s-rejected-actions
OPEN_PAIR = "table.open_pair_big_bet"  # no such option in Razz and Hi-Lo (section 7)
# 7h-hi-lo-split-odd-chip-to-high: seat 0 wins the high half, seat 1 the low half
HILO_DECK = ["8s", "3d", "6h", "Jd", "9c", "Tc", "As", "2h", "2c", "Ad", "4h", "7d", "Kc"]
HILO_DECK += ["5s", "9d", "Kd", "8c", "3s", "Qs"]


@pytest.fixture
def handlers() -> Handlers:
    return Handlers(KeyRing([new_key("k1")]), allow_test_decks=True)


def start(handlers: Handlers, **changes: object) -> pb.HandUpdate:
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=table_7s(),
        players=[pb.Player(id=f"player-{i}", stack=500) for i in range(3)],
        button=2,
        test_deck=SEVEN_DECK,
    )
    for name, value in changes.items():
        if isinstance(value, list):
            request.ClearField(name)  # type: ignore[arg-type]
            getattr(request, name).extend(value)
        elif isinstance(value, pb.Table):
            request.table.CopyFrom(value)
        else:
            setattr(request, name, value)
    return handlers.start_hand(request).hand


def action(name: str) -> pb.ActionType.ValueType:
    return pb.ActionType.Value("ACTION_TYPE_" + name)


def act(
    handlers: Handlers, update: pb.HandUpdate, seat: int, name: str, **kw: int
) -> pb.HandUpdate:
    request = pb.ActRequest(state=update.state, seat=seat, action=action(name), **kw)
    return handlers.act(request).hand


def two(first: tuple[str, int], second: tuple[str, int] = ("b", 5)) -> list[pb.Player]:
    return [pb.Player(id=first[0], stack=first[1]), pb.Player(id=second[0], stack=second[1])]


def stakes(**kw: int) -> pb.Table:
    table = pb.Table(ante=1, bring_in=10, small_bet=20, big_bet=40)
    for name, value in kw.items():
        setattr(table, name, value)
    return table


def legal(update: pb.HandUpdate) -> list[tuple[str, int | None]]:
    return [
        (pb.ActionType.Name(a.type)[12:], a.to if a.HasField("to") else None)
        for a in update.legal_actions
    ]


def test_start_hand_response_carries_everything(handlers: Handlers) -> None:
    update = start(handlers)
    assert len(update.hand_id) == 32 and update.seq == 0 and update.state
    assert update.to_act == 1
    assert legal(update) == [("BRING_IN", 10), ("COMPLETE", 20)]
    assert update.spectator.pot == 15 and [s.stack for s in update.spectator.seats] == [495] * 3
    assert len(update.seats) == 3 and not update.over
    assert not update.HasField("result") and not update.HasField("reveal")
    # events: antes then the deal, down cards hidden from the spectator
    kinds = [e.WhichOneof("kind") for e in update.spectator.events]
    assert kinds[:3] == ["ante_posted"] * 3 and kinds.count("card_dealt") == 9
    assert kinds[-1] == "street_started"
    hidden = [e.card_dealt for e in update.spectator.events if e.HasField("card_dealt")]
    assert [d.hidden for d in hidden] == [True] * 6 + [False] * 3
    # each seat sees its own two down cards, in its view and its events
    for seat, view in enumerate(update.seats):
        assert view.viewer_seat == seat
        mine = view.seats[seat]
        assert len(mine.down_cards) == 2 and mine.down_card_count == 2
        own_events = [
            e.card_dealt.card
            for e in view.events
            if e.HasField("card_dealt") and e.card_dealt.seat == seat and not e.card_dealt.face_up
        ]
        assert own_events == list(mine.down_cards)
        for other in range(3):
            if other != seat:
                assert list(view.seats[other].down_cards) == []
                assert view.seats[other].cards[:2] == ["", ""]


def test_deck_commitment_and_reveal(handlers: Handlers) -> None:
    update = start(handlers)
    commitment = update.deck_commitment
    update = act(handlers, update, 1, "BRING_IN")
    assert update.deck_commitment == commitment
    update = act(handlers, update, 2, "FOLD")
    update = act(handlers, update, 0, "FOLD")
    assert update.over and not update.HasField("to_act")
    deck = parse_cards(list(update.reveal.deck))
    assert len(deck) == 52 and deck[: len(SEVEN_DECK)] == parse_cards(SEVEN_DECK)
    salt = bytes.fromhex(update.reveal.salt)
    digest = hashlib.sha256(bytes.fromhex(update.hand_id) + salt + bytes(deck)).hexdigest()
    assert digest == commitment
    assert update.result.stacks == [495, 510, 495]
    assert [(p.amount, list(p.winners)) for p in update.result.pots] == [(15, [1])]
    assert list(update.result.revealed) == []


def test_seq_increments_and_expected_seq_is_checked(handlers: Handlers) -> None:
    update = start(handlers)
    first = update
    update = act(handlers, update, 1, "BRING_IN", expected_seq=0)
    assert update.seq == 1 and update.hand_id == first.hand_id
    error = refused(
        handlers.act,
        pb.ActRequest(state=update.state, seat=2, action=pb.ACTION_TYPE_CALL, expected_seq=0),
    )
    assert error.code == grpc.StatusCode.ABORTED
    # an old state still plays (freshness is the caller's): it deals the same cards
    again = act(handlers, first, 1, "BRING_IN")
    assert again.seq == 1 and again.spectator == update.spectator


def test_illegal_actions_fail_precondition_naming_legal_moves(handlers: Handlers) -> None:
    update = start(handlers)
    for seat, name, kw in [
        (0, "CALL", {}),
        (1, "FOLD", {}),
        (1, "CHECK", {}),
        (1, "COMPLETE", {"to": 30}),
    ]:
        error = refused(
            handlers.act,
            pb.ActRequest(
                state=update.state,
                seat=seat,
                action=action(name),
                **kw,
            ),
        )
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        assert "BRING_IN 10" in error.message and "COMPLETE 20" in error.message


def test_fold_or_check_with_an_amount_is_refused_like_a_bad_amount(handlers: Handlers) -> None:
    """R-ACTIONS: one form per action; FOLD or CHECK with ``to`` gets the same
    FAILED_PRECONDITION as a wrong amount, naming the legal moves, and changes nothing."""
    update = act(handlers, start(handlers), 1, "BRING_IN")
    for name, to in [("FOLD", 10), ("FOLD", 0), ("CALL", 20)]:
        error = refused(
            handlers.act, pb.ActRequest(state=update.state, seat=2, action=action(name), to=to)
        )
        assert error.code == grpc.StatusCode.FAILED_PRECONDITION
        assert error.reason == "ILLEGAL_ACTION" and error.metric_label == "illegal_action"
        assert "CALL 10" in error.message and "COMPLETE 20" in error.message
    assert act(handlers, update, 2, "FOLD").to_act == 0


def test_act_after_the_end_and_bad_fields(handlers: Handlers) -> None:
    update = start(handlers)
    update = act(handlers, update, 1, "COMPLETE")
    update = act(handlers, update, 2, "FOLD")
    update = act(handlers, update, 0, "FOLD")
    assert update.over
    error = refused(
        handlers.act, pb.ActRequest(state=update.state, seat=0, action=pb.ACTION_TYPE_CHECK)
    )
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION and "over" in error.message
    for request, field in [
        (pb.ActRequest(state=update.state, seat=7, action=pb.ACTION_TYPE_CHECK), "seat"),
        (pb.ActRequest(state=update.state, seat=-1, action=pb.ACTION_TYPE_CHECK), "seat"),
        (pb.ActRequest(state=update.state, seat=0), "action"),
        (pb.ActRequest(state=update.state, seat=0, action=99), "action"),
    ]:
        error = refused(handlers.act, request)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert error.violations[0][0] == field


def test_timeout_checks_brings_in_or_folds(handlers: Handlers) -> None:
    update = start(handlers)
    update = act(handlers, update, 1, "TIMEOUT")  # owes the bring-in: posts it
    taken = [e.action_taken for e in update.spectator.events if e.HasField("action_taken")]
    assert taken[0].type == pb.ACTION_TYPE_BRING_IN and taken[0].timeout
    update = act(handlers, update, 2, "TIMEOUT")  # facing the bring-in: folds
    taken = [e.action_taken for e in update.spectator.events if e.HasField("action_taken")]
    assert taken[0].type == pb.ACTION_TYPE_FOLD and taken[0].timeout
    update = act(handlers, update, 0, "CALL")
    assert update.spectator.street == 1
    to_act = update.to_act
    update = act(handlers, update, to_act, "TIMEOUT")  # may check: checks
    taken = [e.action_taken for e in update.spectator.events if e.HasField("action_taken")]
    assert taken[0].type == pb.ACTION_TYPE_CHECK and taken[0].timeout
    error = refused(
        handlers.act, pb.ActRequest(state=update.state, seat=to_act, action=pb.ACTION_TYPE_TIMEOUT)
    )
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION


def test_open_pair_round_to_picks_the_size_and_defaults_to_the_smaller(
    handlers: Handlers,
) -> None:
    # 5s-open-pair-big-bet: seat 0 pairs its up card on the second round
    deck = ["2c", "3c", "Ks", "5h", "Kh", "9d"]
    update = start(
        handlers,
        variant=pb.VARIANT_FIVE_CARD_STUD,
        table=table_5s(),
        players=[pb.Player(id=f"player-{i}", stack=1000) for i in range(2)],
        button=1,
        test_deck=deck,
    )
    update = act(handlers, update, update.to_act, "BRING_IN")
    update = act(handlers, update, update.to_act, "CALL")
    assert update.spectator.street == 1
    bets = sorted(to for kind, to in legal(update) if kind == "BET")
    assert bets == [100, 200]
    small = act(handlers, update, update.to_act, "BET")
    big = act(handlers, update, update.to_act, "BET", to=200)
    assert small.spectator.pot == update.spectator.pot + 100
    assert big.spectator.pot == update.spectator.pot + 200
    error = refused(
        handlers.act,
        pb.ActRequest(state=update.state, seat=update.to_act, action=pb.ACTION_TYPE_BET, to=150),
    )
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"variant": 0}, "variant"),
        ({"variant": 7}, "variant"),
        ({"button": 3}, "button"),
        ({"players": []}, "players"),
        ({"players": [pb.Player(id=f"p{i}", stack=5) for i in range(9)]}, "players"),
        ({"players": two(("a", 5), ("a", 5))}, "players[1].id"),
        ({"players": two(("", 5))}, "players[0].id"),
        ({"players": two(("x" * 65, 5))}, "players[0].id"),
        ({"players": two(("a", 0))}, "players[0].stack"),
        ({"players": two(("a", 10**16))}, "players[0].stack"),
        ({"table": stakes(bring_in=20)}, "table.bring_in"),
        ({"table": stakes(ante=-1)}, "table.ante"),
        ({"table": stakes(big_bet=10)}, "table.big_bet"),
        ({"table": stakes(max_bets=0)}, "table.max_bets"),
        ({"table": stakes(max_bets=5000)}, "table.max_bets"),
        ({"table": stakes(odd_chip=5)}, "table.odd_chip"),
        ({"table": stakes(small_bet=10**16, big_bet=10**16)}, "table.small_bet"),
        ({"variant": pb.VARIANT_RAZZ, "table": stakes(open_pair_big_bet=True)}, OPEN_PAIR),
        (
            {"variant": pb.VARIANT_SEVEN_CARD_STUD_HI_LO, "table": stakes(open_pair_big_bet=True)},
            OPEN_PAIR,
        ),
        ({"table": stakes(rake_percent_bp=10_001)}, "table.rake_percent_bp"),
        ({"table": stakes(rake_cap=-1)}, "table.rake_cap"),
        ({"table": stakes(rake_cap=10**16)}, "table.rake_cap"),
        ({"test_deck": ["Ac", "Ac"]}, "test_deck[1]"),
        ({"test_deck": ["Ac", "1x"]}, "test_deck[1]"),
        ({"test_deck": ["Ac"] * 53}, "test_deck"),
    ],
)
def test_bad_start_requests_name_the_field(
    handlers: Handlers, changes: dict[str, object], field: str
) -> None:
    with pytest.raises(ApiError) as caught:
        start(handlers, **changes)
    error = caught.value
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.violations[0][0] == field, error.violations
    # and the rich status carries the same field violation
    status = to_status(error)
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT
    rich = status_as_received(status)
    assert field_violations(rich)[0][0] == field


def test_get_view_seat_and_spectator(handlers: Handlers) -> None:
    update = start(handlers)
    spectator = handlers.get_view(pb.GetViewRequest(state=update.state))
    assert not spectator.view.HasField("viewer_seat") and not spectator.view.events
    assert spectator.hand_id == update.hand_id and spectator.seq == 0 and spectator.to_act == 1
    assert spectator.deck_commitment == update.deck_commitment
    seat_view = handlers.get_view(pb.GetViewRequest(state=update.state, seat=2))
    assert seat_view.view.seats[2].down_cards == update.seats[2].seats[2].down_cards
    error = refused(handlers.get_view, pb.GetViewRequest(state=update.state, seat=3))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT


def test_random_hands_conserve_chips_and_finish(handlers: Handlers) -> None:
    rng = random.Random(99)
    for _ in range(60):
        start_request = random_start(rng)
        update = handlers.start_hand(start_request).hand
        total = sum(p.stack for p in start_request.players)
        while not update.over:
            seats = update.spectator.seats
            assert sum(s.stack for s in seats) + update.spectator.pot == total
            update = handlers.act(random_act(rng, update)).hand
        assert sum(update.result.stacks) + update.result.rake == total  # R-RAKE
        assert update.result.rake == sum(p.rake for p in update.result.pots)
        assert not update.legal_actions and not update.HasField("to_act")


class Recorder:
    """An ``Observer`` that keeps what it was told."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def hand_started(self, variant: str) -> None:
        self.calls.append(("hand_started", variant))

    def hand_finished(self, variant: str) -> None:
        self.calls.append(("hand_finished", variant))

    def action_taken(self, variant: str, action: str) -> None:
        self.calls.append(("action_taken", variant, action))

    def rake_taken(self, variant: str, chips: int) -> None:
        self.calls.append(("rake_taken", variant, chips))

    def rejected(self, reason: str) -> None:
        self.calls.append(("rejected", reason))

    def state_size(self, nbytes: int) -> None:
        self.calls.append(("state_size", nbytes))

    def work_cancelled(self, method: str) -> None:
        self.calls.append(("work_cancelled", method))


def test_observer_hears_hands_actions_and_sizes_and_log_context() -> None:
    recorder = Recorder()
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=True, observer=recorder)
    logfields.clear()
    update = start(handlers)
    update = act(handlers, update, 1, "BRING_IN")
    context = logfields.bound()
    assert context == {"hand_id": update.hand_id, "seq": 1, "seat": 1, "action": "BRING_IN"}
    update = act(handlers, update, 2, "FOLD")
    last = act(handlers, update, 0, "FOLD")
    refused(handlers.get_view, pb.GetViewRequest(state=b"nonsense"))
    logfields.clear()
    sizes = [("state_size", len(u.state)) for u in (update, last)]
    seven = "SEVEN_CARD_STUD"
    assert recorder.calls[0] == ("hand_started", seven)
    assert recorder.calls[-5:] == [
        ("action_taken", seven, "FOLD"),
        sizes[0],
        ("action_taken", seven, "FOLD"),
        ("hand_finished", seven),
        sizes[1],
    ]
    assert [c[0] for c in recorder.calls].count("state_size") == 4
    # refusals are the servicer's to report (the next test)
    assert not [c for c in recorder.calls if c[0] == "rejected"]


def test_a_refused_act_binds_what_it_knew_when_refused() -> None:
    """The log fields of an Act refused after its state opened: the hand's id, the seq it
    was refused at, the seat and action asked for (TIMEOUT's own name); a state that does
    not open binds nothing, its seat and action included."""
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=True)
    update = start(handlers)
    hand = {"hand_id": update.hand_id, "seq": 0}
    stale = {"expected_seq": 3}
    cases = [(0, action("CALL"), {}, "CALL"), (7, action("FOLD"), {}, "FOLD")]
    cases += [(1, 99, {}, "None"), (1, action("TIMEOUT"), stale, "TIMEOUT")]
    for seat, code, more, label in cases:
        logfields.clear()
        refused(handlers.act, pb.ActRequest(state=update.state, seat=seat, action=code, **more))
        assert logfields.bound() == {**hand, "seat": seat, "action": label}
    logfields.clear()
    refused(handlers.act, pb.ActRequest(state=b"nonsense", seat=1, action=action("FOLD")))
    assert logfields.bound() == {}
    logfields.clear()


def test_refusals_are_reported_by_reason_by_the_servicer() -> None:
    """A refusal becomes its status in the servicer, which reports its reason once."""
    import asyncio

    from studengine.api.calls import ApiCalls
    from studengine.api.expensive import ExpensiveCalls
    from studengine.api.servicer import StudEngineServicer

    class Aborted(Exception):
        pass

    class Context:
        def time_remaining(self) -> float | None:
            return None

        async def abort_with_status(self, status: grpc.Status) -> None:
            self.status = status
            raise Aborted

    recorder = Recorder()
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=True, observer=recorder)
    servicer = StudEngineServicer(ApiCalls(handlers, ExpensiveCalls(threads=1, limit=1)))
    context = Context()
    with pytest.raises(Aborted):
        asyncio.run(servicer.behavior("GetView")(pb.GetViewRequest(state=b"nonsense"), context))
    assert context.status.code is grpc.StatusCode.INVALID_ARGUMENT
    request = pb.StartHandRequest(
        variant=pb.VARIANT_SEVEN_CARD_STUD,
        table=table_7s(),
        players=[pb.Player(id=f"player-{i}", stack=500) for i in range(3)],
        button=2,
    )
    answer = asyncio.run(servicer.behavior("StartHand")(request, context))
    update = pb.StartHandResponse.FromString(answer).hand  # the gRPC port sends bytes
    stale = pb.ActRequest(state=update.state, seat=1, action=pb.ACTION_TYPE_FOLD, expected_seq=3)
    with pytest.raises(Aborted):
        asyncio.run(servicer.behavior("Act")(stale, context))
    assert context.status.code is grpc.StatusCode.ABORTED
    assert [c for c in recorder.calls if c[0] == "rejected"] == [
        ("rejected", "bad_state"),
        ("rejected", "stale_seq"),
    ]


def test_get_view_of_a_finished_hand_never_reveals_the_deck_r_muck(handlers: Handlers) -> None:
    """R-MUCK: the result, but never the deck reveal (it implies the mucked hands); the
    final HandUpdate alone carries it."""
    update = start(handlers)
    for seat, name in [(1, "COMPLETE"), (2, "FOLD"), (0, "FOLD")]:
        update = act(handlers, update, seat, name)
    assert update.HasField("reveal")
    for seat in (0, 1, 2, None):
        request = pb.GetViewRequest(state=update.state)
        if seat is not None:
            request.seat = seat
        view = handlers.get_view(request)
        assert view.over and not view.HasField("to_act") and not view.legal_actions
        assert view.result == update.result and not view.HasField("reveal")
    own = handlers.get_view(pb.GetViewRequest(state=update.state, seat=0))
    assert own.view.seats[0].down_cards == update.seats[0].seats[0].down_cards


def test_refusal_reasons_come_from_the_engines_typed_refusal(handlers: Handlers) -> None:
    """The rejection reason counted is the engine's Refusal, not a match on its words."""
    update = start(handlers)
    cases = [(0, "CALL", "OUT_OF_TURN"), (1, "CHECK", "ILLEGAL_ACTION")]
    for seat, name, reason in cases:
        error = refused(
            handlers.act, pb.ActRequest(state=update.state, seat=seat, action=action(name))
        )
        assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, reason)
    update = act(handlers, update, 1, "COMPLETE")
    update = act(handlers, act(handlers, update, 2, "FOLD"), 0, "FOLD")
    error = refused(handlers.act, pb.ActRequest(state=update.state, seat=1, action=action("CHECK")))
    assert error.reason == "HAND_OVER" and error.metric_label == "hand_over"


def play_passively(handlers: Handlers, update: pb.HandUpdate) -> list[pb.HandUpdate]:
    """Bring in, call or check every decision to the end; every update on the way."""
    updates = [update]
    while not update.over:
        kinds = {a.type for a in update.legal_actions}
        passive = (pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_BRING_IN, pb.ACTION_TYPE_CALL)
        kind = next(k for k in passive if k in kinds)
        request = pb.ActRequest(state=update.state, seat=update.to_act, action=kind)
        update = handlers.act(request).hand
        updates.append(update)
    return updates


def test_razz_and_hi_lo_tables_have_no_open_pair_option_by_default(handlers: Handlers) -> None:
    """Section 7: left out, the open-pair option is off in Razz and Hi-Lo (on elsewhere)."""
    for variant, expected in [
        (pb.VARIANT_RAZZ, False),
        (pb.VARIANT_SEVEN_CARD_STUD_HI_LO, False),
        (pb.VARIANT_SEVEN_CARD_STUD, True),
    ]:
        update = start(handlers, variant=variant)
        assert update.spectator.variant == variant
        assert update.spectator.table.open_pair_big_bet is expected


def test_hi_lo_result_and_events_carry_lows_shares_and_rake(handlers: Handlers) -> None:
    """R-HILO-SPLIT, R-HILO-MUCK, R-RAKE through the API: pots with high and low winners
    and shares, shown hands with their low description, the rake in the table, the
    result and the events; views hide the mucked hand."""
    table = table_7s()
    table.rake_percent_bp = 1000
    update = start(
        handlers,
        variant=pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
        table=table,
        players=[pb.Player(id=f"p{i}", stack=1000) for i in range(3)],
        test_deck=HILO_DECK,
    )
    assert update.spectator.table.rake_percent_bp == 1000
    updates = play_passively(handlers, update)
    last = updates[-1]
    result = last.result
    assert result.rake == sum(p.rake for p in result.pots) > 0
    assert sum(result.stacks) + result.rake == 3000
    pot = result.pots[0]
    assert list(pot.low_winners) and sum(pot.shares) + sum(pot.low_shares) == pot.amount
    shown = {s.seat: s for s in result.shown}
    low_seat = pot.low_winners[0]
    assert shown[low_seat].low_description.endswith(" low") and shown[low_seat].low > 0
    assert len(shown[low_seat].low_best_five) == 5
    events = [e for e in last.spectator.events]
    kinds = [e.WhichOneof("kind") for e in events]
    assert "rake_taken" in kinds and kinds.index("rake_taken") < kinds.index("pot_awarded")
    awarded = next(e.pot_awarded for e in events if e.HasField("pot_awarded"))
    assert list(awarded.low_winners) == list(pot.low_winners) and awarded.low_description
    for seat in set(range(3)) - set(result.revealed):  # hidden from others (R-HILO-MUCK)
        assert not last.spectator.seats[seat].down_cards
        assert all(not last.seats[v].seats[seat].down_cards for v in range(3) if v != seat)


def test_observer_hears_the_rake_by_variant() -> None:
    """R-RAKE: a raked hand's rake is reported with its variant (the server counts it as
    stud_rake_chips_total{variant})."""
    recorder = Recorder()
    handlers = Handlers(KeyRing([new_key("k1")]), allow_test_decks=True, observer=recorder)
    table = table_7s()
    table.rake_percent_bp = 1000
    update = start(
        handlers,
        variant=pb.VARIANT_SEVEN_CARD_STUD_HI_LO,
        table=table,
        players=[pb.Player(id=f"p{i}", stack=1000) for i in range(3)],
        test_deck=HILO_DECK,
    )
    last = play_passively(handlers, update)[-1]
    assert last.result.rake > 0
    raked = [c for c in recorder.calls if c[0] == "rake_taken"]
    assert raked == [("rake_taken", "SEVEN_CARD_STUD_HI_LO", last.result.rake)]

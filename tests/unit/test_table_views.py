"""What one seat's page is built from: that seat's engine view only (hidden cards stay
hidden), its legal moves with button labels, and the narration of its own events."""

from __future__ import annotations

from types import SimpleNamespace

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.table import views

BRING_IN = pb.ACTION_TYPE_BRING_IN


def seat_view(viewer: int) -> pb.View:
    mine = ["As", "Kd", "7h"]
    theirs = ["", "", "9c"]
    return pb.View(
        viewer_seat=viewer,
        street_name="third street",
        pot=25,
        button=1,
        seats=[
            pb.SeatInfo(seat=0, cards=mine if viewer == 0 else [*theirs[:2], "7h"],
                        up_cards=["7h"], down_cards=["As", "Kd"] if viewer == 0 else []),
            pb.SeatInfo(seat=1, cards=theirs if viewer == 0 else ["Qs", "Qd", "9c"],
                        up_cards=["9c"], round_bet=10),
        ],
    )  # fmt: skip


def update() -> pb.HandUpdate:
    return pb.HandUpdate(
        hand_id="ab" * 16,
        seq=3,
        spectator=seat_view(-1),
        seats=[seat_view(0), seat_view(1)],
        to_act=0,
        legal_actions=[
            pb.LegalAction(type=pb.ACTION_TYPE_FOLD),
            pb.LegalAction(type=pb.ACTION_TYPE_CALL, to=10),
            pb.LegalAction(type=pb.ACTION_TYPE_COMPLETE, to=20),
        ],
    )


def test_cards_hidden_by_the_engine_stay_hidden_and_faces_are_marked() -> None:
    hand = SimpleNamespace(hand_id="h", number=1, seq=3, seat_map=[2, 5], to_act=0,
                           deadline=100.5, over=False)  # fmt: skip
    part, seats = views.hand_view(update(), hand, 0, ["Ann", "Bob"])
    assert seats[2]["cards"] == [
        {"card": "As", "up": False}, {"card": "Kd", "up": False}, {"card": "7h", "up": True},
    ]  # fmt: skip
    assert seats[5]["cards"] == [
        {"card": None, "up": False}, {"card": None, "up": False}, {"card": "9c", "up": True},
    ]  # fmt: skip
    assert part["button"] == 5 and part["to_act"] == 2 and part["deadline"] == 100500
    _, bobs = views.hand_view(update(), hand, 1, ["Ann", "Bob"])
    assert "As" not in str(bobs) and "Qs" in str(bobs)


def test_legal_moves_only_for_the_seat_to_act_with_labels() -> None:
    assert views.legal_moves(update(), 1) == []
    assert views.legal_moves(update(), 0) == [
        {"action": "fold", "label": "Fold"},
        {"action": "call", "to": 10, "label": "Call 10"},
        {"action": "complete", "to": 20, "label": "Complete to 20"},
    ]


def test_narration_groups_the_deal_and_names_the_viewer() -> None:
    events = [
        pb.Event(ante_posted=pb.AntePosted(seat=0, amount=5)),
        pb.Event(card_dealt=pb.CardDealt(seat=0, card="As", face_up=False)),
        pb.Event(card_dealt=pb.CardDealt(seat=1, hidden=True)),
        pb.Event(card_dealt=pb.CardDealt(seat=1, card="9c", face_up=True)),
        pb.Event(street_started=pb.StreetStarted(name="third street", first_to_act=1)),
        pb.Event(action_taken=pb.ActionTaken(seat=1, type=BRING_IN, to=10, timeout=True)),
        pb.Event(hand_mucked=pb.HandMucked(seat=1)),
        pb.Event(pot_awarded=pb.PotAwarded(pot=0, amount=30, winners=[0], description="Pair")),
    ]  # fmt: skip
    assert views.narrate(events, ["Ann", "Bob"], 0) == [
        "Antes: you 5",
        "Dealt: you As (down); Bob 1 face down, 9c",
        "Third street: Bob to act",
        "Bob brings in for 10 (clock ran out)",
        "Bob mucks",
        "You win 30 from the main pot with Pair",
    ]
    assert views.narrate(events, ["Ann", "Bob"], None)[-1] == (
        "Ann wins 30 from the main pot with Pair"  # a spectator reads every seat by name
    )


def test_narration_tells_a_hi_lo_pot_half_by_half() -> None:
    """R-HILO-SPLIT at the table: a shown hand with its low, a pot's high and low halves."""
    low = "8-5-4-2-A low"
    shown = pb.HandShown(seat=1, cards=["As", "2d"], description="One Pair, Aces",
                         low_description=low)  # fmt: skip
    awarded = pb.PotAwarded(pot=0, amount=45, winners=[0], shares=[23], description="Flush",
                            low_winners=[1], low_shares=[22], low_description=low)  # fmt: skip
    lines = views.narrate(
        [pb.Event(hand_shown=shown), pb.Event(pot_awarded=awarded)], ["Ann", "Bob"], 0
    )
    assert lines == [
        "Showdown",
        "Bob shows As 2d: One Pair, Aces and 8-5-4-2-A low",
        "You win the high half of the main pot, 23, with Flush; "
        "Bob wins the low half, 22, with 8-5-4-2-A low",
    ]
    assert views.game_name(pb.VARIANT_RAZZ) == "Razz"

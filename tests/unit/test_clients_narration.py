"""The clients' one narration (``studclients.narration``), as stud-play prints it and
stud-table sends it: the viewer is "you" and verbs agree, antes and each deal are one
line, split pots name each share, the rake (R-RAKE) and uncalled chips are told."""

from __future__ import annotations

from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.narration import narrate

NAMES = ["you", "Ada", "Bix"]


def test_the_viewer_is_you_and_the_others_by_name() -> None:
    events = [
        pb.Event(ante_posted=pb.AntePosted(seat=0, amount=5)),
        pb.Event(ante_posted=pb.AntePosted(seat=1, amount=5)),
        pb.Event(ante_posted=pb.AntePosted(seat=2, amount=3, all_in=True)),
        pb.Event(card_dealt=pb.CardDealt(seat=0, card="Ah", face_up=False)),
        pb.Event(card_dealt=pb.CardDealt(seat=0, card="7d", face_up=True)),
        pb.Event(card_dealt=pb.CardDealt(seat=1, hidden=True)),
        pb.Event(card_dealt=pb.CardDealt(seat=1, card="Kc", face_up=True)),
        pb.Event(street_started=pb.StreetStarted(name="third street", first_to_act=0)),
        pb.Event(action_taken=pb.ActionTaken(seat=0, type=pb.ACTION_TYPE_CALL, amount=20)),
        pb.Event(action_taken=pb.ActionTaken(seat=1, type=pb.ACTION_TYPE_RAISE, to=40,
                                             all_in=True)),
        pb.Event(uncalled_returned=pb.UncalledReturned(seat=1, amount=10)),
        pb.Event(card_dealt=pb.CardDealt(card="Qs", face_up=True)),
        pb.Event(street_started=pb.StreetStarted(name="seventh street", betting=False)),
    ]  # fmt: skip
    assert narrate(events, NAMES, 0) == [
        "Antes: you 5, Ada 5, Bix 3 (all in)",
        "Dealt: you Ah (down), 7d; Ada 1 face down, Kc",
        "Third street: you to act",
        "You call 20",
        "Ada raises to 40 (all in)",
        "10 uncalled returned to Ada",
        "Community card: Qs",
        "Seventh street: no betting",
    ]


def test_a_split_pot_names_each_share_and_the_rake_is_told() -> None:
    events = [
        pb.Event(hand_shown=pb.HandShown(seat=0, cards=["Ah", "Kh"], description="Flush")),
        pb.Event(hand_shown=pb.HandShown(seat=2, cards=["Ad", "Kd"], description="Flush")),
        pb.Event(hand_mucked=pb.HandMucked(seat=1)),
        pb.Event(rake_taken=pb.RakeTaken(amount=3)),
        pb.Event(pot_awarded=pb.PotAwarded(pot=0, amount=41, winners=[0, 2], shares=[21, 20],
                                           description="Flush")),
        pb.Event(pot_awarded=pb.PotAwarded(pot=1, amount=10, winners=[1])),
        pb.Event(hand_ended=pb.HandEnded(stacks=[1, 2, 3])),
    ]  # fmt: skip
    assert narrate(events, NAMES, 0) == [
        "Showdown",
        "You show Ah Kh: Flush",
        "Bix shows Ad Kd: Flush",
        "Ada mucks",
        "The house takes 3 rake",
        "You and Bix split the main pot of 41 (you 21, Bix 20) with Flush",
        "Ada wins 10 from side pot 1 (everyone else folded)",
        "Hand over",
    ]
    spectator = narrate(events, ["Cy", "Ada", "Bix"], None)
    assert spectator[1] == "Cy shows Ah Kh: Flush"
    assert spectator[5] == "Cy and Bix split the main pot of 41 (Cy 21, Bix 20) with Flush"

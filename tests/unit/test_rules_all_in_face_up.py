"""R-ALL-IN-FACE-UP, the table option ``all_in_face_up``, each case on a hand laid out
card by card: when the hands are tabled (the action that ends the betting with a player
all-in, or the start when no round is held), what the event says, that nothing is
mucked after it, and that it never moves a chip."""

from __future__ import annotations

import dataclasses

from studengine.rules.hand import Hand
from studengine.rules.types import (
    CardDealt,
    Event,
    HandMucked,
    HandShown,
    HandsTabled,
    Table,
    Variant,
)
from support.stud_helpers import FIVE, SEVEN, TABLE_5S, TABLE_7S, check_down, new_hand, play

FACE_UP_7S = dataclasses.replace(TABLE_7S, all_in_face_up=True)
FACE_UP_5S = dataclasses.replace(TABLE_5S, all_in_face_up=True)
HEADS_UP = ["Ah Kh 2c 3d 4s 7c Jd", "9s 9h 5d 9d 5s Qc 8h"]  # seat 1: nines full, the best board


def tabled_events(events: list[Event]) -> list[HandsTabled]:
    return [e for e in events if isinstance(e, HandsTabled)]


def play_both(
    variant: Variant, hands: list[str], table: Table, stacks: list[int], moves: list[str]
) -> tuple[tuple[Hand, list[Event]], tuple[Hand, list[Event]]]:
    """The same deck and moves on ``table`` with the option on, and off."""
    played = []
    for option in (True, False):
        hand, events = new_hand(
            variant,
            hands,
            stacks=stacks,
            table=dataclasses.replace(table, all_in_face_up=option),
        )
        events += play(hand, moves)
        events += check_down(hand)
        played.append((hand, events))
    return played[0], played[1]


def test_tabled_when_all_but_one_are_all_in_before_the_next_card_r_all_in_face_up():
    """R-ALL-IN-FACE-UP: seat 0 calls all-in on third street, seat 1 alone could bet: the
    call that ends the round tables both hands (their three cards each), before fourth
    street is dealt; at the showdown both are shown, none mucked. Off, the same hand
    mucks the loser (R-MUCK) and pays the same chips."""
    (on, events), (off, off_events) = play_both(
        SEVEN, HEADS_UP, TABLE_7S, [30, 1000], ["0 COMPLETE", "1 RAISE 40", "0 CALL"]
    )
    (tabled,) = tabled_events(events)
    assert tabled.seats == (0, 1)
    assert tabled.cards == (tuple(on.cards[0][:3]), tuple(on.cards[1][:3]))
    at = events.index(tabled)
    later = [e for e in events[at:] if isinstance(e, CardDealt)]
    assert not any(isinstance(e, CardDealt) and e.street > 0 for e in events[:at])
    assert {e.street for e in later} == {1, 2, 3, 4}  # every street after it, none before
    assert on.tabled == [0, 1] and on.over
    assert on.result is not None and on.result.revealed == (0, 1)
    assert not any(isinstance(e, HandMucked) for e in events)
    # off: no tabling, the loser mucked; the chips are the same
    assert off.tabled == [] and not tabled_events(off_events)
    assert any(isinstance(e, HandMucked) and e.seat == 0 for e in off_events)
    assert on.stacks == off.stacks and on.result.pots == off.result.pots  # type: ignore[union-attr]


def test_tabled_at_the_start_when_no_round_is_held_r_all_in_face_up():
    """R-ALL-IN-FACE-UP: both players all-in on the antes: the first round is not held,
    which counts as a round ending at once: the hands are tabled at the start, after the
    first street's deal and before the second's."""
    hand, events = new_hand(SEVEN, HEADS_UP, stacks=[5, 5], table=FACE_UP_7S)
    (tabled,) = tabled_events(events)
    at = events.index(tabled)
    assert tabled.seats == (0, 1) and all(len(cards) == 3 for cards in tabled.cards)
    assert all(e.street == 0 for e in events[:at] if isinstance(e, CardDealt))
    assert any(isinstance(e, CardDealt) and e.street == 1 for e in events[at:])
    assert hand.over and hand.tabled == [0, 1]


def test_betting_goes_on_among_the_others_then_all_are_shown_r_all_in_face_up():
    """R-ALL-IN-FACE-UP, R-SIDE-POTS: seat 0 is all-in on the first round but seats 1 and
    2 can still bet, so nothing is tabled then; the showdown, with a player all-in,
    reveals every hand still in (the last round's end tables them, no card after it)."""
    hands = ["Kh Qd 4c 8h 7c", "Qc 3h 9c Kd 6d", "9d Ks Js 9h 5s"]
    hand, events = new_hand(FIVE, hands, stacks=[150, 2000, 2000], table=FACE_UP_5S, button=2)
    play(hand, ["1 BRING_IN", "2 CALL", "0 COMPLETE", "1 CALL", "2 CALL"])
    assert hand.stacks[0] == 0 and hand.to_act is not None and hand.tabled == []
    events += check_down(hand)
    (tabled,) = tabled_events(events)
    assert tabled.seats == (0, 1, 2) and all(len(cards) == 5 for cards in tabled.cards)
    at = events.index(tabled)
    assert not any(isinstance(e, CardDealt) for e in events[at:])
    assert hand.result is not None and hand.result.revealed == (0, 1, 2)
    assert sorted(e.seat for e in events if isinstance(e, HandShown)) == [0, 1, 2]
    assert not any(isinstance(e, HandMucked) for e in events)


def test_no_all_in_no_tabling_and_the_loser_mucks_r_all_in_face_up():
    """R-ALL-IN-FACE-UP, R-MUCK: with the option on but nobody all-in, the showdown is the
    usual one: the losing hand that does not show first is mucked."""
    hand, events = new_hand(SEVEN, HEADS_UP, stacks=[1000, 1000], table=FACE_UP_7S)
    events += check_down(hand)
    assert not tabled_events(events) and hand.tabled == []
    assert any(isinstance(e, HandMucked) and e.seat == 0 for e in events)


def test_a_hand_won_by_folds_reveals_nothing_r_all_in_face_up():
    """R-ALL-IN-FACE-UP, R-MUCK: seat 0 completes all-in and both others fold: the hand
    ends without a showdown, so nothing is tabled or revealed."""
    hands = ["Ah Kh 2c", "9s 9h 5d", "Ts Th 6d"]
    hand, events = new_hand(SEVEN, hands, stacks=[25, 1000, 1000], table=FACE_UP_7S)
    play(hand, ["0 COMPLETE", "1 FOLD", "2 FOLD"])
    assert hand.over and hand.tabled == [] and not tabled_events(events)
    assert hand.result is not None and hand.result.revealed == ()

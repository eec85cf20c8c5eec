"""Razz, Seven Card Stud Hi-Lo, their odd chips (R-ODD-CHIP-LOW) and the rake (rulebook
sections 6 to 8), each rule on a hand laid out card by card."""

from __future__ import annotations

import dataclasses
import random

import pytest
from studengine import evaluator
from studengine.cards import format_card, parse_cards, shuffled_deck
from studengine.rules.board import low_card_order
from studengine.rules.hand import Hand, start_hand
from studengine.rules.pots import rake_of, take_rake
from studengine.rules.types import (
    HandMucked,
    HandShown,
    InvalidHand,
    OddChip,
    PotAwarded,
    RakeTaken,
    Table,
)
from studengine.rules.variants import RAZZ as RAZZ_SPEC
from studengine.rules.variants import SEVEN_CARD_STUD_HI_LO as HILO_SPEC
from support.stud_helpers import HILO, RAZZ, SEVEN, TABLE_7R, check_down, new_hand, play


def showdown(variant, hands, **kwargs) -> tuple[Hand, list]:
    """A hand played out passively (bring in, call, check) to its showdown."""
    hand, events = new_hand(variant, hands, **kwargs)
    events += check_down(hand)
    assert hand.result is not None
    return hand, events


# ---- R-LOW-A5, R-RAZZ-* ------------------------------------------------------------


def test_highest_card_brings_in_king_of_spades_first_r_razz_bring_in():
    """R-RAZZ-BRING-IN: the highest up card brings in, the king highest, and between
    kings the higher suit: the king of spades."""
    hand, _ = new_hand(RAZZ, ["2c 3c Kh", "4c 5c Ks", "6c 7c Qd"])
    assert hand.to_act == 1


def test_the_ace_is_the_lowest_card_r_razz_bring_in():
    """R-RAZZ-BRING-IN: the ace is the lowest card: the 3 brings in, not the ace."""
    hand, _ = new_hand(RAZZ, ["Kc Kd Ac", "Qc Qd 2d", "Jc Jd 3c"])
    assert hand.to_act == 2


def test_best_low_board_acts_first_pairs_count_against_r_razz_first_to_act():
    """R-RAZZ-FIRST-TO-ACT: on fourth street the best ace-to-five board acts first: 7-3
    beats K-2 (highest card first) and the paired 5-5."""
    hand, _ = new_hand(RAZZ, ["Jc Jd Kh 2c", "Tc Td 5c 5d", "9c 9d 7d 3h"])
    assert hand.to_act == 0  # the king brings in
    play(hand, ["0 BRING_IN", "1 CALL", "2 CALL"])
    assert hand.street == 1 and hand.to_act == 2


def test_equal_low_boards_nearest_the_dealers_left_r_razz_first_to_act():
    """R-RAZZ-FIRST-TO-ACT: between equal boards (7-3 and 7-3) the one nearest the dealer's
    left acts first (button 0: seat 1, then seat 2, then seat 0)."""
    hand, _ = new_hand(RAZZ, ["Jc Jd 7c 3d", "Tc Td Ks Kc", "9c 9d 7d 3h"])
    assert hand.to_act == 1  # the king of spades brings in
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert hand.to_act == 2


def test_wheel_is_the_best_low_straights_and_flushes_ignored_r_razz_showdown_r_low_a5():
    """R-RAZZ-SHOWDOWN, R-LOW-A5: 5-4-3-2-A (a straight flush in high) beats 6-4-3-2-A;
    the winner shows its low."""
    hand, events = showdown(RAZZ, ["Ah 2h 3h 4h 5h Kc Kd", "Ac 2c 3c 4c 6d Qs Qh"])
    result = hand.result
    assert result is not None
    assert [(p.amount, p.winners) for p in result.pots] == [(30, (0,))]
    assert hand.stacks == [1015, 985]
    shown = {s.seat: s for s in result.shown}
    assert shown[0].description == "5-4-3-2-A low"
    assert shown[0].rank == evaluator.evaluate_low(parse_cards("Ah 2h 3h 4h 5h Kc Kd"))
    assert set(shown[0].best_five) == set(parse_cards("Ah 2h 3h 4h 5h"))
    awarded = [e for e in events if isinstance(e, PotAwarded)]
    assert awarded[0].description == "5-4-3-2-A low"


def test_equal_lows_share_odd_chip_left_of_dealer_r_razz_showdown_r_odd_chip():
    """R-RAZZ-SHOWDOWN, R-SPLIT, R-ODD-CHIP: equal lows (6-4-3-2-A twice) share the pot;
    its odd chip goes to the winner nearest the dealer's left (seat 1)."""
    hand, _ = new_hand(RAZZ, ["Ad 2d 3d 4s 6h Kh Ks", "Ac 2c 3c 4c 6c Qs Qh", "9s 9h 2s"])
    assert hand.to_act == 0  # 3d over 3c
    play(hand, ["0 BRING_IN", "1 CALL", "2 FOLD"])
    check_down(hand)
    assert hand.result is not None
    pot = hand.result.pots[0]
    assert (pot.amount, pot.winners) == (35, (0, 1))
    assert dict(zip(pot.winners, pot.shares, strict=True)) == {0: 17, 1: 18}
    assert hand.stacks == [1002, 1003, 995]


# ---- R-HILO-* --------------------------------------------------------------------


def test_lowest_card_brings_in_ace_high_then_high_boards_r_hilo_bring_in():
    """R-HILO-BRING-IN: the lowest up card brings in, the ace counting high (the 2 of
    diamonds, not the ace); later rounds open with the best high board (R-FIRST-TO-ACT),
    the ace high there too: A-5 beats K-3 and 9-2."""
    hand, _ = new_hand(HILO, ["Kc Kd Ac 5c", "Qc Qd 2d 9h", "Jc Jd 3c Ks"])
    assert hand.to_act == 1
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert hand.to_act == 0


def test_low_half_to_the_qualifying_low_odd_chip_high_r_hilo_split_r_hilo_muck():
    """R-HILO-SPLIT, R-HILO-QUALIFY, R-HILO-MUCK: the full house takes the high half with
    the odd chip (23 of 45), the wheel the low half (22); the low-only winner is shown,
    the hand winning no half is mucked."""
    hand, events = showdown(
        HILO,
        [
            "Kc Kd Ks 9c 9d Jh 2c",  # kings full: no low
            "As 2h 3d 5s 4c 8h 7c",  # the wheel: a straight, and the best low
            "Qh Jd Tc 7s 6d 3c 9h",  # queen high, no low
        ],
    )
    result = hand.result
    assert result is not None
    pot = result.pots[0]
    assert (pot.amount, pot.winners, pot.shares) == (45, (0,), (23,))
    assert (pot.low_winners, pot.low_shares) == ((1,), (22,))
    assert hand.stacks == [1008, 1007, 985]
    assert result.revealed == (0, 1)
    assert any(isinstance(e, HandMucked) and e.seat == 2 for e in events)
    shown = {e.seat: e for e in events if isinstance(e, HandShown)}
    assert shown[1].low_description == "5-4-3-2-A low"
    assert shown[0].low == evaluator.NO_LOW and shown[0].low_description == ""
    awarded = next(e for e in events if isinstance(e, PotAwarded))
    assert awarded.low_winners == (1,) and awarded.low_description == "5-4-3-2-A low"


def test_no_qualifying_low_high_takes_the_whole_pot_r_hilo_qualify():
    """R-HILO-QUALIFY, R-HILO-SPLIT: 9-7-6-4-2 is no eight-or-better low and the other
    hand has none either: the pair of tens takes the whole pot."""
    hand, _ = showdown(HILO, ["9h 7d 6c 4s 2d Kh Qs", "Tc Td Jc 3h 5c Ks 8c"])
    assert hand.result is not None
    pot = hand.result.pots[0]
    assert (pot.winners, pot.shares, pot.low_winners, pot.low_shares) == ((1,), (30,), (), ())
    assert hand.stacks == [985, 1015]


def test_one_hand_scoops_with_the_same_cards_high_and_low_r_hilo_qualify():
    """R-HILO-QUALIFY, R-HILO-SPLIT: the same A-2-3-4-5 is the high (a straight beats two
    pair) and the low: one player scoops both halves."""
    hand, _ = showdown(HILO, ["Ah 2h 3c 4d 5s Kh Qc", "Kd Ks 9c Tc Jd 6s 6d"])
    assert hand.result is not None
    pot = hand.result.pots[0]
    assert (pot.winners, pot.shares, pot.low_winners, pot.low_shares) == ((0,), (15,), (0,), (15,))
    assert hand.stacks == [1015, 985]


def test_tied_high_hands_share_the_high_half_by_r_odd_chip_r_hilo_split():
    """R-HILO-SPLIT, R-ODD-CHIP: two broadway straights share the high half (23): its odd
    chip goes to the one nearest the dealer's left (seat 1); the low takes 22."""
    hand, _ = showdown(
        HILO,
        ["As 2d 3h 4d 6c 8s 7h", "Ac Kc Qd Jc Th 9d 2c", "Ad Kd Qh Jd Tc 9h 3c"],
    )
    assert hand.result is not None
    pot = hand.result.pots[0]
    assert dict(zip(pot.winners, pot.shares, strict=True)) == {1: 12, 2: 11}
    assert (pot.low_winners, pot.low_shares) == ((0,), (22,))
    assert hand.stacks == [1007, 997, 996]


@pytest.mark.parametrize("variant", [RAZZ, HILO], ids=lambda v: v.value)
def test_open_pair_option_refused_naming_the_field(variant):
    """Section 7: Razz and Stud Hi-Lo have no open-pair option; a table turning it on is
    refused, naming ``table.open_pair_big_bet``."""
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=True)
    with pytest.raises(InvalidHand) as error:
        start_hand(variant, table, [1000, 1000], 0, shuffled_deck())
    assert error.value.field == "table.open_pair_big_bet"
    start_hand(variant, TABLE_7R, [1000, 1000], 0, shuffled_deck())  # off: fine


# ---- R-RAKE ---------------------------------------------------------------------

RAKED = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, rake_percent_bp=1000)


def test_no_drop_when_the_hand_ends_on_the_first_round_r_rake():
    """R-RAKE: everyone folds to the bring-in: nothing is taken."""
    hand, _ = new_hand(SEVEN, ["2c 3c 4c", "5c 6c 7c", "8c 9c Tc"], table=RAKED)
    events = play(hand, ["0 BRING_IN", "1 FOLD", "2 FOLD"])
    assert hand.result is not None and hand.result.rake == 0
    assert not any(isinstance(e, RakeTaken) for e in events)
    assert sum(hand.stacks) == 3000


def test_rake_taken_before_the_pots_and_conserved_r_rake_r_conservation():
    """R-RAKE, R-CONSERVATION: 10 % of a 45 pot is 4 (floored), taken before the award;
    stacks plus the rake are the starting stacks."""
    hand, events = showdown(
        HILO,
        ["Kc Kd Ks 9c 9d Jh 2c", "As 2h 3d 5s 4c 8h 7c", "Qh Jd Tc 7s 6d 3c 9h"],
        table=Table.for_game(HILO, 5, 10, 20, 40, rake_percent_bp=1000),
    )
    result = hand.result
    assert result is not None and result.rake == 4
    pot = result.pots[0]
    assert (pot.amount, pot.rake, pot.shares, pot.low_shares) == (41, 4, (21,), (20,))
    kinds = [type(e) for e in events]
    assert kinds.index(RakeTaken) < kinds.index(PotAwarded)
    assert sum(hand.stacks) + result.rake == 3000


def test_uncalled_chips_are_never_raked_r_rake():
    """R-RAKE: the uncalled bet goes back first; the rake is of the pot without it."""
    hand, _ = new_hand(SEVEN, ["2c 3c 4c 5c", "9d Td Kd Ah"], table=RAKED)
    play(hand, ["0 BRING_IN", "1 CALL", "1 BET", "0 FOLD"])
    result = hand.result
    assert result is not None
    assert result.uncalled == ((1, 20),)
    assert result.rake == 3  # 10 % of the 30 called, not of 50
    assert hand.stacks == [985, 1012]


def test_all_in_on_the_first_round_and_dealt_out_is_raked_r_rake():
    """R-RAKE: a hand whose players are all-in on the first round goes on to the later
    streets (the second round is started, with nobody left to bet): the rake is taken."""
    hand, _ = new_hand(SEVEN, ["2c 3c 4c", "9d Td Kd"], stacks=[25, 25], table=RAKED)
    play(hand, ["0 BRING_IN", "1 COMPLETE", "0 CALL"])
    assert hand.result is not None and hand.result.rake == 5
    assert sum(hand.stacks) == 45


def test_rake_rate_cap_and_order_of_the_pots_r_rake():
    """R-RAKE: floor of the rate, at most the cap (0: none); taken from the main pot on,
    each pot giving up to its own amount."""
    table = Table(5, 10, 20, 40, rake_percent_bp=500, rake_cap=0)
    assert rake_of(399, table) == 19
    assert rake_of(399, Table(5, 10, 20, 40, rake_percent_bp=500, rake_cap=7)) == 7
    assert rake_of(399, Table(5, 10, 20, 40)) == 0
    assert take_rake([30, 20, 10], 35) == [30, 5, 0]
    assert take_rake([30, 20], 0) == [0, 0]


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"rake_percent_bp": -1}, "table.rake_percent_bp"),
        ({"rake_percent_bp": 10_001}, "table.rake_percent_bp"),
        ({"rake_cap": -1}, "table.rake_cap"),
    ],
)
def test_bad_rake_options_refused_r_rake(options, field):
    """R-RAKE: the rate is 0 to 10,000 basis points, the cap 0 or more."""
    with pytest.raises(InvalidHand) as error:
        start_hand(SEVEN, Table(5, 10, 20, 40, **options), [100, 100], 0, shuffled_deck())
    assert error.value.field == field


@pytest.mark.parametrize("variant", [RAZZ, HILO], ids=lambda v: v.value)
def test_eight_players_share_a_community_card_r_community_card(variant):
    """R-COMMUNITY-CARD in Razz and Hi-Lo: eight players reaching seventh street share one
    card dealt face up to the middle; every live hand counts it at showdown."""
    for seed in range(5):
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        hand, _ = start_hand(variant, TABLE_7R, [1000] * 8, seed % 8, deck)
        check_down(hand)
        assert hand.community is not None and hand.result is not None
        assert all(len(cards) == 6 for cards in hand.cards)
        ranking = hand.spec.ranking
        for shown in hand.result.shown:
            assert shown.rank == ranking.rank([*hand.cards[shown.seat], hand.community])


# ---- R-ODD-CHIP-LOW ---------------------------------------------------------------


def test_low_card_order_ace_of_clubs_lowest_king_of_spades_highest_r_odd_chip_low():
    """R-ODD-CHIP-LOW: in a low game's card order the ace is the lowest rank and clubs
    the lowest suit: A♣, A♦, A♥, A♠, 2♣ ... K♠ (first gets the odd chip first)."""
    order = sorted(range(52), key=low_card_order, reverse=True)
    assert [format_card(c) for c in order[:5]] == ["Ac", "Ad", "Ah", "As", "2c"]
    assert format_card(order[-1]) == "Ks"
    assert RAZZ_SPEC.ranking.card_order is low_card_order
    assert HILO_SPEC.low_ranking is not None and HILO_SPEC.low_ranking.card_order is low_card_order
    assert HILO_SPEC.ranking.card_order(parse_cards("As")[0]) > HILO_SPEC.ranking.card_order(
        parse_cards("Ks")[0]
    )  # the high half keeps the high order


BY_SUIT = dataclasses.replace(TABLE_7R, odd_chip=OddChip.HIGH_CARD_BY_SUIT)


def test_razz_odd_chip_to_the_lowest_card_r_odd_chip_low():
    """R-ODD-CHIP-LOW, R-RAZZ-SHOWDOWN: equal lows (6-4-3-2-A) share 35; with
    HIGH_CARD_BY_SUIT the odd chip goes to the A♣ (seat 0), not to the K♠ of seat 1 (the
    highest card) nor to the seat nearest the dealer's left (seat 1)."""
    hands = ["Ac 2d 3d 4s 6h Qh Qd", "Ad 2c 3c 4c 6c Ks Kh", "9s 9h 2s"]
    for rule, odd_chip_to in [(BY_SUIT, 0), (TABLE_7R, 1)]:
        hand, _ = new_hand(RAZZ, hands, table=rule)
        play(hand, ["0 BRING_IN", "1 CALL", "2 FOLD"])
        check_down(hand)
        assert hand.result is not None
        pot = hand.result.pots[0]
        shares = dict(zip(pot.winners, pot.shares, strict=True))
        assert shares == {odd_chip_to: 18, 1 - odd_chip_to: 17}


def test_hilo_low_half_odd_chip_to_the_lowest_card_high_half_high_r_odd_chip_low():
    """R-ODD-CHIP-LOW, R-HILO-SPLIT: a 35 pot halves into 18 (kings, the high) and 17
    (6-4-3-2-A twice, the low); the low half's odd chip goes to the A♣ (seat 0) though
    seat 1 holds the highest card (K♠) and is nearest the dealer's left."""
    hand, _ = new_hand(
        HILO, ["Ac 2d 3d 4s 6h Kh Kd", "Ad 2c 3c 4c 6c Ks Qs", "9s 9h Js"], table=BY_SUIT
    )
    play(hand, ["1 BRING_IN", "2 FOLD", "0 CALL"])
    check_down(hand)
    assert hand.result is not None
    pot = hand.result.pots[0]
    assert (pot.winners, pot.shares) == ((0,), (18,))
    assert dict(zip(pot.low_winners, pot.low_shares, strict=True)) == {0: 9, 1: 8}
    assert hand.stacks == [1012, 993, 995]

"""Betting rounds, all-ins, side pots and the showdown (rulebook sections 4 to 6)."""

from __future__ import annotations

import pytest
from studengine.cards import parse_cards
from studengine.rules.board import board_strength
from studengine.rules.hand import Hand
from studengine.rules.types import (
    ActionType,
    HandMucked,
    HandShown,
    IllegalAction,
    OddChip,
    Refusal,
    StreetStarted,
    Table,
)
from support.stud_helpers import FIVE, SEVEN, TABLE_7S, check_down, conserved, legal, new_hand, play

THREE_7S = ["2c 3c Ac Kd", "2d 3d 5c 5d", "2h 3h Qh Jh"]  # seat 1 low (5c), then a pair


def _bets_at_each_street(hand: Hand) -> list[list[int]]:
    """Play passively; at each betting street note the BET sizes offered to its opener."""
    seen: list[list[int]] = []
    street = -1
    while hand.to_act is not None:
        if hand.street != street:
            street = hand.street
            seen.append([a.to or 0 for a in hand.legal_actions() if a.type is ActionType.BET])
        options = {a.type for a in hand.legal_actions()}
        for passive in (ActionType.CHECK, ActionType.BRING_IN, ActionType.CALL):
            if passive in options:
                hand.act(hand.to_act, passive)
                break
    return seen


def test_may_check_may_not_fold_r_actions():
    """R-ACTIONS: facing no bet a player checks or bets; folding is refused."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert legal(hand)[0] == "CHECK"
    assert hand.why_not(1, ActionType.FOLD) == "FOLD is not allowed now"


def test_no_raise_when_nobody_can_answer_r_actions():
    """R-ACTIONS: no raise is offered when everyone else is all-in."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d"], stacks=[30, 1000])
    play(hand, ["0 BRING_IN", "1 COMPLETE"])
    assert legal(hand) == ["FOLD", "CALL 20", "RAISE 25"]
    play(hand, ["0 RAISE 25"])
    assert legal(hand) == ["FOLD", "CALL 25"]


def test_bet_sizes_by_street_five_card_r_limits_5s():
    """R-LIMITS-5S: small bet on the first two rounds, big bet on the last two."""
    hand, _ = new_hand(FIVE, ["Kc 2h 7c 9d Jh", "Qd 3s 8h Ts Ad"])
    assert _bets_at_each_street(hand) == [[], [100], [200], [200]]


def test_bet_sizes_by_street_seven_card_r_limits_7s():
    """R-LIMITS-7S: third and fourth street small, fifth to seventh big."""
    hand, _ = new_hand(SEVEN, ["Kc Ah 2c 3d 4h 5c 6c", "Qd 3s 7h 8h 9s Td Jd"])
    assert _bets_at_each_street(hand) == [[], [20], [40], [40], [40]]


def test_open_pair_offers_both_sizes_r_open_pair():
    """R-OPEN-PAIR: a pair showing on fourth street allows the small or the big bet;
    off when the table option is off."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert legal(hand) == ["CHECK", "BET 20", "BET 40"]
    play(hand, ["1 BET 40"])
    assert legal(hand) == ["FOLD", "CALL 40", "RAISE 80"]  # after a big bet, big raises
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    hand, _ = new_hand(SEVEN, THREE_7S, button=0, table=table)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert legal(hand) == ["CHECK", "BET 20"]


def test_board_strength_ignores_straights_and_flushes_r_first_to_act():
    """R-FIRST-TO-ACT: only pairs, trips, quads and high cards count on a board."""
    pair = board_strength(parse_cards("2c 2d 3h 4s"))
    assert board_strength(parse_cards("5c 6d 7h 8s")) < pair
    assert board_strength(parse_cards("2h 5h 9h Jh")) < pair
    assert board_strength(parse_cards("Ac Ad Kc Kd")) < board_strength(parse_cards("Qc Qd Qh 2s"))
    assert board_strength(parse_cards("Ac Ad Kc Kd")) > board_strength(parse_cards("Ac Ad Kc Qd"))
    assert board_strength(parse_cards("Ac Kd")) == board_strength(parse_cards("As Kh"))


def test_pair_acts_first_and_ties_go_left_of_dealer_r_first_to_act():
    """R-FIRST-TO-ACT: the best board acts first; equal boards, nearest the dealer's left."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert hand.to_act == 1
    hand, _ = new_hand(SEVEN, ["2c 3c Ac Kd", "2d 3d 9c 8d", "2h 3h As Kh"], button=0)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert hand.to_act == 2


def test_cap_at_four_bets_and_table_option_r_cap():
    """R-CAP: a bet, a raise, a re-raise and a cap; then only call or fold."""
    hands = ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"]
    hand, _ = new_hand(SEVEN, hands)
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE", "0 RAISE", "1 RAISE"])
    assert legal(hand) == ["FOLD", "CALL 80"]
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, max_bets=2)
    hand, _ = new_hand(SEVEN, hands, table=table)
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE"])
    assert legal(hand) == ["FOLD", "CALL 40"]


def test_capped_round_stays_capped_when_heads_up_r_cap():
    """R-CAP: with uncapped_heads_up, a round capped before it became heads-up stays capped."""
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, uncapped_heads_up=True)
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"], table=table)
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE", "0 RAISE", "1 RAISE", "2 FOLD"])
    assert legal(hand) == ["FOLD", "CALL 80"]


def test_all_in_players_get_no_betting_rounds_r_round_end():
    """R-ROUND-END: with at most one player able to bet, the cards are dealt out."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h 3c 4c 5c 6c", "Kc Kd 9d 9h 9s 8c 7c"], stacks=[25, 25])
    events = play(hand, ["0 BRING_IN", "1 COMPLETE", "0 CALL"])
    streets = [e for e in events if isinstance(e, StreetStarted)]
    assert [s.betting for s in streets] == [False, False, False, False]
    assert hand.is_over and conserved(hand)


def test_call_for_less_is_all_in_r_table_stakes():
    """R-TABLE-STAKES: a player who cannot afford the call puts in all they have."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"], stacks=[1000, 1000, 20])
    play(hand, ["0 BRING_IN", "1 COMPLETE"])
    assert legal(hand) == ["FOLD", "CALL 15"]
    events = play(hand, ["2 CALL"])
    assert events[0].all_in and hand.stacks[2] == 0


def test_short_all_in_raise_does_not_reopen_r_half_bet():
    """R-HALF-BET: an all-in adding less than half a bet reopens nothing for those who
    acted; a player yet to act may complete it to a full raise."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"], stacks=[1000, 1000, 30])
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE 25"])
    assert legal(hand) == ["FOLD", "CALL 25", "RAISE 40"]
    play(hand, ["0 CALL"])
    assert legal(hand) == ["FOLD", "CALL 25"]


def test_half_bet_all_in_counts_as_raise_r_half_bet():
    """R-HALF-BET: an all-in adding half a bet or more is a full raise and reopens."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"], stacks=[1000, 1000, 35])
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE 30"])
    assert legal(hand) == ["FOLD", "CALL 30", "RAISE 50"]
    play(hand, ["0 CALL"])
    assert legal(hand) == ["FOLD", "CALL 30", "RAISE 50"]


SIDE_POT_HANDS = ["Ac Ad 2c Ah As 3c 4c", "Kc Kd 5h Ks 9d 8c 7c", "Qc Qd 6h 3d 4d 7d Jh"]


def test_layered_side_pots_r_side_pots():
    """R-SIDE-POTS: each all-in player is eligible only for the part they matched."""
    hand, _ = new_hand(SEVEN, SIDE_POT_HANDS, stacks=[50, 100, 1000])
    play(hand, ["0 BRING_IN", "1 COMPLETE", "2 RAISE 40", "0 RAISE 45", "1 RAISE 60", "2 CALL"])
    check_down(hand)
    assert hand.result is not None
    pots = [(p.amount, p.winners) for p in hand.result.pots]
    assert pots == [(150, (0,)), (30, (1,))]
    assert hand.stacks == [150, 65, 935]


def test_uncalled_chips_go_back_r_side_pots():
    """R-SIDE-POTS: a bet nobody matched returns to its owner and is in no pot."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d"])
    play(hand, ["0 COMPLETE", "1 FOLD"])
    assert hand.result is not None
    assert [(p.amount, p.winners) for p in hand.result.pots] == [(10, (0,))]
    assert hand.result.uncalled == ((0, 20),)
    assert hand.stacks == [1005, 995]


def _river_showdown(bettor_wins: bool) -> tuple[Hand, list]:
    strong, weak = "Ac Ad 2c Ah As 3c 4c", "Kc Qd 5h Js 9d 8c 6d"
    hand, _ = new_hand(SEVEN, [strong, weak] if bettor_wins else [weak, strong])
    while hand.street < 4:
        check_down_step(hand)
    events = []
    if hand.to_act == 1:
        events += play(hand, ["1 CHECK"])
    events += play(hand, ["0 BET", "1 CALL"])
    return hand, events


def check_down_step(hand: Hand) -> None:
    seat = hand.to_act
    assert seat is not None
    for passive in (ActionType.CHECK, ActionType.BRING_IN, ActionType.CALL):
        if hand.can(seat, passive):
            hand.act(seat, passive)
            return


def test_last_bettor_shows_first_r_showdown_order():
    """R-SHOWDOWN-ORDER: the last player to bet on the final round shows first."""
    for bettor_wins in (True, False):
        hand, _ = _river_showdown(bettor_wins)
        assert hand.result is not None and hand.result.shown[0].seat == 0


def test_loser_is_mucked_r_muck():
    """R-MUCK: a hand that is not first shown and wins nothing is mucked, never shown."""
    hand, events = _river_showdown(bettor_wins=True)
    assert hand.result is not None and hand.result.revealed == (0,)
    assert [e.seat for e in events if isinstance(e, HandMucked)] == [1]
    hand, events = _river_showdown(bettor_wins=False)
    assert hand.result is not None and hand.result.revealed == (0, 1)
    assert not [e for e in events if isinstance(e, HandMucked)]


def test_win_by_folds_reveals_nothing_r_muck():
    """R-MUCK: a hand won because everyone else folded reveals nothing."""
    hand, events = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d"])
    events = play(hand, ["0 BRING_IN", "1 FOLD"])
    assert hand.result is not None and hand.result.shown == ()
    assert not [e for e in events if isinstance(e, HandShown | HandMucked)]


def test_better_hand_wins_r_hand_rank():
    """R-HAND-RANK: a six-high straight beats the wheel; a flush beats a straight."""
    hand, _ = new_hand(FIVE, ["Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6c"])
    check_down(hand)
    assert hand.result is not None and hand.result.pots[0].winners == (1,)
    hand, _ = new_hand(FIVE, ["2h 4h 6h 8h Th", "9c Td Jh Qs Kc"])
    check_down(hand)
    assert hand.result is not None and hand.result.pots[0].winners == (0,)


SPLIT_HANDS = ["4c 5h 6d 7s 8c", "4d 5s 6h 7c 8d", "Kc Kd"]
TINY = dict(ante=1, bring_in=1, small_bet=2, big_bet=4)


def _split(rule: OddChip) -> Hand:
    table = Table(**TINY, odd_chip=rule)
    hand, _ = new_hand(FIVE, SPLIT_HANDS, stacks=[10, 10, 10], button=1, table=table)
    play(hand, ["0 BRING_IN", "1 CALL", "2 FOLD"])
    check_down(hand)
    return hand


def test_equal_hands_share_the_pot_r_split():
    """R-SPLIT: equal best hands share the pot; suits do not break the tie (R-SUITS)."""
    hand = _split(OddChip.LEFT_OF_DEALER)
    assert hand.result is not None
    assert hand.result.pots[0].winners == (0, 1) and sum(hand.result.pots[0].shares) == 5
    assert conserved(hand)


def test_odd_chip_left_of_dealer_or_high_card_r_odd_chip():
    """R-ODD-CHIP: the odd chip goes to the tied winner nearest the dealer's left, or
    with HIGH_CARD_BY_SUIT to the winner holding the highest card by suit."""
    assert _split(OddChip.LEFT_OF_DEALER).stacks == [11, 10, 9]
    assert _split(OddChip.HIGH_CARD_BY_SUIT).stacks == [10, 11, 9]


def test_seven_card_table_defaults():
    assert TABLE_7S.max_bets == 4 and TABLE_7S.open_pair_big_bet


def test_equal_small_and_big_bet_listed_once_on_open_pair_round_r_legal_once():
    """R-LEGAL-ONCE, R-OPEN-PAIR: with small_bet == big_bet the open-pair round offers
    one bet, not the same bet twice."""
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=20)
    hand, _ = new_hand(SEVEN, THREE_7S, button=0, table=table)
    play(hand, ["1 BRING_IN", "2 CALL", "0 CALL"])
    assert hand.round.open_pair  # seat 1 shows 5c 5d
    assert legal(hand) == ["CHECK", "BET 20"]


def test_no_raise_when_the_others_hold_no_more_than_a_call_r_actions():
    """R-ACTIONS: no raise is offered when every other player still in is all-in or
    holds no more than it takes to call."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0, stacks=[25, 25, 1000])
    play(hand, ["1 COMPLETE"])  # all-in to 20; seat 0, yet to act, has 20 in all
    assert hand.to_act == 2 and legal(hand) == ["FOLD", "CALL 20"]
    hand, _ = new_hand(SEVEN, THREE_7S, button=0, stacks=[26, 25, 1000])
    play(hand, ["1 COMPLETE"])  # seat 0 could put in 21: a raise can be answered
    assert legal(hand) == ["FOLD", "CALL 20", "RAISE 40"]


def test_fold_and_check_take_no_amount_r_actions():
    """R-ACTIONS: actions have one form; FOLD or CHECK with an amount is refused as a bad
    amount, like a CALL or RAISE at the wrong amount, and changes nothing."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0)
    play(hand, ["1 BRING_IN"])
    before = hand.copy()
    for action, to in [(ActionType.FOLD, 10), (ActionType.FOLD, 0), (ActionType.CALL, 20)]:
        with pytest.raises(IllegalAction) as refused:
            hand.act(2, action, to)
        assert refused.value.refusal is Refusal.BAD_AMOUNT
        assert hand == before
    play(hand, ["2 CALL", "0 CALL"])
    with pytest.raises(IllegalAction) as refused:
        hand.act(hand.to_act or 0, ActionType.CHECK, 0)
    assert refused.value.refusal is Refusal.BAD_AMOUNT and "takes no amount" in str(refused.value)


def test_refusals_carry_a_typed_reason_r_actions():
    """Each refusal says why in a machine-readable reason, not only in words."""
    hand, _ = new_hand(SEVEN, THREE_7S, button=0)
    cases = [
        (0, ActionType.CALL, Refusal.OUT_OF_TURN),
        (9, ActionType.CALL, Refusal.OUT_OF_TURN),
        (1, ActionType.CHECK, Refusal.NOT_LEGAL_NOW),
        (1, ActionType.FOLD, Refusal.NOT_LEGAL_NOW),
    ]
    for seat, action, refusal in cases:
        with pytest.raises(IllegalAction) as refused:
            hand.act(seat, action)
        assert refused.value.refusal is refusal
    play(hand, ["1 COMPLETE", "2 FOLD", "0 FOLD"])
    with pytest.raises(IllegalAction) as refused:
        hand.act(1, ActionType.CHECK)
    assert refused.value.refusal is Refusal.HAND_OVER

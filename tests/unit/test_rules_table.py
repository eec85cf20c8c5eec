"""Table, seats, deck, streets, antes and dealing (rulebook sections 1 to 3)."""

from __future__ import annotations

from collections import Counter

import pytest
from studengine.cards import FULL_DECK, parse_cards, shuffled_deck
from studengine.rules.hand import start_hand
from studengine.rules.types import (
    ActionType,
    AntePosted,
    CardDealt,
    InvalidHand,
    StreetStarted,
    Table,
    Variant,
)
from support.stud_helpers import FIVE, SEVEN, TABLE_5S, TABLE_7S, check_down, legal, new_hand, play


@pytest.mark.parametrize(
    ("variant", "count", "ok"),
    [
        (FIVE, 2, True),
        (FIVE, 10, True),
        (FIVE, 1, False),
        (FIVE, 11, False),
        (SEVEN, 8, True),
        (SEVEN, 9, False),
    ],
)
def test_player_count_by_variant_r_seats(variant, count, ok):
    """R-SEATS: 2 to 10 players in Five Card Stud, 2 to 8 in Seven Card Stud."""
    table = TABLE_5S if variant is FIVE else TABLE_7S
    if ok:
        hand, _ = start_hand(variant, table, [1000] * count, 0, shuffled_deck())
        assert hand.players == count
    else:
        with pytest.raises(InvalidHand) as error:
            start_hand(variant, table, [1000] * count, 0, shuffled_deck())
        assert error.value.field == "players"


def test_stacks_and_button_are_checked_r_seats():
    """R-SEATS: every stack above zero; the button is one of the seats."""
    with pytest.raises(InvalidHand) as error:
        start_hand(SEVEN, TABLE_7S, [100, 0, 100], 0, shuffled_deck())
    assert error.value.field == "players[1].stack"
    with pytest.raises(InvalidHand) as error:
        start_hand(SEVEN, TABLE_7S, [100, 100, 100], 3, shuffled_deck())
    assert error.value.field == "button"


@pytest.mark.parametrize(
    ("table", "field"),
    [
        (Table(ante=-1, bring_in=10, small_bet=20, big_bet=40), "table.ante"),
        (Table(ante=5, bring_in=0, small_bet=20, big_bet=40), "table.bring_in"),
        (Table(ante=5, bring_in=20, small_bet=20, big_bet=40), "table.bring_in"),
        (Table(ante=5, bring_in=10, small_bet=0, big_bet=40), "table.small_bet"),
        (Table(ante=5, bring_in=10, small_bet=20, big_bet=10), "table.big_bet"),
        (Table(ante=5, bring_in=10, small_bet=20, big_bet=40, max_bets=0), "table.max_bets"),
    ],
)
def test_bad_stakes_name_their_field_r_stakes(table, field):
    """R-STAKES: ante >= 0, bring-in > 0 and below the small bet, big bet >= small bet."""
    with pytest.raises(InvalidHand) as error:
        start_hand(SEVEN, table, [100, 100], 0, shuffled_deck())
    assert error.value.field == field


def test_no_ante_table_r_stakes_r_ante():
    """R-STAKES: some tables have no ante; R-ANTE: then nobody posts one."""
    table = Table(ante=0, bring_in=10, small_bet=20, big_bet=40)
    hand, events = start_hand(SEVEN, table, [100, 100, 100], 0, shuffled_deck())
    assert not [e for e in events if isinstance(e, AntePosted)]
    assert hand.pot == 0


def test_shuffle_is_a_permutation_and_varies_r_deck():
    """R-DECK: every shuffle is the 52 cards once each, and every card can come first."""
    firsts: Counter[int] = Counter()
    for _ in range(3000):
        deck = shuffled_deck()
        assert sorted(deck) == list(FULL_DECK)
        firsts[deck[0]] += 1
    assert len(firsts) == 52


def test_cards_come_from_the_fixed_order_r_deck():
    """R-DECK: the order is fixed at the start; every card dealt later comes from it."""
    deck = shuffled_deck()
    hand, events = start_hand(SEVEN, TABLE_7S, [1000] * 4, 2, deck)
    check_down(hand)
    dealt = [e.card for e in events if isinstance(e, CardDealt)]
    assert hand.deck == deck
    assert dealt == deck[: len(dealt)]


@pytest.mark.parametrize("bad", [["As", "As"], ["As", "Zz"]])
def test_test_deck_with_bad_card_is_refused_r_deck(bad):
    """R-DECK: a chosen deck with a duplicate or unknown card is refused, naming the card."""
    with pytest.raises((InvalidHand, ValueError)) as error:
        start_hand(SEVEN, TABLE_7S, [100, 100], 0, parse_cards(bad))
    assert "deck" in str(error.value) or "card" in str(error.value)


def test_deal_starts_left_of_button_r_deal_order():
    """R-DEAL-ORDER: one card at a time, from the dealer's left, clockwise; two down
    cards are two rounds."""
    _, events = start_hand(SEVEN, TABLE_7S, [1000] * 3, 1, shuffled_deck())
    seats = [e.seat for e in events if isinstance(e, CardDealt)]
    assert seats == [2, 0, 1, 2, 0, 1, 2, 0, 1]


def test_antes_short_stack_all_in_r_ante():
    """R-ANTE: everyone antes before any card; a stack below the ante posts it all."""
    hand, events = new_hand(FIVE, ["Kc Ah", "Qd 3s", "Jh 9d"], stacks=[1000, 30, 1000])
    antes = [e for e in events if isinstance(e, AntePosted)]
    assert [(a.seat, a.amount, a.all_in) for a in antes] == [
        (1, 30, True),
        (2, 50, False),
        (0, 50, False),
    ]
    first_card = next(i for i, e in enumerate(events) if isinstance(e, CardDealt))
    assert first_card == len(antes)
    assert hand.pot == 130


def test_five_card_stud_streets_r_5s_streets():
    """R-5S-STREETS: one down and one up, then three up cards; four betting rounds."""
    hand, events = new_hand(FIVE, ["Kc Ah 2c 3d 4h", "Qd 3s 7h 8h 9s"])
    check_down(hand)
    rounds = [e for e in events if isinstance(e, StreetStarted)]
    assert hand.is_over
    assert all(len(hand.cards[s]) == 5 for s in (0, 1))
    assert hand.spec.face_up == (False, True, True, True, True)
    assert len(hand.spec.streets) == 4 and rounds[0].street == 0


def test_seven_card_stud_streets_r_7s_streets():
    """R-7S-STREETS: two down and one up, three up cards, then one down; five rounds."""
    hand, _ = new_hand(SEVEN, ["Kc Ah 2c 3d 4h 5c 6c", "Qd 3s 7h 8h 9s Td Jd"])
    check_down(hand)
    assert hand.is_over
    assert [len(c) for c in hand.cards] == [7, 7]
    assert hand.spec.face_up == (False, False, True, True, True, True, False)
    assert hand.down_cards(0) == parse_cards("Kc Ah 6c")


def test_community_card_with_eight_players_r_community_card():
    """R-COMMUNITY-CARD: eight players on seventh street get one shared card face up."""
    hand, _ = start_hand(SEVEN, TABLE_7S, [1000] * 8, 7, shuffled_deck())
    events = check_down(hand)
    community = [e for e in events if isinstance(e, CardDealt) and e.seat is None]
    assert len(community) == 1 and community[0].face_up
    assert hand.community == community[0].card
    assert all(len(cards) == 6 for cards in hand.cards)
    assert hand.community not in [c for s in range(8) for c in hand.up_cards(s)]


def test_lowest_up_card_brings_in_suit_breaks_rank_tie_r_bring_in_who_r_suits():
    """R-BRING-IN-WHO and R-SUITS: lowest rank, and 2c below 2d below 2h below 2s."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 2d", "Qc Qd 3c"])
    assert hand.to_act == 1
    assert legal(hand) == ["BRING_IN 10", "COMPLETE 20"]


def test_bring_in_may_not_fold_or_check_r_bring_in_choice():
    """R-BRING-IN-CHOICE: the low card brings in or completes; fold and check refused."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d"])
    for action in (ActionType.FOLD, ActionType.CHECK, ActionType.CALL):
        assert hand.why_not(0, action) is not None
    play(hand, ["0 COMPLETE"])
    assert hand.to_act == 1 and legal(hand) == ["FOLD", "CALL 20", "RAISE 40"]


def test_nobody_completes_round_ends_at_bring_in_r_bring_in_action():
    """R-BRING-IN-ACTION: callers of the bring-in; back at the bring-in the round ends."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"])
    play(hand, ["0 BRING_IN", "1 CALL", "2 CALL"])
    assert hand.street == 1 and hand.pot == 45


def test_everybody_folds_to_bring_in_r_bring_in_action():
    """R-BRING-IN-ACTION: if everybody folds to the bring-in, the bring-in wins."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"])
    play(hand, ["0 BRING_IN", "1 FOLD", "2 FOLD"])
    assert hand.is_over and hand.stacks == [1010, 995, 995]


def test_short_bring_in_others_call_full_r_short_bring_in():
    """R-SHORT-BRING-IN: a bring-in below the bring-in is all-in; others call in full."""
    hand, _ = new_hand(SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c"], stacks=[12, 1000, 1000])
    assert legal(hand) == ["BRING_IN 7"]
    play(hand, ["0 BRING_IN"])
    assert legal(hand) == ["FOLD", "CALL 10", "COMPLETE 20"]


def test_low_card_all_in_after_ante_next_player_opens_r_ante_all_in_low():
    """R-ANTE-ALL-IN-LOW: the low card is all-in from the ante; the next may fold,
    bring in or complete, and a fold passes the same choice on."""
    hand, _ = new_hand(
        SEVEN, ["Ac Ad 2h", "Kc Kd 9d", "Qc Qd 8c", "Jc Jd 7c"], stacks=[5, 1000, 1000, 1000]
    )
    assert hand.to_act == 1 and legal(hand) == ["FOLD", "BRING_IN 10", "COMPLETE 20"]
    play(hand, ["1 FOLD"])
    assert hand.to_act == 2 and legal(hand) == ["FOLD", "BRING_IN 10", "COMPLETE 20"]


def test_opener_folds_to_the_only_player_left_who_can_act_no_round_r_ante_all_in_low():
    """R-ANTE-ALL-IN-LOW, R-ROUND-END: when the opener folds and the next player is the
    only one left who can act, nobody owes anything: no round, the cards are dealt out."""
    hand, _ = new_hand(
        FIVE,
        ["Ac Kh 9c 9d 4h", "5d 2c 3s 3h 7s", "Tc 8d", "2s Qs 6c 6d 8h"],
        stacks=[1000, 50, 1000, 50],
        button=3,
    )
    assert hand.to_act == 2 and legal(hand) == ["FOLD", "BRING_IN 50", "COMPLETE 100"]
    events = play(hand, ["2 FOLD"])
    assert hand.is_over and hand.to_act is None
    assert not any(isinstance(e, StreetStarted) and e.betting for e in events)
    assert hand.stacks == [1150, 0, 950, 0]  # nines beat sixes and threes


@pytest.mark.parametrize(
    ("variant", "open_pair"),
    [
        (Variant.FIVE_CARD_STUD, True),
        (Variant.SEVEN_CARD_STUD, True),
        (Variant.RAZZ, False),
        (Variant.SEVEN_CARD_STUD_HI_LO, False),
    ],
)
def test_table_for_game_takes_the_games_defaults_r_open_pair(variant, open_pair):
    """R-OPEN-PAIR, section 7: ``Table.for_game`` turns the open-pair option on only in the
    games that have it, so its table always starts a hand; options given are kept."""
    table = Table.for_game(variant, 5, 10, 20, 40)
    assert table == Table(5, 10, 20, 40, open_pair_big_bet=open_pair)
    start_hand(variant, table, [1000] * 3, 0, shuffled_deck())
    raked = Table.for_game(variant, ante=5, bring_in=10, small_bet=20, big_bet=40, rake_cap=7)
    assert raked == Table(5, 10, 20, 40, open_pair_big_bet=open_pair, rake_cap=7)
    off = Table.for_game(variant, 5, 10, 20, 40, open_pair_big_bet=False)
    assert not off.open_pair_big_bet
    with pytest.raises(TypeError):
        Table.for_game(variant, 5, 10, 20, 40, no_such_option=1)

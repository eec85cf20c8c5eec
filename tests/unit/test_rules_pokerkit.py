"""Differential test against PokerKit (a `test` extra of the server distribution): the
same random hands of Razz and Seven Card Stud Hi-Lo, played by our engine and by
PokerKit's ``FixedLimitRazz`` and ``FixedLimitSevenCardStudHighLowSplitEightOrBetter``
card for card, must agree at every decision on who acts (R-RAZZ-BRING-IN,
R-RAZZ-FIRST-TO-ACT, R-HILO-BRING-IN) and on the legal set, and at the end on every
stack (R-RAZZ-SHOWDOWN, R-LOW-A5, R-HILO-QUALIFY, R-HILO-SPLIT, R-ODD-CHIP).

Deep stacks only (nobody goes all-in), up to seven players (eight reach seventh street
with a community card, R-COMMUNITY-CARD, which this harness does not deal to PokerKit),
no rake (R-RAKE is proved by our own tests). Known departures of PokerKit from our
rulebook, outside what is compared here:

- PokerKit lets a player who may check fold (with a warning, "There is no reason for
  this player to fold"); R-ACTIONS does not, so that fold is left out of its set here;
- short stacks (found with this file's harness on 1,500 seeded hands a game mixing
  deep and short stacks, outside the suite): the legal sets differ at about one hand in
  seven, always after an all-in: PokerKit sizes the raise after a short all-in from the
  all-in total, not from the last full bet (R-HALF-BET: 12 where PokerKit says 13), offers
  no raise in some spots where R-HALF-BET reopens the betting, and does not let the
  R-ANTE-ALL-IN-LOW opener fold; in Hi-Lo the final stacks differ in about one hand in
  thirty: PokerKit splits a side pot's low half among players none of whom has a
  qualifying low, where R-HILO-SPLIT gives the whole pot to the high hand (e.g. side pots
  of 90, 16 and 18 with no eligible low: we pay them wholly to the high hand, PokerKit
  splits their low halves, 62 chips, 31 each between that hand and another, neither
  qualifying), and hands an odd chip of a split half to
  another winner (one chip).

Seats: PokerKit has no button; its player 0 is dealt first, so it is our dealer's left
(``button + 1``), and its ties between equal boards go to the lower index, as ours go to
the player nearest the dealer's left.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import pytest
from studengine.cards import format_card
from studengine.rules.hand import Hand, start_hand
from studengine.rules.types import ActionType, Table, Variant

if os.environ.get("CI") == "true":
    import pokerkit  # in CI the test extra is installed: a missing PokerKit fails
else:
    pokerkit = pytest.importorskip(
        "pokerkit", reason="PokerKit is missing: pip install -e '.[test]' (the test extra)"
    )

HANDS_PER_GAME = int(os.environ.get("PK_HANDS", "1500"))
STACK = 100_000  # deep: five rounds of four big bets never reach it
AUTOMATIONS = (
    pokerkit.Automation.ANTE_POSTING,
    pokerkit.Automation.BET_COLLECTION,
    pokerkit.Automation.BLIND_OR_STRADDLE_POSTING,
    pokerkit.Automation.CARD_BURNING,
    pokerkit.Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    pokerkit.Automation.HAND_KILLING,
    pokerkit.Automation.CHIPS_PUSHING,
    pokerkit.Automation.CHIPS_PULLING,
)
GAMES: dict[Variant, Any] = {
    Variant.RAZZ: pokerkit.FixedLimitRazz,
    Variant.SEVEN_CARD_STUD_HI_LO: pokerkit.FixedLimitSevenCardStudHighLowSplitEightOrBetter,
}
AGGRESSIVE = {ActionType.COMPLETE, ActionType.BET, ActionType.RAISE}

Move = tuple[str, int | None]  # ("FOLD"|"CHECK"|"CALL"|"BRING_IN"|"RAISE", to)


def random_table(rng: random.Random) -> Table:
    small = rng.choice([2, 4, 10, 20])
    return Table(
        ante=rng.choice([0, 1, small // 4, small // 2]),
        bring_in=rng.randint(1, small // 2),
        small_bet=small,
        big_bet=small * rng.choice([1, 2]),
        open_pair_big_bet=False,
    )


def our_moves(hand: Hand) -> set[Move]:
    """Our legal set, a completion, bet or raise written as one kind ("RAISE")."""
    return {("RAISE" if a.type in AGGRESSIVE else a.type.value, a.to) for a in hand.legal_actions()}


def their_moves(state: Any, bet_before: int) -> set[Move]:
    """PokerKit's legal set in the same words (``bet_before``: the player's round bet)."""
    moves: set[Move] = set()
    # PokerKit lets a player fold who could check (with a warning); R-ACTIONS does not
    if state.can_fold() and state.checking_or_calling_amount:
        moves.add(("FOLD", None))
    if state.can_post_bring_in():
        moves.add(("BRING_IN", bet_before + state.effective_bring_in_amount))
    if state.can_check_or_call():
        owed = state.checking_or_calling_amount
        moves.add(("CALL", bet_before + owed) if owed else ("CHECK", None))
    if state.can_complete_bet_or_raise_to():
        low = state.min_completion_betting_or_raising_to_amount
        high = state.max_completion_betting_or_raising_to_amount
        assert low == high, "fixed limit: one size"
        moves.add(("RAISE", low))
    return moves


def apply_theirs(state: Any, move: Move) -> None:
    kind, to = move
    actions: dict[str, Callable[[], Any]] = {
        "FOLD": state.fold,
        "CHECK": state.check_or_call,
        "CALL": state.check_or_call,
        "BRING_IN": state.post_bring_in,
        "RAISE": lambda: state.complete_bet_or_raise_to(to),
    }
    actions[kind]()


def deal_theirs(state: Any, deck: list[int]) -> None:
    """Deal PokerKit the cards our engine dealt, in our deck's order (pk player 0 first)."""
    while state.can_deal_hole():
        card = deck.pop(0)
        state.deal_hole(format_card(card))


def play_both(variant: Variant, rng: random.Random) -> dict[str, int]:
    """One random hand through both engines; returns what it exercised."""
    players = rng.randint(2, 7)
    table = random_table(rng)
    button = rng.randrange(players)
    deck = list(range(52))
    rng.shuffle(deck)
    hand, _ = start_hand(variant, table, [STACK] * players, button, deck)
    seat_of = [(button + 1 + i) % players for i in range(players)]  # pk index -> our seat
    pk_of = {seat: i for i, seat in enumerate(seat_of)}
    state = GAMES[variant].create_state(
        AUTOMATIONS,
        True,
        table.ante,
        table.bring_in,
        table.small_bet,
        table.big_bet,
        STACK,
        players,
        mode=pokerkit.Mode.CASH_GAME,
    )
    # PokerKit deals to the players still in, player 0 first: our deck order exactly
    remaining = list(deck)
    decisions = 0
    while hand.to_act is not None:
        deal_theirs(state, remaining)
        me = hand.to_act
        assert state.actor_index is not None, "PokerKit thinks nobody acts"
        assert seat_of[state.actor_index] == me, (variant, "to act", hand.street)
        ours = our_moves(hand)
        theirs = their_moves(state, hand.round.bets[me])
        assert ours == theirs, (variant, hand.street, ours, theirs)
        legal = hand.legal_actions()
        stay = [a for a in legal if a.type is not ActionType.FOLD]
        choice = rng.choice(legal if rng.random() < 0.1 else stay)  # showdowns often
        move: Move = ("RAISE" if choice.type in AGGRESSIVE else choice.type.value, choice.to)
        hand.act(me, choice.type, choice.to)
        apply_theirs(state, move)
        decisions += 1
    deal_theirs(state, remaining)
    assert not state.status, "PokerKit's hand is not over"
    assert hand.result is not None
    their_stacks = [state.stacks[pk_of[seat]] for seat in range(players)]
    assert list(hand.stacks) == their_stacks, (variant, hand.result, their_stacks)
    return {
        "decisions": decisions,
        "showdowns": int(bool(hand.result.shown)),
        "split": int(any(p.low_winners for p in hand.result.pots)),
        "ties": int(any(len(p.winners) > 1 or len(p.low_winners) > 1 for p in hand.result.pots)),
    }


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")  # PokerKit's advice on the dealt cards
@pytest.mark.parametrize("variant", list(GAMES), ids=lambda v: v.value)
def test_pokerkit_agrees_on_deep_stacks(variant: Variant) -> None:
    """R-RAZZ-BRING-IN, R-RAZZ-FIRST-TO-ACT, R-RAZZ-SHOWDOWN, R-HILO-BRING-IN,
    R-HILO-QUALIFY, R-HILO-SPLIT, R-LOW-A5: 1,500 random deep-stack hands per game agree
    with PokerKit on every actor, every legal set and every final stack."""
    rng = random.Random(f"pokerkit-{variant.value}")
    seen: dict[str, int] = {}
    for _ in range(HANDS_PER_GAME):
        for key, value in play_both(variant, rng).items():
            seen[key] = seen.get(key, 0) + value
    assert seen["decisions"] > 10 * HANDS_PER_GAME
    assert seen["showdowns"] > HANDS_PER_GAME // 10
    assert seen["ties"] >= 1  # tied hands (R-ODD-CHIP) are compared too; seeded, so stable
    if variant is Variant.SEVEN_CARD_STUD_HI_LO:
        assert seen["split"] > HANDS_PER_GAME // 10

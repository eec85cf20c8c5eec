"""The betting round: what the player to act may do, and what counts as a full bet
(R-ACTIONS, R-BRING-IN-*, R-CAP, R-OPEN-PAIR, R-HALF-BET, R-TABLE-STAKES, R-ROUND-END).

Functions of a hand's state only; ``Hand`` applies their answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studengine.rules.types import ActionType, LegalAction

if TYPE_CHECKING:
    from studengine.rules.hand import Hand

FOLD = LegalAction(ActionType.FOLD)
CHECK = LegalAction(ActionType.CHECK)
CHECK_ONLY = (CHECK,)
CALL, BET, COMPLETE, RAISE = ActionType.CALL, ActionType.BET, ActionType.COMPLETE, ActionType.RAISE
_new = tuple.__new__


def _legal(kind: ActionType, to: int) -> LegalAction:
    """``LegalAction(kind, to)`` without the named tuple's Python-level ``__new__``."""
    return _new(LegalAction, (kind, to))


def full_bet(hand: Hand) -> int:
    """The round's full bet, the yardstick of R-HALF-BET.

    On the open-pair round it is the small bet until a big bet or raise is made.
    """
    table = hand.table
    if hand.spec.big_bet_streets[hand.street] or (hand.open_pair and hand.big_made):
        return table.big_bet
    return table.small_bet


def others_can_answer(hand: Hand, seat: int) -> bool:
    """Whether another player still in the hand could put in more chips (R-ACTIONS)."""
    stacks, folded = hand.stacks, hand.folded
    for other in range(len(stacks)):
        if other != seat and stacks[other] > 0 and not folded[other]:
            return True
    return False


def is_capped(hand: Hand) -> bool:
    """R-CAP: at most ``max_bets`` bets a round, unless the round went uncapped heads-up."""
    return not hand.uncapped and hand.bets >= hand.table.max_bets


def legal_actions(hand: Hand) -> tuple[LegalAction, ...]:
    """The exact choices of the player to act, with their ``to`` amounts.

    The hot path of every action, so the cap and full-bet tests are written out here.
    """
    seat = hand.to_act
    if seat is None:
        return ()
    bet = hand.round_bets[seat]
    all_in_to = bet + hand.stacks[seat]
    if hand.bring_in_due:
        return bring_in_choices(hand, seat, all_in_to)

    level = hand.level
    if level <= bet:
        call = None
    elif level < all_in_to:
        call = _legal(CALL, level)
    else:  # R-TABLE-STAKES: calling puts the player all in, and no raise is left
        return (FOLD, _legal(CALL, all_in_to))
    table = hand.table
    if (
        hand.acted[seat]  # R-HALF-BET: a short all-in reopens nothing for those who acted
        or (hand.bets >= table.max_bets and not hand.uncapped)  # R-CAP
        or not others_can_answer(hand, seat)
    ):
        return CHECK_ONLY if call is None else (FOLD, call)
    # BET into nothing, COMPLETE a bring-in or a short all-in bet, RAISE a full bet
    kind = RAISE if hand.bets else (BET if level == 0 else COMPLETE)
    if hand.open_pair and not hand.big_made:  # R-OPEN-PAIR: small or big
        sizes = (table.small_bet, table.big_bet)
        raises = raise_choices(kind, hand.full_level, sizes, all_in_to)
        return (CHECK, *raises) if call is None else (FOLD, call, *raises)
    # the full bet (R-HALF-BET); on the open-pair round a big bet or raise was made by now
    big = hand.open_pair or hand.spec.big_bet_streets[hand.street]
    to = hand.full_level + (table.big_bet if big else table.small_bet)
    offer = _legal(kind, to if to < all_in_to else all_in_to)
    return (CHECK, offer) if call is None else (FOLD, call, offer)


def bring_in_choices(hand: Hand, seat: int, all_in_to: int) -> tuple[LegalAction, ...]:
    """R-BRING-IN-CHOICE, R-SHORT-BRING-IN, R-ANTE-ALL-IN-LOW: the opener's choices."""
    table = hand.table
    actions = [FOLD] if hand.opener_may_fold else []
    actions.append(_legal(ActionType.BRING_IN, min(table.bring_in, all_in_to)))
    if all_in_to > table.bring_in and others_can_answer(hand, seat):
        actions.append(_legal(ActionType.COMPLETE, min(table.small_bet, all_in_to)))
    return tuple(actions)


def raise_choices(
    kind: ActionType, full_level: int, sizes: tuple[int, ...], all_in_to: int
) -> tuple[LegalAction, ...]:
    """A bet or raise of each size; R-TABLE-STAKES: offered at the all-in total instead."""
    targets = [full_level + size for size in sizes]
    if targets[-1] > all_in_to:
        targets = sorted({min(to, all_in_to) for to in targets})
    return tuple(_legal(kind, to) for to in targets)


def next_to_act(hand: Hand, after: int) -> int | None:
    """The next player clockwise after ``after`` who must act, or None: the round is over."""
    players = len(hand.stacks)
    folded, stacks, acted, bets, level = (
        hand.folded,
        hand.stacks,
        hand.acted,
        hand.round_bets,
        hand.level,
    )
    for step in range(1, players + 1):
        seat = (after + step) % players
        if not folded[seat] and stacks[seat] > 0 and (not acted[seat] or bets[seat] < level):
            return seat  # R-ROUND-END: still in, not all-in, yet to act or owing chips
    return None

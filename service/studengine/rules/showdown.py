"""The end of a hand: uncalled chips back, pots awarded, hands shown or mucked
(R-SHOWDOWN-ORDER, R-MUCK, R-HAND-RANK, R-SPLIT, R-ODD-CHIP, R-SIDE-POTS).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studengine import evaluator
from studengine.rules.board import best_board, clockwise_from
from studengine.rules.pots import build_layers, split_pot, uncalled_chips
from studengine.rules.types import (
    Event,
    HandEnded,
    HandMucked,
    HandResult,
    HandShown,
    Pot,
    PotAwarded,
    ShownHand,
    UncalledReturned,
)

if TYPE_CHECKING:
    from studengine.rules.hand import Hand


def first_to_show(hand: Hand, live: list[int]) -> int:
    """R-SHOWDOWN-ORDER: the last bettor on the final round, else its first actor,
    else (no round held) the best board."""
    if hand.round_held:
        if hand.last_aggressor is not None and not hand.folded[hand.last_aggressor]:
            return hand.last_aggressor
        if hand.first_actor is not None:
            for seat in clockwise_from(hand.first_actor, len(hand.stacks)):
                if not hand.folded[seat]:
                    return seat
    from_left = [s for s in clockwise_from(hand.button + 1, len(hand.stacks)) if s in live]
    return best_board(from_left, hand.up_cards)


def settle(hand: Hand) -> list[Event]:
    """Pay the hand out, record its result and return the closing events."""
    events: list[Event] = []
    players = len(hand.stacks)
    uncalled = uncalled_chips(hand.committed)
    if uncalled is not None:
        seat, amount = uncalled
        hand.committed[seat] -= amount
        hand.stacks[seat] += amount
        events.append(UncalledReturned(seat, amount))

    live = [seat for seat in range(players) if not hand.folded[seat]]
    showdown = len(live) > 1
    ranks: dict[int, int] = {}
    holdings: dict[int, list[int]] = {}
    if showdown:
        for seat in live:
            holdings[seat] = hand.cards[seat] + ([] if hand.community is None else [hand.community])
            ranks[seat] = evaluator.evaluate(holdings[seat])

    layers = build_layers(hand.committed, hand.folded)
    pots: list[Pot] = []
    for layer in layers:
        if showdown and len(layer.eligible) > 1:
            best = max(ranks[seat] for seat in layer.eligible)
            winners = tuple(seat for seat in layer.eligible if ranks[seat] == best)
        else:
            winners = layer.eligible
        shares = split_pot(
            layer.amount,
            winners,
            hand.table.odd_chip,
            hand.button,
            players,
            lambda seat: max(hand.cards[seat]),
        )
        pots.append(Pot(layer.amount, layer.eligible, winners, shares))

    shown: list[ShownHand] = []
    if showdown:
        first = first_to_show(hand, live)
        pot_winners = {seat for pot in pots for seat in pot.winners}
        for seat in clockwise_from(first, players):
            if hand.folded[seat]:
                continue
            if seat == first or seat in pot_winners:
                rank = ranks[seat]
                cards = tuple(hand.cards[seat])
                five = tuple(evaluator.best_five(holdings[seat]))
                description = evaluator.describe(rank)
                shown.append(ShownHand(seat, cards, five, rank, description))
                events.append(HandShown(seat, cards, five, rank, description))
            else:
                events.append(HandMucked(seat))

    for index in range(len(pots) - 1, -1, -1):  # R-SPLIT: last side pot first
        pot = pots[index]
        for seat, share in zip(pot.winners, pot.shares, strict=True):
            hand.stacks[seat] += share
        description = evaluator.describe(ranks[pot.winners[0]]) if showdown else ""
        events.append(PotAwarded(index, pot.amount, pot.winners, pot.shares, description))
    hand.committed = [0] * players
    hand.round_bets = [0] * players
    hand.to_act = None
    hand.over = True
    hand.result = HandResult(
        pots=tuple(pots),
        stacks=tuple(hand.stacks),
        shown=tuple(shown),
        uncalled=() if uncalled is None else (uncalled,),
    )
    events.append(HandEnded(tuple(hand.stacks)))
    return events

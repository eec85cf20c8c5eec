"""The end of a hand, worked out without touching it: uncalled chips back, pots awarded,
hands shown or mucked (R-SIDE-POTS, R-SHOWDOWN-ORDER, R-MUCK, R-HAND-RANK, R-SPLIT,
R-ODD-CHIP). ``settle`` returns a ``Settlement``; ``Hand`` applies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from studengine.rules.betting import BettingRound
from studengine.rules.board import best_board, clockwise_from
from studengine.rules.pots import build_layers, split_pot, uncalled_chips
from studengine.rules.types import OddChip, Pot, ShownHand
from studengine.rules.variants import VariantSpec


@dataclass(frozen=True)
class Showing:
    """One seat's turn at showdown, in showing order: its hand shown, or mucked (None)."""

    seat: int
    shown: ShownHand | None


@dataclass(frozen=True)
class Settlement:
    """Everything the end of a hand moves and reveals."""

    uncalled: tuple[int, int] | None  # (seat, chips) nobody matched, returned first
    pots: tuple[Pot, ...]  # main pot first; each pot's winners and their shares
    descriptions: tuple[str, ...]  # each pot's winning hand ("" when uncontested)
    showings: tuple[Showing, ...]  # empty when everyone else folded


@dataclass(frozen=True)
class Finished:
    """What the showdown reads of a finished hand: its cards, chips and last round."""

    spec: VariantSpec
    odd_chip: OddChip
    button: int
    cards: Sequence[Sequence[int]]
    community: int | None
    committed: Sequence[int]
    folded: Sequence[bool]
    last_round: BettingRound


def settle(hand: Finished) -> Settlement:
    """The settlement of a finished hand (R-SIDE-POTS, R-SPLIT, R-MUCK)."""
    players = len(hand.committed)
    committed = list(hand.committed)
    uncalled = uncalled_chips(committed)
    if uncalled is not None:
        committed[uncalled[0]] -= uncalled[1]

    live = [seat for seat in range(players) if not hand.folded[seat]]
    ranking = hand.spec.ranking
    holdings = {
        seat: [*hand.cards[seat], *([] if hand.community is None else [hand.community])]
        for seat in live
    }
    ranks = {seat: ranking.rank(cards) for seat, cards in holdings.items()} if len(live) > 1 else {}

    pots: list[Pot] = []
    descriptions: list[str] = []
    for layer in build_layers(committed, hand.folded):
        if ranks and len(layer.eligible) > 1:
            best = max(ranks[seat] for seat in layer.eligible)
            winners = tuple(seat for seat in layer.eligible if ranks[seat] == best)
        else:
            winners = layer.eligible
        shares = split_pot(
            layer.amount,
            winners,
            hand.odd_chip,
            hand.button,
            players,
            lambda seat: max(hand.cards[seat]),
        )
        pots.append(Pot(layer.amount, layer.eligible, winners, shares))
        descriptions.append(ranking.describe(ranks[winners[0]]) if ranks else "")

    showings: list[Showing] = []
    if ranks:
        first = first_to_show(hand, live)
        pot_winners = {seat for pot in pots for seat in pot.winners}
        for seat in clockwise_from(first, players):
            if hand.folded[seat]:
                continue
            shown = None
            if seat == first or seat in pot_winners:  # R-MUCK
                rank = ranks[seat]
                shown = ShownHand(
                    seat,
                    tuple(hand.cards[seat]),
                    tuple(ranking.best_five(holdings[seat])),
                    rank,
                    ranking.describe(rank),
                )
            showings.append(Showing(seat, shown))
    return Settlement(uncalled, tuple(pots), tuple(descriptions), tuple(showings))


def first_to_show(hand: Finished, live: list[int]) -> int:
    """R-SHOWDOWN-ORDER: the last bettor on the final round, else its first actor,
    else (no round held) the best board."""
    last = hand.last_round
    players = len(hand.committed)
    if last.held:
        if last.last_aggressor is not None and not hand.folded[last.last_aggressor]:
            return last.last_aggressor
        if last.first_actor is not None:
            for seat in clockwise_from(last.first_actor, players):
                if not hand.folded[seat]:
                    return seat
    from_left = [s for s in clockwise_from(hand.button + 1, players) if s in live]
    up = hand.spec.up_positions
    return best_board(
        from_left,
        lambda seat: [hand.cards[seat][i] for i in up if i < len(hand.cards[seat])],
        hand.spec.board_strength,
    )

"""Settling the pot: uncalled chips, side pots in layers, the rake, splits and odd chips
(R-SIDE-POTS, R-RAKE, R-SPLIT, R-ODD-CHIP).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, final

from studengine.rules.types import OddChip, Record, Table

BASIS_POINTS = 10_000


@final
class Layer(Record):
    __match_args__ = ("amount", "eligible")

    def __init__(self, amount: int, eligible: tuple[int, ...]) -> None:
        self.amount: Final = amount
        self.eligible: Final = eligible


def uncalled_chips(committed: Sequence[int]) -> tuple[int, int] | None:
    """(seat, amount) of the chips no other player matched, or None.

    Only the top contributor can have such chips: the excess over the second-highest
    contribution, folded players included.
    """
    if len(committed) < 2:
        return None
    top = max(range(len(committed)), key=committed.__getitem__)
    second = max(c for seat, c in enumerate(committed) if seat != top)
    excess = committed[top] - second
    return (top, excess) if excess > 0 else None


def build_layers(committed: Sequence[int], folded: Sequence[bool]) -> list[Layer]:
    """Main pot first, then side pots, built in layers of contribution.

    Each layer ends at the total of a player still in the hand; the players eligible
    for it are those still in who put in at least that much. Chips of folded players
    above the highest live total (none once uncalled chips are returned) join the top layer.
    """
    live = [seat for seat in range(len(committed)) if not folded[seat]]
    levels = sorted({committed[seat] for seat in live if committed[seat] > 0})
    layers: list[Layer] = []
    previous = 0
    for index, level in enumerate(levels):
        amount = sum(min(c, level) - min(c, previous) for c in committed)
        if index == len(levels) - 1:
            amount += sum(max(0, c - level) for c in committed)
        eligible = tuple(seat for seat in live if committed[seat] >= level)
        layers.append(Layer(amount, eligible))
        previous = level
    return layers


def rake_of(total: int, table: Table) -> int:
    """R-RAKE: ``floor(total * rake_percent_bp / 10000)``, at most ``rake_cap`` (0: none)."""
    rake = total * table.rake_percent_bp // BASIS_POINTS
    return min(rake, table.rake_cap) if table.rake_cap else rake


def take_rake(amounts: Sequence[int], rake: int) -> list[int]:
    """How much of ``rake`` each pot gives up: from the main pot on, each up to its own
    amount (R-RAKE)."""
    taken = []
    for amount in amounts:
        part = min(amount, rake)
        taken.append(part)
        rake -= part
    return taken


def split_pot(
    amount: int,
    winners: Sequence[int],
    rule: OddChip,
    button: int,
    cards: Sequence[Sequence[int]],
    card_order: Callable[[int], int],
) -> tuple[int, ...]:
    """Each winner's share of ``amount``; odd chips one each by the R-ODD-CHIP rule:
    nearest the dealer's left, or with HIGH_CARD_BY_SUIT to the winner holding the best
    card of all its ``cards`` by ``card_order``, larger first (the game's order: high, or
    low in a low game, R-ODD-CHIP-LOW).

    Returns the shares in the order of ``winners``.
    """
    base, odd = divmod(amount, len(winners))
    shares = dict.fromkeys(winners, base)
    if odd:
        if rule is OddChip.HIGH_CARD_BY_SUIT:
            best = {seat: max(map(card_order, cards[seat])) for seat in winners}
            order = sorted(winners, key=best.__getitem__, reverse=True)
        else:
            players = len(cards)
            order = sorted(winners, key=lambda seat: (seat - button - 1) % players)
        for seat in order[:odd]:
            shares[seat] += 1
    return tuple(shares[seat] for seat in winners)

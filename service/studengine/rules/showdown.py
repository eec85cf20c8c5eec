"""The end of a hand, worked out without touching it: uncalled chips back, the rake, pots
awarded (split high and low in Stud Hi-Lo), hands shown or mucked (R-SIDE-POTS, R-RAKE,
R-SHOWDOWN-ORDER, R-MUCK, R-HILO-MUCK, R-ALL-IN-FACE-UP, R-HAND-RANK, R-RAZZ-SHOWDOWN,
R-HILO-SPLIT, R-SPLIT, R-ODD-CHIP, R-ODD-CHIP-LOW). ``settle`` returns a ``Settlement``;
``Hand`` applies it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, final

from studengine.evaluator import NO_LOW
from studengine.rules.betting import BettingRound
from studengine.rules.board import best_board, clockwise_from
from studengine.rules.pots import build_layers, rake_of, split_pot, take_rake, uncalled_chips
from studengine.rules.types import Pot, Record, ShownHand, Table
from studengine.rules.variants import Ranking, VariantSpec


@final
class Showing(Record):
    """One seat's turn at showdown, in showing order: its hand shown, or mucked (None)."""

    __match_args__ = ("seat", "shown")

    def __init__(self, seat: int, shown: ShownHand | None) -> None:
        self.seat: Final = seat
        self.shown: Final = shown


@final
class Settlement(Record):
    """Everything the end of a hand moves and reveals."""

    __match_args__ = ("uncalled", "rake", "pots", "descriptions", "low_descriptions", "showings")

    def __init__(
        self,
        uncalled: tuple[int, int] | None,
        rake: int,
        pots: tuple[Pot, ...],
        descriptions: tuple[str, ...],
        low_descriptions: tuple[str, ...],
        showings: tuple[Showing, ...],
    ) -> None:
        self.uncalled: Final = uncalled  # (seat, chips) nobody matched, returned first
        self.rake: Final = rake  # chips the house takes from the pots (R-RAKE)
        self.pots: Final = pots  # main pot first; each pot's winners and their shares
        self.descriptions: Final = descriptions  # each pot's winning hand ("" when uncontested)
        self.low_descriptions: Final = (
            low_descriptions  # each pot's winning low ("" when none won it)
        )
        self.showings: Final = showings  # empty when everyone else folded


@final
class Finished(Record):
    """What the showdown reads of a finished hand: its cards, chips and last round."""

    __match_args__ = (
        "spec",
        "table",
        "button",
        "cards",
        "community",
        "committed",
        "folded",
        "last_round",
        "rake_due",
        "tabled",
    )

    def __init__(
        self,
        spec: VariantSpec,
        table: Table,
        button: int,
        cards: Sequence[Sequence[int]],
        community: int | None,
        committed: Sequence[int],
        folded: Sequence[bool],
        last_round: BettingRound,
        rake_due: bool,
        tabled: bool = False,
    ) -> None:
        self.spec: Final = spec
        self.table: Final = table
        self.button: Final = button
        self.cards: Final = cards
        self.community: Final = community
        self.committed: Final = committed
        self.folded: Final = folded
        self.last_round: Final = last_round
        # a second betting round was started (R-RAKE: no drop before)
        self.rake_due: Final = rake_due
        # the hands still in are face up: none is mucked (R-ALL-IN-FACE-UP)
        self.tabled: Final = tabled

    def holding(self, seat: int) -> list[int]:
        """The seat's cards, the community card included (R-COMMUNITY-CARD)."""
        extra = [] if self.community is None else [self.community]
        return [*self.cards[seat], *extra]


def settle(hand: Finished) -> Settlement:
    """The settlement of a finished hand (R-SIDE-POTS, R-RAKE, R-SPLIT, R-HILO-SPLIT,
    R-MUCK)."""
    players = len(hand.committed)
    committed = list(hand.committed)
    uncalled = uncalled_chips(committed)  # returned first, never raked
    if uncalled is not None:
        committed[uncalled[0]] -= uncalled[1]

    live = [seat for seat in range(players) if not hand.folded[seat]]
    showdown = len(live) > 1
    ranking, low_ranking = hand.spec.ranking, hand.spec.low_ranking
    ranks = {seat: ranking.rank(hand.holding(seat)) for seat in live} if showdown else {}
    lows: dict[int, int] = {}
    if showdown and low_ranking is not None:
        lows = {seat: low_ranking.rank(hand.holding(seat)) for seat in live}

    layers = build_layers(committed, hand.folded)
    rake = rake_of(sum(layer.amount for layer in layers), hand.table) if hand.rake_due else 0
    rakes = take_rake([layer.amount for layer in layers], rake)
    pots: list[Pot] = []
    descriptions: list[str] = []
    low_descriptions: list[str] = []
    for layer, pot_rake in zip(layers, rakes, strict=True):
        pot = award(hand, layer.amount - pot_rake, layer.eligible, ranks, lows, pot_rake)
        pots.append(pot)
        descriptions.append(ranking.describe(ranks[pot.winners[0]]) if ranks else "")
        low_descriptions.append(
            low_ranking.describe(lows[pot.low_winners[0]])
            if low_ranking is not None and pot.low_winners
            else ""
        )

    showings = show_or_muck(hand, live, pots, ranks, lows) if showdown else []
    return Settlement(
        uncalled,
        rake,
        tuple(pots),
        tuple(descriptions),
        tuple(low_descriptions),
        tuple(showings),
    )


def best_of(seats: Sequence[int], values: Mapping[int, int]) -> tuple[int, ...]:
    """The seats holding the largest value (several when tied)."""
    best = max(values[seat] for seat in seats)
    return tuple(seat for seat in seats if values[seat] == best)


def award(
    hand: Finished,
    amount: int,
    eligible: tuple[int, ...],
    ranks: Mapping[int, int],
    lows: Mapping[int, int],
    rake: int,
) -> Pot:
    """One pot's winners and shares. With no showdown (``ranks`` empty) the one player
    left takes it. In a split game the best qualifying low among the eligible takes
    half, the odd chip going to the high half; with no qualifying low the high hand
    takes it all (R-HILO-SPLIT). Ties share their half by R-ODD-CHIP."""
    winners = best_of(eligible, ranks) if ranks else eligible
    contenders = [seat for seat in eligible if lows.get(seat, NO_LOW) != NO_LOW]
    low_winners = best_of(contenders, lows) if contenders else ()
    low_amount = amount // 2 if low_winners else 0
    spec = hand.spec
    shares = _split(hand, amount - low_amount, winners, spec.ranking)
    low_shares: tuple[int, ...] = ()
    if low_winners and spec.low_ranking is not None:
        low_shares = _split(hand, low_amount, low_winners, spec.low_ranking)
    return Pot(amount, eligible, winners, shares, low_winners, low_shares, rake)


def _split(
    hand: Finished, amount: int, winners: tuple[int, ...], ranking: Ranking
) -> tuple[int, ...]:
    """A half's (or a whole pot's) shares; with HIGH_CARD_BY_SUIT, the odd chips by the
    best card each winner holds in ``ranking``'s card order (R-ODD-CHIP, R-ODD-CHIP-LOW)."""
    return split_pot(
        amount, winners, hand.table.odd_chip, hand.button, hand.cards, ranking.card_order
    )


def show_or_muck(
    hand: Finished,
    live: list[int],
    pots: Sequence[Pot],
    ranks: Mapping[int, int],
    lows: Mapping[int, int],
) -> list[Showing]:
    """Each live seat in showing order, shown if it shows first or wins or ties any pot,
    or any half of one (R-MUCK, R-HILO-MUCK), or the hands were tabled
    (R-ALL-IN-FACE-UP); mucked otherwise."""
    players = len(hand.committed)
    first = first_to_show(hand, live)
    pot_winners = {seat for pot in pots for seat in (*pot.winners, *pot.low_winners)}
    every_hand = hand.tabled  # R-ALL-IN-FACE-UP: none is mucked
    showings: list[Showing] = []
    for seat in clockwise_from(first, players):
        if hand.folded[seat]:
            continue
        shows = every_hand or seat == first or seat in pot_winners
        shown = shown_hand(hand, seat, ranks[seat], lows.get(seat, NO_LOW)) if shows else None
        showings.append(Showing(seat, shown))
    return showings


def shown_hand(hand: Finished, seat: int, rank: int, low: int) -> ShownHand:
    """A hand as shown: ranked as the game ranks it, and in a split game with its low
    when it has one."""
    cards = hand.holding(seat)
    ranking, low_ranking = hand.spec.ranking, hand.spec.low_ranking
    dealt, best_five = tuple(hand.cards[seat]), tuple(ranking.best_five(cards))
    if low_ranking is None or low == NO_LOW:
        return ShownHand(seat, dealt, best_five, rank, ranking.describe(rank))
    low_five = tuple(low_ranking.best_five(cards))
    description, low_description = ranking.describe(rank), low_ranking.describe(low)
    return ShownHand(seat, dealt, best_five, rank, description, low, low_five, low_description)


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

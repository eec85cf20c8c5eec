"""Pure-Python twin of the C equity loops (``equity_exact`` / ``equity_mc`` in _ceval).

Same arguments, same deals in the same order (for Monte Carlo: the same splitmix64
stream and partial Fisher-Yates), same showdowns (high, ace-to-five low, or high and
eight-or-better low halves), same counts. Used when the C extension is missing and by
the tests that hold the two to each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from studengine.evaluator._twin import NO_LOW, evaluate, evaluate_low, evaluate_low8

MAX_PLAYERS = 8
HIGH, LOW, HIGH_LOW = range(3)  # the showdowns (EQ_HIGH, EQ_LOW, EQ_HIGH_LOW in C)
UNITS = 1680  # a whole pot: a half or a whole shared by 1..8 players is whole units
_MASK64 = (1 << 64) - 1
# per player: deals won whole, deals with a part, units, squared units, high and low
# halves won or tied (Hi-Lo); then the number of deals
Counts = tuple[list[int], list[int], list[int], list[int], list[int], list[int], int]
McCounts = tuple[list[int], list[int], list[int], list[int], list[int], list[int], int, int]


def _groups(known: tuple[bytes, ...], draws: bytes) -> list[tuple[int, int]]:
    """(draw count, owner) of every group that draws: players in order (owner = seat),
    then the community card (owner = -1)."""
    groups = [(k, p) for p, k in enumerate(draws[: len(known)]) if k]
    if draws[len(known)]:
        groups.append((draws[len(known)], -1))
    return groups


def _award(values: list[int], units: int, got: list[int], won: list[int] | None) -> None:
    """Share ``units`` among the players with the best value."""
    best = max(values)
    winners = [p for p, value in enumerate(values) if value == best]
    for p in winners:
        got[p] += units // len(winners)
        if won is not None:
            won[p] += 1


class _Tally:
    def __init__(self, known: tuple[bytes, ...], board: bytes, showdown: int) -> None:
        if showdown not in (HIGH, LOW, HIGH_LOW) or isinstance(showdown, bool):
            raise ValueError(
                f"showdown must be 0 (high), 1 (low) or 2 (high-low), got {showdown!r}"
            )
        self.kind = showdown
        self.known = [[*cards, *board] for cards in known]
        n = len(known)
        self.whole, self.part, self.units = [0] * n, [0] * n, [0] * n
        self.squares, self.high, self.low = [0] * n, [0] * n, [0] * n
        self.deals = 0

    def showdown(self, drawn: dict[int, tuple[int, ...]]) -> None:
        board = drawn.get(-1, ())
        hands = [[*cards, *drawn.get(p, ()), *board] for p, cards in enumerate(self.known)]
        got = [0] * len(hands)
        if self.kind == LOW:  # R-RAZZ-SHOWDOWN
            _award([evaluate_low(hand) for hand in hands], UNITS, got, None)
        elif self.kind == HIGH:
            _award([evaluate(hand) for hand in hands], UNITS, got, None)
        else:  # R-HILO-SPLIT
            highs = [evaluate(hand) for hand in hands]
            lows = [evaluate_low8(hand) for hand in hands]
            if max(lows) == NO_LOW:
                _award(highs, UNITS, got, self.high)
            else:
                _award(highs, UNITS // 2, got, self.high)
                _award(lows, UNITS // 2, got, self.low)
        for p, units in enumerate(got):
            self.units[p] += units
            self.squares[p] += units * units
            if units == UNITS:
                self.whole[p] += 1
            elif units:
                self.part[p] += 1
        self.deals += 1

    def result(self) -> Counts:
        return self.whole, self.part, self.units, self.squares, self.high, self.low, self.deals


def _deals(
    groups: list[tuple[int, int]], cards: tuple[int, ...]
) -> Iterator[dict[int, tuple[int, ...]]]:
    if not groups:
        yield {}
        return
    (k, owner), rest = groups[0], groups[1:]
    for chosen in combinations(cards, k):
        left = tuple(c for c in cards if c not in chosen)
        for deal in _deals(rest, left):
            deal[owner] = chosen
            yield deal


def equity_exact(
    known: tuple[bytes, ...],
    draws: bytes,
    deck: bytes,
    board: bytes,
    showdown: int,
    start: int,
    stop: int,
) -> Counts:
    """Every deal whose first drawing group takes combination number start..stop-1."""
    tally = _Tally(known, board, showdown)
    groups = _groups(known, draws)
    if not groups:
        if start <= 0 < stop:
            tally.showdown({})
        return tally.result()
    (k, owner), rest = groups[0], groups[1:]
    cards = tuple(deck)
    for index, chosen in enumerate(combinations(cards, k)):
        if index < start:
            continue
        if index >= stop:
            break
        left = tuple(c for c in cards if c not in chosen)
        for deal in _deals(rest, left):
            deal[owner] = chosen
            tally.showdown(deal)
    return tally.result()


def equity_mc(
    known: tuple[bytes, ...],
    draws: bytes,
    deck: bytes,
    board: bytes,
    showdown: int,
    samples: int,
    state: int,
) -> McCounts:
    """``samples`` random deals, drawn exactly as the C loop draws them; returns the
    counts and the random stream's state to start the next chunk from."""
    tally = _Tally(known, board, showdown)
    groups = _groups(known, draws)
    order = list(deck)
    length = len(order)
    total = sum(k for k, _ in groups)
    state &= _MASK64
    for _ in range(samples):
        cards = order[:]  # every deal starts from the same order
        z = 0
        for j in range(total):  # two draws from each 64-bit output: low half, high half
            if j & 1:
                u = z >> 32
            else:
                state = (state + 0x9E3779B97F4A7C15) & _MASK64
                z = state
                z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
                z ^= z >> 31
                u = z & 0xFFFFFFFF
            r = j + ((u * (length - j)) >> 32)
            cards[j], cards[r] = cards[r], cards[j]
        deal: dict[int, tuple[int, ...]] = {}
        offset = 0
        for k, owner in groups:
            deal[owner] = tuple(cards[offset : offset + k])
            offset += k
        tally.showdown(deal)
    return (*tally.result(), state)

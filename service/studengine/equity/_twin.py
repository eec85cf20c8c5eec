"""Pure-Python twin of the C equity loops (``equity_exact`` / ``equity_mc`` in _ceval).

Same arguments, same deals in the same order (for Monte Carlo: the same splitmix64
stream and partial Fisher-Yates), same counts. Used when the C extension is missing
and by the tests that hold the two to each other.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from studengine.evaluator._twin import evaluate

MAX_PLAYERS = 8
_MASK64 = (1 << 64) - 1
Counts = tuple[list[int], list[int], int]
McCounts = tuple[list[int], list[int], int, int]


def _groups(known: tuple[bytes, ...], draws: bytes) -> list[tuple[int, int]]:
    """(draw count, owner) of every group that draws: players in order (owner = seat),
    then the community card (owner = -1)."""
    groups = [(k, p) for p, k in enumerate(draws[: len(known)]) if k]
    if draws[len(known)]:
        groups.append((draws[len(known)], -1))
    return groups


class _Tally:
    def __init__(self, known: tuple[bytes, ...], board: bytes) -> None:
        self.known = [[*cards, *board] for cards in known]
        self.wins = [0] * len(known)
        self.ties = [0] * (len(known) * (MAX_PLAYERS + 1))
        self.deals = 0

    def showdown(self, drawn: dict[int, tuple[int, ...]]) -> None:
        board = drawn.get(-1, ())
        values = [
            evaluate([*cards, *drawn.get(p, ()), *board]) for p, cards in enumerate(self.known)
        ]
        best = max(values)
        winners = values.count(best)
        for p, value in enumerate(values):
            if value == best:
                if winners == 1:
                    self.wins[p] += 1
                else:
                    self.ties[p * (MAX_PLAYERS + 1) + winners] += 1
        self.deals += 1

    def result(self) -> Counts:
        return self.wins, self.ties, self.deals


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
    known: tuple[bytes, ...], draws: bytes, deck: bytes, board: bytes, start: int, stop: int
) -> Counts:
    """Every deal whose first drawing group takes combination number start..stop-1."""
    tally = _Tally(known, board)
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
    known: tuple[bytes, ...], draws: bytes, deck: bytes, board: bytes, samples: int, state: int
) -> McCounts:
    """``samples`` random deals, drawn exactly as the C loop draws them; returns the
    counts and the random stream's state to start the next chunk from."""
    tally = _Tally(known, board)
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
    wins, ties, deals = tally.result()
    return wins, ties, deals, state

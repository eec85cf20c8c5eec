"""Type stubs of the C extension (see _ceval.c)."""

import array
from collections.abc import Callable, Sequence

def evaluate(cards: Sequence[int], /) -> int: ...
def evaluate_mask(mask: int, /) -> int: ...
def evaluate_many(buffer: object, hand_size: int, /) -> array.array[int]: ...
def evaluate_low(cards: Sequence[int], /) -> int: ...
def evaluate_low8(cards: Sequence[int], /) -> int: ...
def evaluate_low_many(buffer: object, hand_size: int, /) -> array.array[int]: ...
def evaluate_low8_many(buffer: object, hand_size: int, /) -> array.array[int]: ...

# equity loops (studengine.equity, the same as studengine.equity._twin's). Arguments: the
# known cards, the draws, the deck, the board, the showdown, then the exact loop's
# combinations start..stop-1, or the Monte Carlo samples and random state. Answers: per
# player the deals won whole, the deals with a part of the pot, the pot units (1680 a
# pot) and their squares, the high and low halves won or tied (Hi-Lo); then the deals
# (and the random stream's state)
equity_exact: Callable[
    [tuple[bytes, ...], bytes, bytes, bytes, int, int, int],
    tuple[list[int], list[int], list[int], list[int], list[int], list[int], int],
]
equity_mc: Callable[
    [tuple[bytes, ...], bytes, bytes, bytes, int, int, int],
    tuple[list[int], list[int], list[int], list[int], list[int], list[int], int, int],
]

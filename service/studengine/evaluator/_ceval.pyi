"""Type stubs of the C extension (see _ceval.c)."""

import array
from collections.abc import Sequence

def evaluate(cards: Sequence[int], /) -> int: ...
def evaluate_mask(mask: int, /) -> int: ...
def evaluate_many(buffer: object, hand_size: int, /) -> array.array[int]: ...
def evaluate_low(cards: Sequence[int], /) -> int: ...
def evaluate_low8(cards: Sequence[int], /) -> int: ...
def evaluate_low_many(buffer: object, hand_size: int, /) -> array.array[int]: ...
def evaluate_low8_many(buffer: object, hand_size: int, /) -> array.array[int]: ...

# equity loops (studengine.equity): per player the deals won whole, the deals with a
# part of the pot, the pot units (1680 a pot) and their squares, the high and low halves
# won or tied (Hi-Lo); then the deals (and the random stream's state)

def equity_exact(
    known: tuple[bytes, ...],
    draws: bytes,
    deck: bytes,
    board: bytes,
    showdown: int,
    start: int,
    stop: int,
    /,
) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int], int]: ...
def equity_mc(
    known: tuple[bytes, ...],
    draws: bytes,
    deck: bytes,
    board: bytes,
    showdown: int,
    samples: int,
    state: int,
    /,
) -> tuple[list[int], list[int], list[int], list[int], list[int], list[int], int, int]: ...

"""The pure-Python evaluator (the "twin" of the C extension): same rank numbers.

A rank is ``category << 20`` plus up to five 4-bit rank indexes (most significant
first) that break ties inside the category, so a larger int is a better hand and
equal ints tie. Category numbers are those of :class:`studengine.evaluator.Category`.

Seven cards are scored with one additive key per hand: each card adds ``5**rank``
(the rank multiset in base 5) shifted left by 16 and one to its suit's 4-bit counter.
The suit counters start at 3, so a counter reaches 8 (bit 3 set) exactly when that
suit holds five cards or more: one ``&`` tells a flush. Without a flush the hand's
value depends only on the rank multiset, looked up in a dict that fills lazily (at
most 74,000 multisets); with a flush it is a 8192-entry table indexed by the flush
suit's ranks.

Lows (R-LOW-A5, R-HILO-QUALIFY) are read off the same rank-multiset key (suits never
count): a low's badness is its pair category (0 none .. 5 quads) << 20 plus its deciding
ranks with the ace as 0 and the king as 12, in nibbles most significant first, and its
value is ``LOW_BASE - badness``: larger is better, always positive, so ``NO_LOW`` (0)
says "no qualifying eight-or-better low".
"""

from __future__ import annotations

import array
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)

_SUIT_BIAS = 0x3333
_FLUSH_BITS = 0x8888

# card -> (5**rank << 16) | (1 << 4*suit); a dict so that out-of-range cards, negative
# numbers and non-ints all miss (KeyError) instead of wrapping around like list indexes.
_KEY: dict[int, int] = {c: (5 ** (c >> 2) << 16) | (1 << (4 * (c & 3))) for c in range(52)}

# The ten straights as 13-bit rank masks, best first (ace-high ... wheel).
_STRAIGHTS: tuple[tuple[int, int], ...] = tuple(
    [(0x1F << (top - 4), top) for top in range(12, 3, -1)] + [(0x100F, 3)]
)


def _straight_top(mask: int) -> int:
    """Top rank of the best straight in a 13-bit rank mask, or -1."""
    for bits, top in _STRAIGHTS:
        if mask & bits == bits:
            return top
    return -1


def _top(mask: int, count: int) -> int:
    """The ``count`` highest ranks of a mask packed as nibbles, highest at bit 16."""
    value = 0
    shift = 16
    while count and mask:
        r = mask.bit_length() - 1
        value |= r << shift
        mask ^= 1 << r
        shift -= 4
        count -= 1
    return value


def _build_flush_table() -> list[int]:
    table = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() < 5:
            continue
        top = _straight_top(mask)
        if top >= 0:
            table[mask] = (STRAIGHT_FLUSH << 20) | (top << 16)
        else:
            table[mask] = (FLUSH << 20) | _top(mask, 5)
    return table


_FLUSH = _build_flush_table()


def _score_ranks(counts: Sequence[int]) -> int:
    """Value of the best non-flush five from a 13-long list of rank counts."""
    present = quads = trips = pairs = 0
    for r in range(13):
        n = counts[r]
        if n:
            bit = 1 << r
            present |= bit
            if n >= 2:
                pairs |= bit
                if n >= 3:
                    trips |= bit
                    if n == 4:
                        quads |= bit
    if quads:
        q = quads.bit_length() - 1
        kicker = (present ^ (1 << q)).bit_length() - 1
        return (QUADS << 20) | (q << 16) | (kicker << 12)
    if trips:
        t = trips.bit_length() - 1
        rest = pairs ^ (1 << t)
        if rest:
            return (FULL_HOUSE << 20) | (t << 16) | ((rest.bit_length() - 1) << 12)
    top = _straight_top(present)
    if top >= 0:
        return (STRAIGHT << 20) | (top << 16)
    if trips:
        t = trips.bit_length() - 1
        return (TRIPS << 20) | (t << 16) | (_top(present ^ (1 << t), 2) >> 4)
    if pairs:
        p = pairs.bit_length() - 1
        rest = pairs ^ (1 << p)
        if rest:
            p2 = rest.bit_length() - 1
            kicker = (present ^ (1 << p) ^ (1 << p2)).bit_length() - 1
            return (TWO_PAIR << 20) | (p << 16) | (p2 << 12) | (kicker << 8)
        return (PAIR << 20) | (p << 16) | (_top(present ^ (1 << p), 3) >> 4)
    return (HIGH_CARD << 20) | _top(present, 5)


# rank-multiset key (sum of 5**rank) -> value; filled on first sight of each multiset.
_NONFLUSH: dict[int, int] = {}


def _bad_cards(cards: Sequence[int]) -> ValueError:
    """The ValueError for a hand that failed the fast path, naming what is wrong."""
    try:
        n = len(cards)
    except TypeError:
        return ValueError(f"cards must be a sequence of card ints, not {type(cards).__name__}")
    if not 5 <= n <= 7:
        return ValueError(f"a hand has 5 to 7 cards, got {n}")
    seen: set[int] = set()
    for card in cards:
        if not isinstance(card, int):
            return ValueError(f"card must be an int, got {card!r}")
        if not 0 <= card < 52:
            return ValueError(f"card out of range 0..51: {card}")
        if card in seen:
            return ValueError(f"duplicate card: {card}")
        seen.add(card)
    return ValueError(f"invalid hand: {cards!r}")


def _slow_path(cards: Sequence[int], key: int) -> int:
    """Flush hands and rank multisets not seen before."""
    flush = key & _FLUSH_BITS
    if flush:
        suit = (flush.bit_length() - 4) >> 2
        mask = 0
        for c in cards:
            if c & 3 == suit:
                mask |= 1 << (c >> 2)
        return _FLUSH[mask]
    counts = [0] * 13
    for c in cards:
        counts[c >> 2] += 1
    value = _score_ranks(counts)
    _NONFLUSH[key >> 16] = value
    return value


def evaluate(cards: Sequence[int]) -> int:
    """Value of the best five of 5, 6 or 7 distinct cards (ValueError otherwise)."""
    k = _KEY
    try:
        n = len(cards)
        if n == 7:  # unrolled (a set display, no sum(map(...))): a third faster
            a, b, c, d, e, f, g = cards
            key = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g] + _SUIT_BIAS
            distinct = len({a, b, c, d, e, f, g})
        elif n == 5:
            a, b, c, d, e = cards
            key = k[a] + k[b] + k[c] + k[d] + k[e] + _SUIT_BIAS
            distinct = len({a, b, c, d, e})
        elif n == 6:
            key = sum(map(k.__getitem__, cards), _SUIT_BIAS)
            distinct = len(set(cards))
        else:
            raise _bad_cards(cards)
    except (KeyError, TypeError, ValueError):
        raise _bad_cards(cards) from None
    if distinct != n:
        raise _bad_cards(cards)
    if key & _FLUSH_BITS:
        return _slow_path(cards, key)
    try:
        return _NONFLUSH[key >> 16]
    except KeyError:
        return _slow_path(cards, key)


def mask_to_cards(mask: int) -> list[int]:
    """The cards of a 52-bit mask, lowest first (ValueError if not 5..7 valid bits)."""
    if not isinstance(mask, int) or mask < 0 or mask >> 52:
        raise ValueError(f"mask must be an int with bits 0..51 only, got {mask!r}")
    n = mask.bit_count()
    if not 5 <= n <= 7:
        raise ValueError(f"a hand has 5 to 7 cards, the mask has {n}")
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def evaluate_mask(mask: int) -> int:
    """Value of the hand given as a 52-bit mask (bit i = card i)."""
    return evaluate(mask_to_cards(mask))


def hand_bytes(buffer: object, hand_size: int) -> bytes:
    """Validate a batch buffer (one byte per card) and return its bytes."""
    if not isinstance(hand_size, int) or not 5 <= hand_size <= 7:
        raise ValueError(f"hand_size must be 5, 6 or 7, got {hand_size!r}")
    try:
        view = memoryview(buffer)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(
            f"buffer must support the buffer protocol, got {type(buffer).__name__}"
        ) from None
    with view:
        if view.itemsize != 1:
            raise ValueError(f"buffer items must be one byte each, got itemsize {view.itemsize}")
        if not view.c_contiguous:
            raise ValueError("buffer must be C-contiguous")
        data = view.tobytes()
    if len(data) % hand_size:
        raise ValueError(f"buffer length {len(data)} is not a multiple of hand_size {hand_size}")
    return data


def _many(rank: Callable[[Sequence[int]], int], buffer: object, hand_size: int) -> array.array[int]:
    data = hand_bytes(buffer, hand_size)
    out = array.array("i", bytes(4 * (len(data) // hand_size)))
    for i, start in enumerate(range(0, len(data), hand_size)):
        hand = data[start : start + hand_size]
        try:
            out[i] = rank(hand)
        except ValueError as exc:
            raise ValueError(f"hand {i}: {exc}") from None
    return out


def evaluate_many(buffer: object, hand_size: int) -> array.array[int]:
    """Values of consecutive hands of ``hand_size`` cards in a byte buffer."""
    return _many(evaluate, buffer, hand_size)


def _nibbles(ranks: Sequence[int]) -> int:
    value, shift = 0, 16
    for r in ranks:
        value |= r << shift
        shift -= 4
    return value


def valid_values() -> frozenset[int]:
    """Every value a hand can have (7,462), built per category without evaluating."""
    values = {v for v in _FLUSH if v}  # flushes and straight flushes
    values |= {v - ((FLUSH - HIGH_CARD) << 20) for v in _FLUSH if v >> 20 == FLUSH}
    values |= {v - ((STRAIGHT_FLUSH - STRAIGHT) << 20) for v in _FLUSH if v >> 20 == STRAIGHT_FLUSH}
    for a in range(13):
        others = [r for r in range(12, -1, -1) if r != a]
        for b in others:
            values.add((QUADS << 20) | _nibbles((a, b)))
            values.add((FULL_HOUSE << 20) | _nibbles((a, b)))
        for kickers in combinations(others, 2):
            values.add((TRIPS << 20) | _nibbles((a, *kickers)))
        for three in combinations(others, 3):
            values.add((PAIR << 20) | _nibbles((a, *three)))
        for b in range(a):
            for k in others:
                if k != b:
                    values.add((TWO_PAIR << 20) | _nibbles((a, b, k)))
    return frozenset(values)


# ---- Ace-to-five low (R-LOW-A5) and the eight-or-better qualifier (R-HILO-QUALIFY) ----

LOW_BASE = 0x5FFFFF
NO_LOW = 0
LOW_NO_PAIR, LOW_PAIR, LOW_TWO_PAIR, LOW_TRIPS, LOW_FULL_HOUSE, LOW_QUADS = range(6)
# the ace-to-five rank (ace 0 .. king 12) of each high rank index (two 0 .. ace 12)
_LOW_RANK = tuple((r + 1) % 13 for r in range(13))


def _low_badness(counts: Sequence[int]) -> int:
    """Badness of the best ace-to-five five from counts by low rank (ace first):
    the fewest and lowest groups, then the lowest kickers."""
    held = [r for r in range(13) if counts[r]]
    repeated = [r for r in held if counts[r] >= 2]
    if len(held) >= 5:
        category, groups, kickers = LOW_NO_PAIR, [], held[:5]
    elif len(held) == 4:
        category, groups = LOW_PAIR, repeated[:1]
    elif len(held) == 3 and len(repeated) >= 2:
        category, groups = LOW_TWO_PAIR, repeated[1::-1]  # the higher pair first
    elif len(held) == 3:
        category, groups = LOW_TRIPS, repeated
    else:  # two ranks: a full house if the other rank is paired, else four of a kind
        trips = min(r for r in held if counts[r] >= 3)
        other = next(r for r in held if r != trips)
        category = LOW_FULL_HOUSE if counts[other] >= 2 else LOW_QUADS
        groups, kickers = [trips, other], []
    if category not in (LOW_NO_PAIR, LOW_FULL_HOUSE, LOW_QUADS):
        kickers = [r for r in held if r not in groups]
    ranks = groups + sorted(kickers, reverse=True)
    return (category << 20) | _nibbles(ranks)


# rank-multiset key (as in _NONFLUSH) -> ace-to-five value; filled on first sight
_LOWS: dict[int, int] = {}


def _low_of_key(key: int) -> int:
    multiset = key >> 16
    try:
        return _LOWS[multiset]
    except KeyError:
        pass
    counts = [0] * 13
    rest = multiset
    for r in range(13):
        rest, counts[_LOW_RANK[r]] = divmod(rest, 5)
    value = LOW_BASE - _low_badness(counts)
    _LOWS[multiset] = value
    return value


def _hand_key(cards: Sequence[int]) -> int:
    """The additive key of 5..7 distinct cards (ValueError naming what is wrong)."""
    try:
        n = len(cards)
        key = sum(map(_KEY.__getitem__, cards))
        distinct = len(set(cards))
    except (KeyError, TypeError, ValueError):
        raise _bad_cards(cards) from None
    if not 5 <= n <= 7 or distinct != n:
        raise _bad_cards(cards)
    return key


def evaluate_low(cards: Sequence[int]) -> int:
    """Ace-to-five low value of the best five of 5..7 distinct cards (larger is better)."""
    return _low_of_key(_hand_key(cards))


def qualifies_low8(value: int) -> bool:
    """True when an ace-to-five value is an eight-or-better low: no pair, 8 or lower."""
    badness = LOW_BASE - value
    return badness >> 20 == LOW_NO_PAIR and (badness >> 16) & 15 <= 7


def evaluate_low8(cards: Sequence[int]) -> int:
    """The eight-or-better low's value (that of ``evaluate_low``), or ``NO_LOW``."""
    value = evaluate_low(cards)
    return value if qualifies_low8(value) else NO_LOW


def evaluate_low_many(buffer: object, hand_size: int) -> array.array[int]:
    """Ace-to-five values of consecutive hands of ``hand_size`` cards in a byte buffer."""
    return _many(evaluate_low, buffer, hand_size)


def evaluate_low8_many(buffer: object, hand_size: int) -> array.array[int]:
    """Eight-or-better values (``NO_LOW`` when none) of consecutive hands in a buffer."""
    return _many(evaluate_low8, buffer, hand_size)


def valid_low_values() -> frozenset[int]:
    """Every ace-to-five value (6,175: one per multiset of five ranks, none five times)."""
    values = set()
    for ranks in combinations_with_replacement(range(13), 5):
        counts = [ranks.count(r) for r in range(13)]
        if max(counts) <= 4:
            values.add(LOW_BASE - _low_badness(counts))
    return frozenset(values)

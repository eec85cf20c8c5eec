"""Stud equity: each player's chance to win, tie and share of the pot at showdown.

``stud_equity`` takes what is known of each player (the hero's down and up cards, only
the up cards of an opponent), the dead cards (folded up cards), the variant and the
street, deals the rest of every hand from the unseen cards and counts who wins. It
enumerates every deal when there are few (``exact_threshold``) and samples otherwise
(Monte Carlo with a seed: the same seed gives the same answer). The showdowns run in
the C extension (``studengine.evaluator._ceval``), or in a pure-Python twin that
deals the same cards when the extension is missing. Work is done in chunks so that a
time budget (``deadline``, seconds) can stop it.
"""

from __future__ import annotations

import enum
import importlib
import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from studengine.equity import _twin

__all__ = [
    "MAX_EXACT_DEALS",
    "MAX_PLAYERS",
    "MAX_SAMPLES",
    "EquityResult",
    "exact_deal_count",
    "stud_equity",
]

MAX_PLAYERS = 8
MAX_SAMPLES = 2_000_000  # Monte Carlo deals one request may ask for
MAX_EXACT_DEALS = 2_000_000  # deals one exact enumeration may take
DEFAULT_EXACT_THRESHOLD = 200_000  # "auto" enumerates up to this many deals
DEFAULT_SAMPLES = 100_000
# Work per call into the loops, between two looks at the clock: C, then the twin. The
# answers do not depend on it (the Monte Carlo stream runs on from chunk to chunk).
MC_CHUNK = {"c": 8192, "python": 256}
EXACT_CHUNK_DEALS = {"c": 65_536, "python": 1024}

_FINAL = {"FIVE_CARD_STUD": 5, "SEVEN_CARD_STUD": 7}
_FIRST_STREET = {"FIVE_CARD_STUD": 2, "SEVEN_CARD_STUD": 3}

_ExactLoop = Callable[
    [tuple[bytes, ...], bytes, bytes, bytes, int, int], tuple[list[int], list[int], int]
]
_McLoop = Callable[
    [tuple[bytes, ...], bytes, bytes, bytes, int, int], tuple[list[int], list[int], int, int]
]

_c: Any
try:
    _c = importlib.import_module("studengine.evaluator._ceval")
except ImportError:  # studengine.evaluator has already warned
    _c = None

BACKEND = "python" if _c is None else "c"


@dataclass(frozen=True)
class EquityResult:
    """Per player (in the order given): outright win, tie and pot share, as fractions of
    the deals evaluated, and the standard error of the share (0 when exact)."""

    win: tuple[float, ...]
    tie: tuple[float, ...]
    equity: tuple[float, ...]
    stderr: tuple[float, ...]
    method: str  # "exact" or "monte_carlo"
    samples: int  # deals evaluated
    complete: bool  # False if the time budget stopped a Monte Carlo run early
    seed: int | None  # the Monte Carlo seed (None when exact)


def _variant_name(variant: object) -> str:
    name = variant.value if isinstance(variant, enum.Enum) else variant
    if name not in _FINAL:
        raise ValueError(f"variant must be FIVE_CARD_STUD or SEVEN_CARD_STUD, got {variant!r}")
    return str(name)


def _check_card(card: object, where: str, seen: set[int]) -> int:
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < 52:
        raise ValueError(f"{where}: not a card 0..51: {card!r}")
    if card in seen:
        raise ValueError(f"{where}: card {card} appears twice")
    seen.add(card)
    return card


@dataclass(frozen=True)
class _Problem:
    known: tuple[bytes, ...]
    draws: bytes  # per player, then the community card's
    deck: bytes  # unseen cards, ascending
    board: bytes  # the community card when already dealt


def _prepare(
    players: Sequence[Sequence[int]],
    variant: object,
    street: int,
    dead: Sequence[int],
    community: bool | None,
    community_card: int | None,
) -> _Problem:
    name = _variant_name(variant)
    final = _FINAL[name]
    if not isinstance(players, Sequence) or not 2 <= len(players) <= MAX_PLAYERS:
        raise ValueError(f"equity needs 2 to {MAX_PLAYERS} players")
    first = _FIRST_STREET[name]
    if not isinstance(street, int) or not first <= street <= final:
        raise ValueError(
            f"{name}: street (cards per player) must be {first}..{final}, got {street!r}"
        )
    for p, cards in enumerate(players):
        if not isinstance(cards, Sequence) or isinstance(cards, str):
            raise ValueError(f"player {p}: known cards must be a list of card ints")
    if not isinstance(dead, Sequence) or isinstance(dead, str):
        raise ValueError("dead cards must be a list of card ints")
    seen: set[int] = set()
    known = [
        [_check_card(c, f"player {p}", seen) for c in cards] for p, cards in enumerate(players)
    ]
    for c in dead:
        _check_card(c, "dead cards", seen)
    if community_card is not None:
        _check_card(community_card, "community card", seen)
        if community is False:
            raise ValueError("a community card is given but community is False")
        community = True
    if community is None:  # R-COMMUNITY-CARD: not enough cards left for seventh street
        community = name == "SEVEN_CARD_STUD" and 52 - len(dead) - 6 * len(players) < len(players)
    if community and name != "SEVEN_CARD_STUD":
        raise ValueError("only Seven Card Stud has a community card")
    if community_card is not None and street != final:
        raise ValueError("the community card is dealt on seventh street only")
    own = final - (1 if community else 0)
    for p, cards in enumerate(known):
        if len(cards) > min(street, own):
            raise ValueError(
                f"player {p}: {len(cards)} known cards, more than the {min(street, own)} dealt"
            )
    draws = [own - len(cards) for cards in known]
    draws.append(1 if community and community_card is None else 0)
    deck = bytes(c for c in range(52) if c not in seen)
    if sum(draws) > len(deck):
        raise ValueError(f"{sum(draws)} cards still to deal but only {len(deck)} unseen")
    board = bytes(() if community_card is None else (community_card,))
    return _Problem(tuple(bytes(cards) for cards in known), bytes(draws), deck, board)


def _count_deals(problem: _Problem) -> int:
    left, deals = len(problem.deck), 1
    for k in problem.draws:
        deals *= math.comb(left, k)
        left -= k
    return deals


def exact_deal_count(
    players: Sequence[Sequence[int]],
    *,
    variant: object,
    street: int,
    dead: Sequence[int] = (),
    community: bool | None = None,
    community_card: int | None = None,
) -> int:
    """How many deals an exact enumeration of this situation would evaluate."""
    return _count_deals(_prepare(players, variant, street, dead, community, community_card))


def _loops(backend: str | None) -> tuple[str, _ExactLoop, _McLoop]:
    if backend not in (None, "c", "python"):
        raise ValueError(f"backend must be 'c' or 'python', got {backend!r}")
    if backend == "python" or (backend is None and _c is None):
        return "python", _twin.equity_exact, _twin.equity_mc
    if _c is None:
        raise ValueError("the C extension is not built")
    return "c", _c.equity_exact, _c.equity_mc


def stud_equity(
    players: Sequence[Sequence[int]],
    *,
    variant: object,
    street: int,
    dead: Sequence[int] = (),
    community: bool | None = None,
    community_card: int | None = None,
    method: str = "auto",
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    exact_threshold: int = DEFAULT_EXACT_THRESHOLD,
    deadline: float | None = None,
    backend: str | None = None,
) -> EquityResult:
    """Win, tie and equity of each player once every hand is dealt out.

    ``players[i]`` lists the cards known for player i; ``street`` is how many cards each
    player holds now (Five Card Stud 2..5, Seven Card Stud 3..7). ``community``: None
    decides by R-COMMUNITY-CARD from the count of players and dead cards (pass True or
    False when the deck's real count is known); ``community_card`` is the one already
    dealt. ``method``: "auto" (exact up to ``exact_threshold`` deals, else Monte Carlo),
    "exact" or "monte_carlo". ``deadline``: a time budget in seconds, checked between
    chunks: Monte Carlo returns what it has (``complete=False``), exact raises
    TimeoutError. Raises ValueError on bad input or work beyond the limits.
    """
    problem = _prepare(players, variant, street, dead, community, community_card)
    if method not in ("auto", "exact", "monte_carlo"):
        raise ValueError(f"method must be auto, exact or monte_carlo, got {method!r}")
    if not isinstance(exact_threshold, int) or not 0 <= exact_threshold <= MAX_EXACT_DEALS:
        raise ValueError(f"exact_threshold must be 0..{MAX_EXACT_DEALS}, got {exact_threshold!r}")
    if deadline is not None and not (isinstance(deadline, int | float) and deadline > 0):
        raise ValueError(f"deadline must be a positive number of seconds, got {deadline!r}")
    used, exact_loop, mc_loop = _loops(backend)
    deals = _count_deals(problem)
    if method == "exact" and deals > MAX_EXACT_DEALS:
        raise ValueError(
            f"exact enumeration needs {deals} deals, over the limit of {MAX_EXACT_DEALS}"
        )
    stop_at = None if deadline is None else time.monotonic() + deadline
    n = len(problem.known)
    if method == "exact" or (method == "auto" and deals <= exact_threshold):
        wins, ties, done = _run_exact(problem, deals, exact_loop, EXACT_CHUNK_DEALS[used], stop_at)
        return _result(n, wins, ties, done, "exact", True, None)
    if not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be 1..{MAX_SAMPLES}, got {samples!r}")
    if seed is None:
        seed = secrets.randbits(64)
    elif not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    wins, ties = [0] * n, [0] * (n * (MAX_PLAYERS + 1))
    done, state = 0, seed
    while done < samples:
        size = min(MC_CHUNK[used], samples - done)
        w, t, d, state = mc_loop(
            problem.known, problem.draws, problem.deck, problem.board, size, state
        )
        wins = [a + b for a, b in zip(wins, w, strict=True)]
        ties = [a + b for a, b in zip(ties, t, strict=True)]
        done += d
        if stop_at is not None and done < samples and time.monotonic() >= stop_at:
            break
    return _result(n, wins, ties, done, "monte_carlo", done == samples, seed)


def _run_exact(
    problem: _Problem, deals: int, loop: _ExactLoop, chunk: int, stop_at: float | None
) -> tuple[list[int], list[int], int]:
    n = len(problem.known)
    draws = [k for k in problem.draws if k]
    outer = math.comb(len(problem.deck), draws[0]) if draws else 1
    step = max(1, chunk * outer // max(deals, 1))
    wins, ties, done = [0] * n, [0] * (n * (MAX_PLAYERS + 1)), 0
    for start in range(0, outer, step):
        w, t, d = loop(
            problem.known, problem.draws, problem.deck, problem.board, start, start + step
        )
        wins = [a + b for a, b in zip(wins, w, strict=True)]
        ties = [a + b for a, b in zip(ties, t, strict=True)]
        done += d
        if stop_at is not None and done < deals and time.monotonic() >= stop_at:
            raise TimeoutError(
                f"exact enumeration stopped by the time budget after {done} of {deals} deals"
            )
    return wins, ties, done


def _result(
    n: int,
    wins: list[int],
    ties: list[int],
    deals: int,
    method: str,
    complete: bool,
    seed: int | None,
) -> EquityResult:
    win, tie, share, stderr = [], [], [], []
    for p in range(n):
        row = ties[p * (MAX_PLAYERS + 1) : (p + 1) * (MAX_PLAYERS + 1)]
        tied = sum(row)
        mean = (wins[p] + sum(c / k for k, c in enumerate(row) if c)) / deals
        square = (wins[p] + sum(c / (k * k) for k, c in enumerate(row) if c)) / deals
        win.append(wins[p] / deals)
        tie.append(tied / deals)
        share.append(mean)
        exact = method == "exact"
        stderr.append(0.0 if exact else math.sqrt(max(square - mean * mean, 0.0) / deals))
    return EquityResult(
        tuple(win), tuple(tie), tuple(share), tuple(stderr), method, deals, complete, seed
    )

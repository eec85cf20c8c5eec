"""Stud equity: each player's chance to win, tie and share of the pot at showdown.

``stud_equity`` takes what is known of each player (the hero's down and up cards, only
the up cards of an opponent), the dead cards (folded up cards), the variant and the
street, deals the rest of every hand from the unseen cards and counts who wins: the
best high hand in Five and Seven Card Stud, the best ace-to-five low in Razz, and in
Seven Card Stud Hi-Lo the high and eight-or-better low halves (a scoop is the whole
pot, a half is half of it; odd chips are ignored). ``showdown`` overrides the
variant's own ranking (``Showdown``: high, low, high_low_8). It
enumerates every deal when there are few (``exact_threshold``) and samples otherwise
(Monte Carlo with a seed: the same seed gives the same answer). The showdowns run in
the C extension (``studengine.evaluator._ceval``), or in a pure-Python twin that
deals the same cards when the extension is missing. Work is done in chunks; between two
chunks a time budget (``deadline``, seconds of wall clock; ``cpu_seconds``, of this
thread's CPU time) can stop it, and so can the caller (``cancelled``).
"""

from __future__ import annotations

import enum
import importlib
import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Required, TypedDict, Unpack

from studengine.cards import DECK_SIZE
from studengine.equity import _twin
from studengine.rules.variants import (
    HIGH,
    LOW_8,
    LOW_A5,
    VARIANTS,
    VariantSpec,
    deals_community_card,
)

__all__ = [
    "MAX_EXACT_DEALS",
    "MAX_PLAYERS",
    "MAX_SAMPLES",
    "Cancelled",
    "EquityResult",
    "Showdown",
    "Situation",
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


class Showdown(enum.Enum):
    """How a showdown is won."""

    HIGH = "high"  # R-HAND-RANK: the best high hand takes the pot
    LOW = "low"  # R-LOW-A5, R-RAZZ-SHOWDOWN: the best ace-to-five low takes it
    HIGH_LOW_8 = "high_low_8"  # R-HILO-SPLIT: high half, eight-or-better low half


def own_showdown(spec: VariantSpec) -> Showdown:
    """How the game's own showdown is won, from its rankings (``rules.variants``)."""
    if spec.low_ranking is LOW_8:
        return Showdown.HIGH_LOW_8
    if spec.ranking is LOW_A5 and spec.low_ranking is None:
        return Showdown.LOW
    if spec.ranking is HIGH and spec.low_ranking is None:
        return Showdown.HIGH
    raise ValueError(f"{spec.variant.value}: no equity showdown for its rankings")


# the showdown as the loops number it (EQ_HIGH, EQ_LOW, EQ_HIGH_LOW)
_LOOP_SHOWDOWN = {Showdown.HIGH: _twin.HIGH, Showdown.LOW: _twin.LOW}
_LOOP_SHOWDOWN[Showdown.HIGH_LOW_8] = _twin.HIGH_LOW

_ExactLoop = Callable[[tuple[bytes, ...], bytes, bytes, bytes, int, int, int], _twin.Counts]
_McLoop = Callable[[tuple[bytes, ...], bytes, bytes, bytes, int, int, int], _twin.McCounts]

_c: Any
try:
    _c = importlib.import_module("studengine.evaluator._ceval")
except ImportError:  # studengine.evaluator has already warned
    _c = None

BACKEND = "python" if _c is None else "c"


@dataclass(frozen=True)
class EquityResult:
    """Per player (in the order given), as fractions of the deals evaluated: ``win`` the
    whole pot alone (in Hi-Lo: a scoop, or the high hand when no low qualifies),
    ``tie`` a part of it (a tie, or in Hi-Lo a half or a share of a half), ``equity``
    the mean share of the pot, and its standard error (0 when exact). In Hi-Lo only,
    ``high`` and ``low``: winning or tying for the high half (the whole pot when no low
    qualifies) and for the qualifying low half; empty for the other showdowns."""

    win: tuple[float, ...]
    tie: tuple[float, ...]
    equity: tuple[float, ...]
    stderr: tuple[float, ...]
    method: str  # "exact" or "monte_carlo"
    samples: int  # deals evaluated
    complete: bool  # False if the time budget stopped a Monte Carlo run early
    seed: int | None  # the Monte Carlo seed (None when exact)
    showdown: Showdown = Showdown.HIGH
    high: tuple[float, ...] = ()
    low: tuple[float, ...] = ()


class Cancelled(Exception):
    """The caller's ``cancelled()`` said so between two chunks: the work stopped early."""

    def __init__(self, deals: int, planned: int) -> None:
        super().__init__(f"cancelled after {deals} of {planned} deals")
        self.deals = deals
        self.planned = planned


class _Budget:
    """When to stop between chunks: the wall-clock deadline, this thread's CPU time, the
    caller's cancellation. ``over()`` says a budget ran out; ``cancelled`` raises."""

    def __init__(
        self,
        deadline: float | None,
        cpu_seconds: float | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        self.stop_at = None if deadline is None else time.monotonic() + deadline
        self.cpu_at = None if cpu_seconds is None else time.thread_time() + cpu_seconds
        self.cancelled = cancelled

    def over(self, deals: int, planned: int) -> bool:
        if self.cancelled is not None and self.cancelled():
            raise Cancelled(deals, planned)
        if self.stop_at is not None and time.monotonic() >= self.stop_at:
            return True
        return self.cpu_at is not None and time.thread_time() >= self.cpu_at


def _spec(variant: object) -> VariantSpec:
    name = variant.value if isinstance(variant, enum.Enum) else variant
    for spec in VARIANTS.values():
        if name == spec.variant.value:
            return spec
    names = ", ".join(v.value for v in VARIANTS)
    raise ValueError(f"variant must be one of {names}, got {variant!r}")


def _showdown(showdown: object, spec: VariantSpec) -> Showdown:
    if showdown is None:
        return own_showdown(spec)
    try:
        return Showdown(showdown)
    except ValueError:
        choices = ", ".join(s.value for s in Showdown)
        raise ValueError(f"showdown must be one of {choices}, got {showdown!r}") from None


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
    showdown: Showdown


def _prepare(
    players: Sequence[Sequence[int]],
    variant: object,
    street: int,
    dead: Sequence[int] = (),
    community: bool | None = None,
    community_card: int | None = None,
    showdown: object = None,
) -> _Problem:
    spec = _spec(variant)
    name, final, first = spec.variant.value, spec.cards_per_player, spec.first_street_cards
    if not isinstance(players, Sequence) or not 2 <= len(players) <= MAX_PLAYERS:
        raise ValueError(f"equity needs 2 to {MAX_PLAYERS} players")
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
    if community is None:  # R-COMMUNITY-CARD: not enough cards left for the last street
        last = len(spec.streets[-1].cards)
        left = DECK_SIZE - len(dead) - (final - last) * len(players)
        community = spec.may_deal_community_card and deals_community_card(left, len(players))
    if community and not spec.may_deal_community_card:
        raise ValueError("only the seven-card games have a community card")
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
    return _Problem(
        tuple(bytes(cards) for cards in known), bytes(draws), deck, board, _showdown(showdown, spec)
    )


def _count_deals(problem: _Problem) -> int:
    left, deals = len(problem.deck), 1
    for k in problem.draws:
        deals *= math.comb(left, k)
        left -= k
    return deals


class Situation(TypedDict, total=False):
    """What is known of a hand besides each player's cards, as ``stud_equity`` and
    ``exact_deal_count`` take it: the variant and the street are required."""

    variant: Required[object]
    street: Required[int]
    dead: Sequence[int]
    community: bool | None
    community_card: int | None


def exact_deal_count(players: Sequence[Sequence[int]], **situation: Unpack[Situation]) -> int:
    """How many deals an exact enumeration of this situation would evaluate."""
    return _count_deals(_prepare(players, **situation))


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
    method: str = "auto",
    samples: int = DEFAULT_SAMPLES,
    seed: int | None = None,
    exact_threshold: int = DEFAULT_EXACT_THRESHOLD,
    deadline: float | None = None,
    backend: str | None = None,
    showdown: Showdown | str | None = None,
    cpu_seconds: float | None = None,
    cancelled: Callable[[], bool] | None = None,
    **situation: Unpack[Situation],
) -> EquityResult:
    """Win, tie and equity of each player once every hand is dealt out.

    ``players[i]`` lists the cards known for player i; ``street`` is how many cards each
    player holds now (Five Card Stud 2..5; Seven Card Stud, Razz and Seven Card Stud Hi-Lo
    3..7). ``variant``: a name or enum member of those four. ``showdown``: None plays the
    variant's own (high; Razz low; Hi-Lo high_low_8), or a ``Showdown`` (or its value)
    to rank otherwise, e.g. the high alone in Hi-Lo. ``community``: None
    decides by R-COMMUNITY-CARD from the count of players and dead cards (pass True or
    False when the deck's real count is known); ``community_card`` is the one already
    dealt. ``method``: "auto" (exact up to ``exact_threshold`` deals, else Monte Carlo),
    "exact" or "monte_carlo". ``deadline``: a time budget in seconds, checked between
    chunks: Monte Carlo returns what it has (``complete=False``), exact raises
    TimeoutError; ``cpu_seconds`` does the same with this thread's CPU time. ``cancelled``
    is asked between chunks too: when it answers True the work stops and ``Cancelled`` is
    raised. Raises ValueError on bad input or work beyond the limits.
    """
    problem = _prepare(players, showdown=showdown, **situation)
    if method not in ("auto", "exact", "monte_carlo"):
        raise ValueError(f"method must be auto, exact or monte_carlo, got {method!r}")
    if not isinstance(exact_threshold, int) or not 0 <= exact_threshold <= MAX_EXACT_DEALS:
        raise ValueError(f"exact_threshold must be 0..{MAX_EXACT_DEALS}, got {exact_threshold!r}")
    for name, value in (("deadline", deadline), ("cpu_seconds", cpu_seconds)):
        if value is not None and not (isinstance(value, int | float) and value > 0):
            raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
    used, exact_loop, mc_loop = _loops(backend)
    deals = _count_deals(problem)
    if method == "exact" and deals > MAX_EXACT_DEALS:
        raise ValueError(
            f"exact enumeration needs {deals} deals, over the limit of {MAX_EXACT_DEALS}"
        )
    budget = _Budget(deadline, cpu_seconds, cancelled)
    kind = _LOOP_SHOWDOWN[problem.showdown]
    if method == "exact" or (method == "auto" and deals <= exact_threshold):
        counts = _run_exact(problem, deals, exact_loop, EXACT_CHUNK_DEALS[used], budget)
        return _result(problem, counts, "exact", True, None)
    if not isinstance(samples, int) or not 1 <= samples <= MAX_SAMPLES:
        raise ValueError(f"samples must be 1..{MAX_SAMPLES}, got {samples!r}")
    if seed is None:
        seed = secrets.randbits(64)
    elif not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    counts = _Counts(len(problem.known))
    state = seed
    while counts.deals < samples:
        size = min(MC_CHUNK[used], samples - counts.deals)
        *chunk, state = mc_loop(
            problem.known, problem.draws, problem.deck, problem.board, kind, size, state
        )
        counts.add(chunk)
        if counts.deals < samples and budget.over(counts.deals, samples):
            break
    return _result(problem, counts, "monte_carlo", counts.deals == samples, seed)


class _Counts:
    """The loops' counts summed over chunks (see ``_twin.Counts``)."""

    def __init__(self, players: int) -> None:
        self.rows = [[0] * players for _ in range(6)]
        self.deals = 0

    def add(self, chunk: Sequence[Any]) -> None:
        *rows, deals = chunk
        self.rows = [
            [a + b for a, b in zip(r, c, strict=True)] for r, c in zip(self.rows, rows, strict=True)
        ]
        self.deals += deals


def _run_exact(
    problem: _Problem, deals: int, loop: _ExactLoop, chunk: int, budget: _Budget
) -> _Counts:
    draws = [k for k in problem.draws if k]
    outer = math.comb(len(problem.deck), draws[0]) if draws else 1
    step = max(1, chunk * outer // max(deals, 1))
    kind = _LOOP_SHOWDOWN[problem.showdown]
    counts = _Counts(len(problem.known))
    for start in range(0, outer, step):
        counts.add(
            loop(
                problem.known, problem.draws, problem.deck, problem.board, kind, start, start + step
            )
        )
        if counts.deals < deals and budget.over(counts.deals, deals):
            done = counts.deals
            raise TimeoutError(
                f"exact enumeration stopped by the time budget after {done} of {deals} deals"
            )
    return counts


def _result(
    problem: _Problem, counts: _Counts, method: str, complete: bool, seed: int | None
) -> EquityResult:
    whole, part, units, squares, high, low = counts.rows
    deals = counts.deals
    share = [u / _twin.UNITS / deals for u in units]
    stderr = [0.0] * len(share)
    if method != "exact":
        for p, mean in enumerate(share):
            square = squares[p] / (_twin.UNITS * _twin.UNITS) / deals
            stderr[p] = math.sqrt(max(square - mean * mean, 0.0) / deals)
    split = problem.showdown is Showdown.HIGH_LOW_8
    return EquityResult(
        win=tuple(w / deals for w in whole),
        tie=tuple(t / deals for t in part),
        equity=tuple(share),
        stderr=tuple(stderr),
        method=method,
        samples=deals,
        complete=complete,
        seed=seed,
        showdown=problem.showdown,
        high=tuple(h / deals for h in high) if split else (),
        low=tuple(lo / deals for lo in low) if split else (),
    )

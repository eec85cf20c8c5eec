"""Bots for the sample clients: random-legal, calling station, and one that decides from the
``Equity`` RPC (its own cards against the opponents' up cards, folded up cards dead), falling
back to hand strength from ``Evaluate`` (or a local rule before five cards are known) when
the server has no Equity.

A bot is pure: ``equity_request`` / ``evaluate_request`` say what it wants to know and
``decide`` chooses from the answer. ``think`` (``grpc.aio``: stud-load, stud-table) and
``think_sync`` (stud-play) are the one way every client asks: Equity, else Evaluate (on
the failures in ``EQUITY_FALLBACK_CODES``; the engine client asks no more after
UNIMPLEMENTED), else the bot's local guess."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.engine import Engine, EngineError, SyncEngine

BOT_KINDS = ("random", "station", "equity")
RANKS = "23456789TJQKA"
LOW_RANKS = "A23456789TJQK"  # ace-to-five order (Razz)
#: Monte Carlo samples the equity bot asks for (the server enumerates exactly when small).
EQUITY_SAMPLES = 2000
#: The most live players an Equity request may name; with more the bot skips the call.
EQUITY_MAX_PLAYERS = 8
#: Chance of beating one random hand, by made-hand category (a rough table for the fallback).
CATEGORY_STRENGTH: dict[str, float] = {
    "High Card": 0.2,
    "One Pair": 0.45,
    "Two Pair": 0.65,
    "Three of a Kind": 0.78,
    "Straight": 0.85,
    "Flush": 0.88,
    "Full House": 0.94,
    "Four of a Kind": 0.98,
    "Straight Flush": 0.995,
}
#: Equity failures (code names) after which the bot decides from Evaluate instead.
EQUITY_FALLBACK_CODES = frozenset(
    {"UNIMPLEMENTED", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"}
)


#: Chance of beating one random hand with an unpaired ace-to-five low, by its top card
#: (Razz's fallback); a paired low is weak.
LOW_TOP_STRENGTH: dict[str, float] = {"5": 0.95, "6": 0.88, "7": 0.75, "8": 0.6, "9": 0.45}
PAIRED_LOW_STRENGTH = 0.15


#: The moves open to the seat to act (``HandUpdate.legal_actions``), a bot's choice.
Legal = Sequence[pb.LegalAction]


@dataclass(frozen=True)
class Decision:
    action: pb.ActionType.ValueType
    to: int | None = None


def _find(legal: Sequence[pb.LegalAction], *types: int) -> list[pb.LegalAction]:
    return [a for a in legal if a.type in types]


def _decision(action: pb.LegalAction) -> Decision:
    return Decision(action.type, action.to if action.HasField("to") else None)


def passive_choice(legal: Sequence[pb.LegalAction]) -> Decision:
    """Check, else call, else the bring-in, else the smallest other move, else fold."""
    for kind in (pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_CALL, pb.ACTION_TYPE_BRING_IN):
        found = _find(legal, kind)
        if found:
            return _decision(found[0])
    others = [a for a in legal if a.type != pb.ACTION_TYPE_FOLD]
    if others:
        return _decision(min(others, key=lambda a: a.to))
    return Decision(pb.ACTION_TYPE_FOLD)


class Bot:
    """Base: never asks for strength; subclasses choose."""

    kind = "bot"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def equity_request(self, view: pb.View, seat: int) -> pb.EquityRequest | None:
        return None

    def evaluate_request(self, view: pb.View, seat: int) -> pb.EvaluateRequest | None:
        return None

    def decide(
        self, view: pb.View, seat: int, legal: Legal, strength: float | None = None
    ) -> Decision:
        """The move for ``seat``; a bot that needs no more than the legal moves ``choose``s."""
        return self.choose(legal)

    def choose(self, legal: Legal) -> Decision:
        raise RuntimeError("a Bot subclass decides or chooses")


class RandomBot(Bot):
    """A uniformly random legal action (folding less often, and never when a check is free)."""

    kind = "random"

    def choose(self, legal: Legal) -> Decision:
        free = bool(_find(legal, pb.ACTION_TYPE_CHECK))
        options = [a for a in legal if not (free and a.type == pb.ACTION_TYPE_FOLD)]
        weights = [0.3 if a.type == pb.ACTION_TYPE_FOLD else 1.0 for a in options]
        return _decision(self.rng.choices(options, weights=weights)[0])


class CallingStation(Bot):
    """Never folds, never raises: checks or calls every street down to the showdown."""

    kind = "station"

    def choose(self, legal: Legal) -> Decision:
        return passive_choice(legal)


def _live_opponents(view: pb.View, seat: int) -> list[pb.SeatInfo]:
    return [s for s in view.seats if s.seat != seat and not s.folded]


def local_low_strength(cards: Sequence[str], opponents: int) -> float:
    """Razz: a rough chance to win from the cards so far: distinct low cards (8 or
    lower, ace low) are good, pairs and high cards bad."""
    distinct = {card[0] for card in cards}
    lows = sum(1 for rank in distinct if LOW_RANKS.index(rank) <= 7)
    paired = len(distinct) < len(cards)
    one = 0.25 + 0.12 * min(lows, 5) - (0.1 if paired else 0.0)
    return float(max(0.05, one) ** max(1, opponents))


def local_strength(cards: Sequence[str], opponents: int) -> float:
    """A rough chance to win from fewer than five cards: pairs and high cards."""
    counts = Counter(card[0] for card in cards)
    best = max(counts.values(), default=0)
    top = max((RANKS.index(card[0]) for card in cards), default=0) / 12
    if best >= 3:
        one = 0.85
    elif best == 2:
        paired = max(RANKS.index(r) for r, n in counts.items() if n == 2) / 12
        one = 0.55 + 0.2 * paired
    else:
        suits = Counter(card[1] for card in cards)
        one = 0.3 + 0.2 * top + (0.05 if max(suits.values(), default=0) >= 3 else 0.0)
    return float(one ** max(1, opponents))


class EquityBot(Bot):
    """Bets and raises with a big share of the pot, calls when the pot odds pay, else folds."""

    kind = "equity"

    @staticmethod
    def _own_cards(view: pb.View, seat: int) -> list[str]:
        mine = view.seats[seat]
        return [c for c in mine.cards if c]

    def equity_request(self, view: pb.View, seat: int) -> pb.EquityRequest | None:
        mine = view.seats[seat]
        players = [pb.EquityPlayer(up_cards=mine.up_cards, down_cards=mine.down_cards)]
        opponents = _live_opponents(view, seat)
        if len(opponents) + 1 > EQUITY_MAX_PLAYERS:
            return None
        players += [pb.EquityPlayer(up_cards=s.up_cards) for s in opponents]
        dead = [c for s in view.seats if s.folded for c in s.up_cards]
        request = pb.EquityRequest(
            variant=view.variant,
            players=players,
            dead_cards=dead,
            samples=EQUITY_SAMPLES,
            seed=self.rng.getrandbits(63),
        )
        if view.HasField("community_card"):
            request.community_card = view.community_card
        else:
            request.street = len(mine.cards)  # the cards each live player holds now
        return request

    def evaluate_request(self, view: pb.View, seat: int) -> pb.EvaluateRequest | None:
        cards = self._own_cards(view, seat)
        if view.HasField("community_card"):
            cards.append(view.community_card)
        if not 5 <= len(cards) <= 7:
            return None
        # Razz ranks lows; Hi-Lo's fallback judges the high (its Equity counts both halves)
        ranking = (
            pb.HAND_RANKING_ACE_TO_FIVE_LOW
            if view.variant == pb.VARIANT_RAZZ
            else pb.HAND_RANKING_HIGH
        )
        return pb.EvaluateRequest(hands=[pb.CardSet(cards=cards)], ranking=ranking)

    def strength_from_equity(self, response: pb.EquityResponse) -> float:
        return float(response.players[0].equity)

    def strength_from_evaluate(
        self, response: pb.EvaluateResponse, view: pb.View, seat: int
    ) -> float:
        value = response.values[0]
        if view.variant == pb.VARIANT_RAZZ:  # "8-5-4-3-2 low", or a paired low
            top = value.description[0]
            one = LOW_TOP_STRENGTH.get(top, 0.3) if value.category == "Low" else PAIRED_LOW_STRENGTH
        else:
            one = CATEGORY_STRENGTH.get(value.category, 0.3)
        return float(one ** max(1, len(_live_opponents(view, seat))))

    def strength_locally(self, view: pb.View, seat: int) -> float:
        opponents = len(_live_opponents(view, seat))
        if view.variant == pb.VARIANT_RAZZ:
            return local_low_strength(self._own_cards(view, seat), opponents)
        return local_strength(self._own_cards(view, seat), opponents)

    def decide(
        self, view: pb.View, seat: int, legal: Legal, strength: float | None = None
    ) -> Decision:
        if strength is None:
            strength = self.strength_locally(view, seat)
        strength = min(1.0, max(0.0, strength + self.rng.uniform(-0.04, 0.04)))
        opponents = max(1, len(_live_opponents(view, seat)))
        fair = 1.0 / (opponents + 1)
        mine = view.seats[seat]
        aggressive = _find(legal, pb.ACTION_TYPE_BET, pb.ACTION_TYPE_RAISE, pb.ACTION_TYPE_COMPLETE)
        if aggressive and strength >= max(0.5, 1.6 * fair):
            sizes = sorted(aggressive, key=lambda a: a.to)
            return _decision(sizes[-1] if strength >= 0.75 else sizes[0])
        calls = _find(legal, pb.ACTION_TYPE_CALL)
        if _find(legal, pb.ACTION_TYPE_CHECK, pb.ACTION_TYPE_BRING_IN) or not calls:
            return passive_choice(legal)
        cost = calls[0].to - mine.round_bet
        pot_odds = cost / (view.pot + cost) if cost > 0 else 0.0
        if strength >= pot_odds:
            return _decision(calls[0])
        return Decision(pb.ACTION_TYPE_FOLD)


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "station": CallingStation, "equity": EquityBot}


def make_bot(kind: str, rng: random.Random) -> Bot:
    try:
        return BOTS[kind](rng)
    except KeyError:
        raise ValueError(f"unknown bot {kind!r} (choose from {', '.join(BOT_KINDS)})") from None


#: A question to the engine (method name, request); its answer, or the call's EngineError.
Question = tuple[str, Any]
Thinking = Generator[Question, Any, float | None]


def _thinking(bot: Bot, view: pb.View, seat: int, on_fallback: Callable[[str], None]) -> Thinking:
    """The one way a bot finds its strength: Equity, else Evaluate, else its own guess.
    Yields each question; the driver sends back the answer or the call's EngineError."""
    if not isinstance(bot, EquityBot):
        return None
    request = bot.equity_request(view, seat)
    if request is not None:
        answer = yield "Equity", request
        if not isinstance(answer, EngineError):
            return bot.strength_from_equity(answer)
        if answer.code not in EQUITY_FALLBACK_CODES:
            raise answer
        on_fallback(answer.code)
    question = bot.evaluate_request(view, seat)
    if question is None:
        return bot.strength_locally(view, seat)
    answer = yield "Evaluate", question
    if isinstance(answer, EngineError):
        raise answer
    return bot.strength_from_evaluate(answer, view, seat)


def _ignore(code: str) -> None:
    return None


class _Thought:
    """Steps ``_thinking``: ``question`` is what to ask next (None: ready to decide)."""

    def __init__(
        self, bot: Bot, view: pb.View, seat: int, on_fallback: Callable[[str], None]
    ) -> None:
        self.bot, self.view, self.seat = bot, view, seat
        self.steps = _thinking(bot, view, seat, on_fallback)
        self.question: Question | None = None
        self.strength: float | None = None
        self.told(None)

    def told(self, answer: Any) -> None:
        try:
            self.question = self.steps.send(answer)
        except StopIteration as done:
            self.question, self.strength = None, done.value

    def decision(self, legal: Sequence[pb.LegalAction]) -> Decision:
        return self.bot.decide(self.view, self.seat, legal, self.strength)


async def think(
    bot: Bot,
    view: pb.View,
    seat: int,
    legal: Sequence[pb.LegalAction],
    engine: Engine,
    on_fallback: Callable[[str], None] = _ignore,
) -> Decision:
    """``bot``'s move for ``seat`` from that seat's view, asking ``engine`` (grpc.aio)."""
    thought = _Thought(bot, view, seat, on_fallback)
    while thought.question is not None:
        method, request = thought.question
        try:
            thought.told(await engine.call(method, request))
        except EngineError as error:
            thought.told(error)
    return thought.decision(legal)


def think_sync(
    bot: Bot, view: pb.View, seat: int, legal: Sequence[pb.LegalAction], engine: SyncEngine
) -> Decision:
    """``think`` with blocking calls (stud-play: no fallback counted)."""
    thought = _Thought(bot, view, seat, _ignore)
    while (question := thought.question) is not None:
        try:
            answer = engine.call(*question)
        except EngineError as error:
            answer = error
        thought.told(answer)
    return thought.decision(legal)


__all__ = [
    "BOTS",
    "BOT_KINDS",
    "EQUITY_FALLBACK_CODES",
    "Bot",
    "CallingStation",
    "Decision",
    "EquityBot",
    "RandomBot",
    "local_low_strength",
    "local_strength",
    "make_bot",
    "passive_choice",
    "think",
    "think_sync",
]

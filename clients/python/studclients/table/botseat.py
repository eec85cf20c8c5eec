"""The bots that fill empty seats: the sample clients' bots (``studclients.bots``: random,
station, equity). A bot is pure (it says what it wants to know, then decides from the
answer); here its questions go to the engine through stud-table's ``grpc.aio`` client."""

from __future__ import annotations

import random
from collections.abc import Sequence

from studclients.bots import BOT_KINDS, EQUITY_FALLBACK_CODES, Decision, EquityBot, make_bot
from studclients.table.engine import Engine, EngineError, pb

__all__ = ["BOT_KINDS", "Decision", "decide"]

#: The Equity failures after which a bot decides from Evaluate, by code name (EngineError's).
FALLBACK_CODES = frozenset(code.name for code in EQUITY_FALLBACK_CODES)


async def decide(
    kind: str,
    view: pb.View,
    seat: int,
    legal: Sequence[pb.LegalAction],
    engine: Engine,
    rng: random.Random | None = None,
) -> Decision:
    """A legal move for the bot of ``kind`` in ``seat``, from that seat's own view."""
    bot = make_bot(kind, rng or random.Random())
    strength: float | None = None
    if isinstance(bot, EquityBot):
        question = bot.equity_request(view, seat)
        if question is not None:
            try:
                strength = bot.strength_from_equity(await engine.equity(question))
            except EngineError as error:
                if error.code not in FALLBACK_CODES:
                    raise
        if strength is None:
            evaluate = bot.evaluate_request(view, seat)
            if evaluate is None:
                strength = bot.strength_locally(view, seat)
            else:
                answer = await engine.evaluate(evaluate)
                strength = bot.strength_from_evaluate(answer, view, seat)
    return bot.decide(view, seat, legal, strength)

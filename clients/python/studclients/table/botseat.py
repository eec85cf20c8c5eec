"""The bots that fill empty seats: the sample clients' bots (random, station, equity),
reused through this one adapter. A bot is pure (it says what it wants to know and then
decides from the answer); here its questions go to the engine over ``grpc.aio``."""

from __future__ import annotations

import random
from collections.abc import Sequence

from studengine.clients.bots import BOT_KINDS, Decision, EquityBot, make_bot

from studclients.table.engine import Engine, EngineError, pb

__all__ = ["BOT_KINDS", "Decision", "decide"]

#: Equity failures after which the bot decides from Evaluate (as in the sample clients).
FALLBACK_CODES = frozenset(
    {"UNIMPLEMENTED", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"}
)


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

"""What stud-table does when the engine fails it. A hand whose sealed state no engine can
open (``STATE_INVALID``: the engines' keys changed, as with every ``stud-server --dev``
restart) is called off (``Tables.void``, from ``void_step`` here): stacks go back to where
the last settled hand left them, the players are told, and the next hand is dealt. An
engine that cannot be reached is shown to players in plain words (never its gRPC text or
address) until a call gets through."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb

from studclients.engine import Engine, EngineError
from studclients.table import metrics
from studclients.table.store import Step

log = logging.getLogger("stud-table")
T = TypeVar("T")

#: The ErrorInfo reason of a sealed state that does not open.
STATE_INVALID = "STATE_INVALID"
#: Codes that say the engine is down or failing, not that the request was wrong.
DOWN_CODES = frozenset(
    {"UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED", "UNKNOWN", "INTERNAL", "RESOURCE_EXHAUSTED"}
)
#: What players read while the engine is down, and when a hand was called off.
DOWN_MESSAGE = "The game server cannot be reached right now. Play resumes when it is back."
VOID_MESSAGE = (
    "This hand was called off: the game server could not continue it. "
    "Stacks are as they were before it; the next hand is dealt shortly."
)
PROBE_SECONDS = 1.0


def voided(update: pb.HandUpdate, start_stacks: list[int]) -> bytes:
    """The stored update of a called-off hand: over, nobody to act, nothing legal, and the
    result's stacks the ones it started with."""
    copy = pb.HandUpdate()
    copy.CopyFrom(update)
    copy.over = True
    copy.ClearField("to_act")
    del copy.legal_actions[:]
    copy.result.Clear()
    copy.result.stacks.extend(start_stacks)
    return copy.SerializeToString()


def void_step(hand: sa.Row[Any]) -> Step:
    update = pb.HandUpdate.FromString(hand.update)
    return Step(
        source="void",
        seat=None,
        action=None,
        to=None,
        state=hand.state,
        update=voided(update, list(hand.start_stacks)),
        to_act=None,
        deadline=None,
        over=True,
        reveal=None,
    )


class EngineHealth:
    """Whether this replica reaches the engine: down from a call failing with a DOWN_CODES
    code until a call (or a probe, at most every PROBE_SECONDS) gets an answer."""

    def __init__(self) -> None:
        self.down_since: float | None = None
        self._probed = 0.0

    @property
    def down(self) -> bool:
        return self.down_since is not None

    async def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """Runs one engine call, counting its failure by code and noting the engine's
        state; an EngineError goes on to the caller."""
        try:
            answer = await make()
        except EngineError as error:
            metrics.ENGINE_ERRORS.labels(error.code).inc()
            if error.code in DOWN_CODES:
                if self.down_since is None:
                    log.warning("engine unreachable: %s", error)
                    self.down_since = time.time()
            else:
                self._up()
            raise
        self._up()
        return answer

    def _up(self) -> None:
        if self.down_since is not None:
            log.info("engine reachable again")
        self.down_since = None

    async def probe(self, engine: Engine) -> None:
        """While down, one cheap call (an empty Evaluate) at most every PROBE_SECONDS."""
        now = time.monotonic()
        if not self.down or now - self._probed < PROBE_SECONDS:
            return
        self._probed = now
        try:
            await self.call(lambda: engine.evaluate(pb.EvaluateRequest()))
        except EngineError:
            return

"""A worker's drain: what both ports ask before they start a call, and how long the worker
waits before it stops its listeners.

On SIGTERM the worker closes the gate: each port refuses the calls it has not started
with UNAVAILABLE (reason SERVER_DRAINING, with RetryInfo) instead of starting them, while
the calls already started run on. ``settle`` returns once those have ended and callers
have gone quiet (no call refused for ``QUIET`` seconds since the gate closed: longer
than the longest pause between attempts that proto/service_config.json allows, so that
a client retrying by it has given up or gone elsewhere; at most ``REFUSE_AT_MOST``
seconds of refusing once nothing runs, so that a client that keeps calling is not
refused for the whole grace), or when the grace is spent. Only then do the
listeners stop (GOAWAY): gRPC answers a call it holds but has not handed to the server at
that moment with CANCELLED (grpc/grpc#41785), so the gate keeps such calls few: they
were refused, typed, before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

QUIET = 1.25  # the service config's maxBackoff is 1 s
REFUSE_AT_MOST = 3.0
_POLL = 0.01


class Gate:
    """Open while serving; closed (``draining``) once the worker begins to stop."""

    def __init__(self) -> None:
        self.draining = False
        self._last_refused = 0.0

    def refused(self) -> None:
        """A port refused a call because the gate is closed."""
        self._last_refused = time.monotonic()

    async def settle(self, grace: float, open_calls: Callable[[], int]) -> float:
        """Close the gate; wait as the module says. Returns the grace left (seconds)."""
        self.draining = True
        start = self._last_refused = time.monotonic()  # quiet: counted from now at least
        idle_since: float | None = None
        while (now := time.monotonic()) - start < grace:
            if open_calls():
                idle_since = None
            else:
                idle_since = now if idle_since is None else idle_since
                if now - self._last_refused >= QUIET or now - idle_since >= REFUSE_AT_MOST:
                    break
            await asyncio.sleep(_POLL)
        return max(0.0, grace - (time.monotonic() - start))

"""The expensive calls' own bounded pool (Equity, large Evaluate batches).

The cheap calls run on the event loop; these run on a few threads of their own so that
they never hold up health checks or the cheap calls. At most ``threads`` run at once and
at most ``limit`` are held (running or waiting) per worker: one more is refused with
RESOURCE_EXHAUSTED (reason ``overloaded``) at once. When its caller cancels (or its
deadline passes), a call still waiting never starts, and one running is told through
the ``cancelled`` function it is handed, which the equity loops ask between chunks.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from concurrent import futures
from typing import TypeVar

from studengine.api.errors import overloaded

T = TypeVar("T")
#: Work for the pool: it gets a ``cancelled()`` to ask between chunks.
Work = Callable[[Callable[[], bool]], T]


class ExpensiveCalls:
    """A bounded thread pool with a bounded number of calls held."""

    def __init__(self, threads: int, limit: int) -> None:
        self.limit = limit
        self.held = 0  # touched on the event loop only
        self._pool = futures.ThreadPoolExecutor(threads, thread_name_prefix="expensive")

    async def run(self, method: str, work: Work[T]) -> T:
        """``work(cancelled)`` on the pool; raises ``ApiError`` (overloaded) when full."""
        if self.held >= self.limit:
            raise overloaded(method, self.limit)
        loop = asyncio.get_running_loop()
        cancelled = threading.Event()
        self.held += 1
        future = self._pool.submit(work, cancelled.is_set)
        # released when the work really ends (or never starts), not when the caller leaves
        future.add_done_callback(lambda _: _call_soon(loop, self._release))
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def _release(self) -> None:
        self.held -= 1

    def shutdown(self) -> None:
        """Drop the waiting work; what runs ends at its next chunk (its callers are gone)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    with contextlib.suppress(RuntimeError):  # the loop has closed: nothing left to count
        loop.call_soon_threadsafe(callback)

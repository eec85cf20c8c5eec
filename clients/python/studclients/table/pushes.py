"""One WebSocket subscriber's pushes: a bounded send queue and a sender task of its own,
so a reader that stalls (a full receive window, a frozen tab) holds up nobody but itself.
A subscriber that cannot keep up (its queue is full, or one send does not finish within
SEND_SECONDS) is dropped: its connection is aborted, never waited on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket

from aiohttp import web

from studclients.table import metrics

log = logging.getLogger("stud-table")

#: Pages waiting to be sent to one connection; a page is the whole table, so a reader
#: this far behind is not reading at all.
QUEUE_SIZE = 8
#: How long one send may wait for the reader (its TCP window) before the reader is dropped.
SEND_SECONDS = 10.0
#: The kernel's send buffer of a WebSocket (bytes): fixed, so that what a stalled reader
#: holds is bounded (autotuning would let it grow to megabytes before anyone noticed).
SEND_BUFFER = 64 * 1024


class Subscriber:
    """A WebSocket, the seat token it presented and its queue of messages to send."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request, token: str) -> None:
        self.ws = ws
        self.token = token
        self.transport = request.transport
        sock = None if self.transport is None else self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        self.queue: asyncio.Queue[tuple[str, bool]] = asyncio.Queue(QUEUE_SIZE)
        self.dropped = False
        self.task = asyncio.create_task(self._send())

    def offer(self, text: str, close_after: bool = False) -> bool:
        """Queues ``text`` without waiting; a full queue drops the subscriber (False)."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait((text, close_after))
        except asyncio.QueueFull:
            self.drop("queue_full")
            return False
        return True

    async def _send(self) -> None:
        while True:
            text, close_after = await self.queue.get()
            try:
                await asyncio.wait_for(self.ws.send_str(text), SEND_SECONDS)
                if close_after:
                    await asyncio.wait_for(self.ws.close(), SEND_SECONDS)
                    return
            except TimeoutError:
                self.drop("send_timeout")
                return
            except (ConnectionError, RuntimeError):
                return  # the connection is closing: its handler unsubscribes it

    def drop(self, reason: str) -> None:
        """Aborts the connection (its handler then ends and unsubscribes it)."""
        if self.dropped:
            return
        self.dropped = True
        metrics.SUBSCRIBERS_DROPPED.labels(reason).inc()
        log.info("dropped a WebSocket subscriber that could not keep up (%s)", reason)
        if self.transport is not None:
            self.transport.abort()
        if self.task is not asyncio.current_task():
            self.task.cancel()

    async def stop(self) -> None:
        """Ends the sender task (the connection has ended)."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task

"""Stopping on a signal: the first SIGTERM or SIGINT sets an event, later ones are ignored
(a ``threading.Event`` for the supervisor, an ``asyncio.Event`` for a serving process)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from typing import Any

import structlog

_log = structlog.get_logger("studengine.server")


def stop_event() -> threading.Event:
    """Set by the first SIGTERM or SIGINT; later ones are ignored (shutdown is under way)."""
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        if not stop.is_set():
            _log.info("signal received", signal=signal.Signals(signum).name)
            stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    return stop


def wait_for(stop: threading.Event) -> None:
    while not stop.wait(0.5):
        pass


def async_stop_event() -> asyncio.Event:
    """The same on the running event loop: set by the first SIGTERM or SIGINT.

    A plain signal handler rather than ``loop.add_signal_handler``: the loop's handlers
    go (back to the default, which kills) when the loop closes, and a late signal would
    then end the process before its exit drain writes the last log lines. This one stays
    for the life of the process and ignores signals once the loop has closed."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_loop(sig: signal.Signals) -> None:
        if not stop.is_set():
            _log.info("signal received", signal=sig.name)
            stop.set()

    def on_signal(signum: int, _frame: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: shutdown is under way
            loop.call_soon_threadsafe(on_loop, signal.Signals(signum))

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    return stop

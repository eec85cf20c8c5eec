"""Stopping on a signal: the first SIGTERM or SIGINT sets an event, later ones are ignored
(a ``threading.Event`` for the supervisor, an ``asyncio.Event`` for a serving process)."""

from __future__ import annotations

import asyncio
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
    """The same on the running event loop: set by the first SIGTERM or SIGINT."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()

    def on_signal(sig: signal.Signals) -> None:
        if not stop.is_set():
            _log.info("signal received", signal=sig.name)
            stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, on_signal, sig)
    return stop

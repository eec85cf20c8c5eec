"""Stopping a benchmark's child process: SIGTERM, a grace period, then SIGKILL."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen[str] | subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """Asks ``proc`` to stop (SIGTERM), kills it after ``grace`` seconds, and reaps it."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()

"""Helpers shared by the sample clients: variants and default stakes, action names, a
``stud-server --dev`` started for a session, target parsing and the chip check."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from stud_api.stud.v1 import stud_engine_pb2 as pb

VARIANTS: dict[str, pb.Variant.ValueType] = {
    "five": pb.VARIANT_FIVE_CARD_STUD,
    "seven": pb.VARIANT_SEVEN_CARD_STUD,
}
VARIANT_NAMES: dict[int, str] = {
    pb.VARIANT_FIVE_CARD_STUD: "Five Card Stud",
    pb.VARIANT_SEVEN_CARD_STUD: "Seven Card Stud",
}
#: The most players each game seats (rulebook R-PLAYERS).
MAX_PLAYERS: dict[int, int] = {pb.VARIANT_FIVE_CARD_STUD: 10, pb.VARIANT_SEVEN_CARD_STUD: 8}

ACTION_WORDS: dict[int, str] = {
    pb.ACTION_TYPE_FOLD: "fold",
    pb.ACTION_TYPE_CHECK: "check",
    pb.ACTION_TYPE_CALL: "call",
    pb.ACTION_TYPE_BRING_IN: "bring-in",
    pb.ACTION_TYPE_COMPLETE: "complete",
    pb.ACTION_TYPE_BET: "bet",
    pb.ACTION_TYPE_RAISE: "raise",
    pb.ACTION_TYPE_TIMEOUT: "timeout",
}

#: Calls that carry a whole hand update get this deadline (seconds).
CALL_TIMEOUT = 10.0


def default_table(ante: int = 5, bring_in: int = 10, small_bet: int = 20) -> pb.Table:
    """Fixed-limit stakes: the big bet is twice the small bet."""
    return pb.Table(ante=ante, bring_in=bring_in, small_bet=small_bet, big_bet=2 * small_bet)


def describe_action(taken: pb.ActionTaken, name: str, you: bool = False) -> str:
    """``"Bix raises to 40"``, ``"Ada checks"``, ``"you call 20 (all in)"``."""
    s = "" if you else "s"
    kind = taken.type
    if kind == pb.ACTION_TYPE_FOLD:
        text = f"{name} fold{s}"
    elif kind == pb.ACTION_TYPE_CHECK:
        text = f"{name} check{s}"
    elif kind == pb.ACTION_TYPE_CALL:
        text = f"{name} call{s} {taken.amount}"
    elif kind == pb.ACTION_TYPE_BRING_IN:
        text = f"{name} bring{s} in for {taken.to}"
    elif kind == pb.ACTION_TYPE_COMPLETE:
        text = f"{name} complete{s} to {taken.to}"
    elif kind == pb.ACTION_TYPE_BET:
        text = f"{name} bet{s} {taken.to}"
    elif kind == pb.ACTION_TYPE_RAISE:
        text = f"{name} raise{s} to {taken.to}"
    else:
        text = f"{name} act{s} ({ACTION_WORDS.get(kind, kind)})"
    if taken.all_in:
        text += " (all in)"
    if taken.timeout:
        text += " [clock ran out]"
    return text


def chips_conserved(start_stacks: Sequence[int], update: pb.HandUpdate) -> bool:
    """True when a finished hand's final stacks add up to the stacks it started with."""
    return bool(update.over) and sum(update.result.stacks) == sum(start_stacks)


def parse_targets(text: str) -> list[str]:
    """``"h1:1,h2:2"`` -> ``["h1:1", "h2:2"]``; each must be ``host:port``."""
    targets = [part.strip() for part in text.split(",") if part.strip()]
    if not targets:
        raise ValueError("no target given (expected host:port[,host:port...])")
    for target in targets:
        host, sep, port = target.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"not a host:port target: {target!r}")
    return targets


#: Each channel its own connection, so several channels to one multi-worker server spread
#: over the workers (SO_REUSEPORT balances connections, not calls).
CHANNEL_OPTIONS: list[tuple[str, int]] = [("grpc.use_local_subchannel_pool", 1)]


@dataclass
class DevServer:
    """A ``stud-server --dev`` subprocess on a free 127.0.0.1 port for one session.

    It runs in its own session so a Ctrl-C at the terminal reaches only the client, which
    then stops the server itself (SIGTERM, then SIGKILL if it hangs)."""

    proc: subprocess.Popen[str]
    port: int

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    @classmethod
    def start(cls, workers: int = 1, timeout: float = 60.0) -> DevServer:
        cmd = [
            sys.executable,
            "-m",
            "studengine.server",
            "--dev",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--workers",
            str(workers),
        ]
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
        env["PYTHONUNBUFFERED"] = "1"
        proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            start_new_session=True,
        )
        found: list[int] = []
        ready = threading.Event()

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:  # keep draining: the server logs one line per call
                if not found:
                    try:
                        entry = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(entry, dict) and entry.get("event") == "serving":
                        found.append(int(entry["port"]))
                        ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True, name="stud-server-log").start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.1):
            if time.monotonic() > deadline:
                break
        server = cls(proc, found[0] if found else 0)
        if not found:
            server.stop()
            raise RuntimeError(f"stud-server did not start (exit code {proc.poll()})")
        return server

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) used so far by the server and its worker processes,
        from /proc (Linux); None where /proc is not there."""
        proc = Path("/proc")
        if not (proc / str(self.pid) / "stat").exists():
            return None
        parents: dict[int, int] = {}
        times: dict[int, float] = {}
        tick = os.sysconf("SC_CLK_TCK")
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry.name)] = int(fields[1])
            times[int(entry.name)] = (int(fields[11]) + int(fields[12])) / tick
        total, todo = 0.0, [self.pid]
        while todo:
            pid = todo.pop()
            total += times.get(pid, 0.0)
            todo += [child for child, parent in parents.items() if parent == pid]
        return total

    def stop(self, timeout: float = 20.0) -> int:
        """SIGTERM and wait (kill the session if it hangs); the exit code."""
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                return self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.wait()


__all__ = [
    "ACTION_WORDS",
    "CALL_TIMEOUT",
    "CHANNEL_OPTIONS",
    "MAX_PLAYERS",
    "VARIANTS",
    "VARIANT_NAMES",
    "DevServer",
    "chips_conserved",
    "default_table",
    "describe_action",
    "parse_targets",
]

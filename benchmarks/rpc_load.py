"""The parts of ``make bench-rpc`` that run and time servers: a server process with its CPU
time (``/proc/<pid>/stat``), the load that drives it (``measure``: calls at a fixed
concurrency from a grpc.aio client), one server's rounds (``Summary``), and the time
another guest of the virtual machine's host took from the servers' core during them
(``CoreSteal``: CPU time per call is only fair while that stays small).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import grpc
from studclients.devserver import serving_port

from benchmarks import processes, rpc_connect

CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---- processes under test ---------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all its threads), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class ServerProcess:
    """A server subprocess writing its output (JSON logs) to a file; ``port`` once it serves.

    A file rather than a pipe: a pipe the benchmark's own busy process must drain would
    stall the server's log writes and skew its CPU figures."""

    def __init__(
        self,
        cmd: Sequence[str],
        env: dict[str, str],
        log_dir: Path,
        name: str,
        cpus: frozenset[int] | None = None,
    ) -> None:
        """``cpus``: the cores the server (every thread it starts) may run on; None: any."""
        self.log_path = log_dir / f"{name}.log"
        pin = None if cpus is None else partial(os.sched_setaffinity, 0, cpus)
        with self.log_path.open("w") as log:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                preexec_fn=pin,
            )
        self.port = 0

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until the server says its port (``PORT n``, or stud-server's ``serving`` line)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.proc.poll() is None:
            for line in self.log_path.read_text().splitlines():
                if line.startswith("PORT "):
                    self.port = int(line.split()[1])
                    return
                port = serving_port(line)
                if port:
                    self.port = port
                    return
            time.sleep(0.05)
        raise RuntimeError(f"{self.log_path.name}: no port:\n{self.log_path.read_text()}")

    @property
    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def stop(self) -> None:
        processes.stop(self.proc)


# ---- the load -----------------------------------------------------------------------------


@dataclass
class Result:
    name: str
    calls: int
    seconds: float
    cpu: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.calls / self.seconds

    @property
    def cpu_per_call_us(self) -> float:
        return self.cpu / self.calls * 1e6

    def percentile(self, q: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def send_calls(
    target: str, method: str, requests: Sequence[bytes], count: int, concurrency: int
) -> list[float]:
    """Send ``count`` calls (cycling through ``requests``) with ``concurrency`` in flight."""
    async with grpc.aio.insecure_channel(target) as channel:
        # raw bytes in and out: no client-side parsing
        call = channel.unary_unary(method, request_serializer=None, response_deserializer=None)
        latencies: list[float] = []
        next_index = 0

        async def worker() -> None:
            nonlocal next_index
            while next_index < count:
                request = requests[next_index % len(requests)]
                next_index += 1
                t0 = time.perf_counter()
                await call(request, timeout=60)
                latencies.append(time.perf_counter() - t0)

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return latencies


def measure(
    name: str,
    server: ServerProcess,
    method: str,
    requests: Sequence[bytes],
    count: int,
    concurrency: int,
    warmup: int,
) -> Result:
    target = f"127.0.0.1:{server.port}"

    def drive(n: int) -> list[float]:
        if method == "connect":  # Act over the HTTP port (Connect, binary)
            return rpc_connect.drive(server.port, requests, n, concurrency)
        return asyncio.run(send_calls(target, method, requests, n, concurrency))

    drive(warmup)
    cpu0, t0 = server.cpu, time.perf_counter()
    latencies = drive(count)
    seconds, cpu = time.perf_counter() - t0, server.cpu - cpu0
    return Result(name, count, seconds, cpu, latencies)


# ---- the rounds ------------------------------------------------------------


@dataclass
class Summary:
    """One server's rounds. The machine is shared: noise only ever adds CPU time, so a
    server's best round is one fair figure, but the load drifts over a run, so the
    headline compares each Act round with the echo round taken right after it
    (``paired_ratios``) and takes the median; the median round shows the spread."""

    name: str
    rounds: list[Result]

    @property
    def best_cpu_us(self) -> float:
        return min(r.cpu_per_call_us for r in self.rounds)

    @property
    def median_cpu_us(self) -> float:
        return statistics.median(r.cpu_per_call_us for r in self.rounds)

    @property
    def best_rate(self) -> float:
        return max(r.rate for r in self.rounds)

    def paired_ratios(self, other: Summary) -> list[float]:
        """CPU per call of each round over ``other``'s same round (taken right after it,
        so that a drift in the machine's load hits both alike)."""
        pairs = zip(self.rounds, other.rounds, strict=True)
        return [mine.cpu_per_call_us / theirs.cpu_per_call_us for mine, theirs in pairs]

    def percentile(self, q: float) -> float:
        pooled = Result(self.name, 0, 0.0, 0.0, [x for r in self.rounds for x in r.latencies])
        return pooled.percentile(q)

    def row(self) -> str:
        return (
            f"{self.name:<32}{self.best_rate:>9.0f}{self.percentile(0.5):>8.2f}"
            f"{self.percentile(0.99):>8.2f}{self.best_cpu_us:>10.0f}{self.median_cpu_us:>10.0f}"
        )


# ---- the machine ----------------------------------------------------------------------------


def _core_ticks(cores: frozenset[int] | None) -> tuple[int, int]:
    """(all ticks, steal ticks) of ``cores`` (None: every core) from /proc/stat."""
    names = {"cpu"} if cores is None else {f"cpu{core}" for core in cores}
    total = steal = 0
    with open("/proc/stat") as stat:
        for line in stat:
            name, *ticks = line.split()
            if name in names:
                values = [int(t) for t in ticks[:8]]  # user .. steal (guest is within user)
                total += sum(values)
                steal += values[7]
    return total, steal


class CoreSteal:
    """The share of the servers' cores' time that the host gave to another guest (steal,
    in /proc/stat) between ``start()`` and ``share()``. A round with much steal runs on a
    core the host keeps taking away: its CPU time per call is then less to be trusted."""

    def __init__(self, cores: frozenset[int] | None) -> None:
        self.cores = cores
        self._start = (0, 0)

    def start(self) -> None:
        self._start = _core_ticks(self.cores)

    def share(self) -> float:
        total, steal = _core_ticks(self.cores)
        elapsed = total - self._start[0]
        return (steal - self._start[1]) / elapsed if elapsed else 0.0

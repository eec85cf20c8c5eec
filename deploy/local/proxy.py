"""Debian's HAProxy on loopback in front of local replicas, with deploy/haproxy/haproxy.cfg
(the Compose file's proxy): its server-template lines become one ``server`` line per
replica (gRPC port and HTTP port; health from the HTTP port's /healthz). For `make
cluster` and tests/deploy."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from localcluster import REPO, Replica, free_port

CONFIG = REPO / "deploy" / "haproxy" / "haproxy.cfg"
BACKEND_PORTS = {"engine_grpc": "port", "engine_http": "http_port"}


@dataclass
class Proxy:
    """A running haproxy: ``target`` takes gRPC, Connect and gRPC-Web alike."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path
    stats: Path  # its stats socket (``server_states``)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"


def local_config(replicas: Sequence[Replica]) -> str:
    """deploy/haproxy/haproxy.cfg with the local replicas in place of its server-template
    lines (and without the Docker resolver they use)."""
    out: list[str] = []
    section = ""
    for line in CONFIG.read_text().splitlines():
        words = line.split()
        if words and not line[0].isspace():
            section = " ".join(words[:2])
        if section.startswith("resolvers"):  # Docker's DNS: not here
            continue
        if words[:1] == ["server-template"]:
            attr = BACKEND_PORTS[section.removeprefix("backend ")]
            out += [
                f"    server {r.name} 127.0.0.1:{getattr(r, attr)} port {r.http_port}"
                for r in replicas
            ]
            continue
        out.append(line)
    return "\n".join(out) + "\n"


@contextlib.contextmanager
def haproxy(replicas: Sequence[Replica], timeout: float = 20.0) -> Iterator[Proxy]:
    """HAProxy in front of ``replicas`` (each started with --http-port); stopped and its
    files removed on exit. Waits until every replica is up in both backends."""
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(binary).exists():
        raise FileNotFoundError("haproxy is not installed: make proxy-deps (Debian's haproxy)")
    if not all(r.http_port for r in replicas):
        raise ValueError("each replica needs --http-port (health checks and Connect)")
    workdir = Path(tempfile.mkdtemp(prefix="stud-haproxy-"))
    try:
        (workdir / "haproxy.cfg").write_text(local_config(replicas))
        port, stats = free_port(), workdir / "stats.sock"
        with (workdir / "haproxy.cfg").open("a") as cfg:
            cfg.write(f"\nglobal\n    stats socket {stats} level operator\n")
        log = workdir / "haproxy.log"
        env = {**os.environ, "STUD_PROXY_BIND": f"127.0.0.1:{port}"}
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [binary, "-db", "-f", str(workdir / "haproxy.cfg")],
                stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            )  # fmt: skip
        proxy = Proxy(proc, port, log, stats)
        try:
            deadline = time.monotonic() + timeout
            while servers_up(stats) < 2 * len(replicas):
                if proc.poll() is not None:
                    raise RuntimeError(f"haproxy exited: {log.read_text()[-2000:]}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"haproxy not up in {timeout}s: {log.read_text()[-2000:]}")
                time.sleep(0.1)
            yield proxy
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def server_states(stats: Path) -> dict[tuple[str, str], str]:
    """(backend, server) -> status (UP, DOWN, ...), from haproxy's stats socket."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(str(stats))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
    except OSError:
        return {}
    states = {}
    for row in data.decode().splitlines()[1:]:
        cols = row.split(",")
        if len(cols) > 17 and cols[1] not in ("FRONTEND", "BACKEND"):
            states[(cols[0], cols[1])] = cols[17]
    return states


def servers_up(stats: Path) -> int:
    return sum(1 for state in server_states(stats).values() if state == "UP")

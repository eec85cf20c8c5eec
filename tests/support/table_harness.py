"""Real ``stud-table`` subprocesses and a real PostgreSQL cluster for tests, on 127.0.0.1
free ports, plus a tiny JSON-over-HTTP helper (bearer tokens in headers, never in URLs)."""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from support.server_harness import free_port

STARTUP_SECONDS = 60.0


class TableServer:
    """A running ``stud-table`` and what it printed."""

    def __init__(self, engine: str, db: str, args: Sequence[str] = (), port: int = 0) -> None:
        self.engine, self.db, self.extra = engine, db, list(args)
        self.lines: list[str] = []
        self.port = 0
        self.metrics_port = 0
        self._start(port)

    def _start(self, port: int) -> None:
        cmd = [sys.executable, "-m", "studclients.table", "--engine", self.engine,
               "--db", self.db, "--port", str(port), *self.extra]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
        env["PYTHONUNBUFFERED"] = "1"
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True,
        )  # fmt: skip
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if line.startswith("stud-table metrics on "):
                    self.metrics_port = int(line.rsplit(":", 1)[1].split("/")[0])
                if line.startswith("stud-table serving "):
                    self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(STARTUP_SECONDS) or not self.port:
            self.stop()
            raise RuntimeError("stud-table did not start:\n" + self.output())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def metric(self, name: str, labels: str = "") -> float:
        """A sample of the ``--metrics-port`` scrape (0 when absent): ``name{labels}``."""
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            text = response.read().decode()
        wanted = f"{name}{{{labels}}}" if labels else name
        for line in text.splitlines():
            key, _, value = line.rpartition(" ")
            if key == wanted:
                return float(value)
        return 0.0

    def output(self) -> str:
        return "\n".join(self.lines)

    def restart(self, sig: int = signal.SIGKILL) -> None:
        """Stops it (by default without a chance to clean up) and starts it again on the
        same port and database."""
        port = self.port
        self.stop(sig)
        self._start(port)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                return self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.wait()


def call(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    raw: bytes | None = None,
) -> tuple[int, Any]:
    """(status, parsed JSON answer)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def join(base: str, name: str, table: str = "main") -> tuple[int, str]:
    """(seat, token) of a new player."""
    status, answer = call(base, "POST", f"/api/tables/{table}/join", {"name": name})
    assert status == 200, answer
    return int(answer["seat"]), str(answer["token"])


def view(base: str, token: str, table: str = "main") -> dict[str, Any]:
    status, answer = call(base, "GET", f"/api/tables/{table}/view", token=token)
    assert status == 200, answer
    return dict(answer)


def wait_for(predicate: Any, timeout: float = 60.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what}")


class Postgres:
    """A throw-away PostgreSQL cluster (Debian's binaries) on a free loopback port, run as
    the ``postgres`` system user when the tests run as root (initdb refuses root)."""

    def __init__(self) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not found:
            raise FileNotFoundError("initdb")
        self.bin = Path(found[-1]).parent
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="stud-pg-"))
        self.data = self.dir / "data"
        self.user = None if os.geteuid() != 0 else "postgres"
        if self.user:
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "stud", "-A", "trust",
                  "--no-sync", "-E", "UTF8")  # fmt: skip
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-w",
            "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off", "start",
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgresql://stud@127.0.0.1:{self.port}/postgres"

    def _run(self, *cmd: str) -> None:
        full = ["runuser", "-u", self.user, "--", *cmd] if self.user else list(cmd)
        subprocess.run(full, check=True, capture_output=True, timeout=120, cwd=self.dir)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

"""The one way to start a ``stud-server`` for a session, a test or a local cluster.

``stud-server`` says it is ready with one JSON log line, ``{"event": "serving", "port": N,
...}`` (with ``--port 0`` the kernel picks N). ``ServerProcess`` runs the server on
127.0.0.1, reads its stdout on a thread (kept as lines, passed to ``on_line``, or only
drained: a server logs one line per call and must never block on a full pipe), and
``wait_serving`` returns that port. ``start_dev_server`` is the ``--dev`` server that
``stud-play`` and ``stud-load`` start when given no target.

The server is a separate program (the ``studengine`` distribution); nothing here imports it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

STARTUP_SECONDS = 60.0


class ServerNotStarted(RuntimeError):
    """The server exited, or did not say it was serving in time."""


def server_command() -> list[str]:
    """``stud-server``: the one beside this interpreter (a venv), else on PATH."""
    beside = Path(sys.executable).parent / "stud-server"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("stud-server")
    if found is None:
        raise ServerNotStarted("stud-server is not installed: install studengine (`make venv`)")
    return [found]


def server_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment without the caller's ``STUD_*`` settings or metrics directory (each
    server gets only what it is given), unbuffered, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("STUD_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


def log_entry(line: str) -> dict[str, Any] | None:
    """One JSON log line as a dict; None for anything else."""
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) else None


def serving_port(line: str) -> int | None:
    """The port of stud-server's ``serving`` line; None for any other line."""
    if '"serving"' not in line:  # cheap test first: most lines are per-call lines
        return None
    entry = log_entry(line)
    if entry is None or entry.get("event") != "serving":
        return None
    return int(entry["port"])


class ServerProcess:
    """A running ``stud-server`` (``args`` after the command) and what it printed.

    ``keep_lines``: keep every stdout line (tests read the logs); else they are drained and
    dropped once the port is known. ``on_line`` sees every line (a local cluster's log
    files). stderr is kept (it is short: start-up errors) unless ``stderr_to_stdout``.
    The server runs in its own session: a Ctrl-C at the terminal reaches only the caller,
    which stops the server itself."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        keep_lines: bool = True,
        on_line: Callable[[str], None] | None = None,
        stderr_to_stdout: bool = False,
    ) -> None:
        self.args = [*server_command(), *args]
        self.proc = subprocess.Popen(
            self.args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr_to_stdout else subprocess.PIPE,
            text=True,
            env=server_env() if env is None else dict(env),
            start_new_session=True,
        )
        self.port = 0
        self.lines: list[str] = []
        self.stderr: list[str] = []
        self._keep = keep_lines
        self._on_line = on_line
        self._changed = threading.Condition()
        self._readers = [threading.Thread(target=self._read_stdout, daemon=True)]
        if not stderr_to_stdout:
            self._readers.append(threading.Thread(target=self._read_stderr, daemon=True))
        for reader in self._readers:
            reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.rstrip("\n")
            if self._on_line is not None:
                self._on_line(line)
            with self._changed:
                if not self.port:  # lines up to "serving" are kept for error messages
                    self.port = serving_port(line) or 0
                    self.lines.append(line)
                    self._changed.notify_all()
                elif self._keep:
                    self.lines.append(line)
                    self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self._changed:
                self.stderr.append(raw.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    # ---- what it said ---------------------------------------------------------------
    def logs(self) -> list[dict[str, Any]]:
        """Every JSON log line kept so far (non-JSON lines left out)."""
        return [entry for line in list(self.lines) if (entry := log_entry(line)) is not None]

    def output(self) -> str:
        return "\n".join([*self.lines, *self.stderr])

    def _ended(self) -> bool:
        return self.proc.poll() is not None and not any(r.is_alive() for r in self._readers)

    def wait_until(
        self, found: Callable[[], Any], what: str, timeout: float = STARTUP_SECONDS
    ) -> Any:
        """Wait (woken by each new line) until ``found()`` is truthy; return it. Raises
        ``ServerNotStarted`` if the server ends first, TimeoutError after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                value = found()
                if value:
                    return value
                if self._ended():
                    raise ServerNotStarted(
                        f"stud-server exited {self.proc.returncode} before {what}:\n{self.output()}"
                    )
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"stud-server: no {what} in {timeout}s:\n{self.output()}")
                self._changed.wait(min(left, 0.5))

    def wait_for_log(self, event: str, timeout: float = STARTUP_SECONDS) -> dict[str, Any]:
        """The first log line whose ``event`` is ``event`` (kept lines only)."""

        def first() -> dict[str, Any] | None:
            return next((e for e in self.logs() if e.get("event") == event), None)

        result: dict[str, Any] = self.wait_until(first, f"{event!r} log line", timeout)
        return result

    def wait_serving(self, timeout: float = STARTUP_SECONDS) -> int:
        """The port, once the server's ``serving`` line says it."""
        port: int = self.wait_until(lambda: self.port, "'serving' log line", timeout)
        return port

    # ---- where it is ------------------------------------------------------------------
    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

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

    # ---- stopping it --------------------------------------------------------------------
    def signal(self, sig: int = signal.SIGTERM) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        for reader in self._readers:
            reader.join(5)
        return code

    def stop(self, timeout: float = 60.0) -> int:
        """SIGTERM and wait for the drain; kill the whole session if it hangs. The exit code."""
        self.signal(signal.SIGTERM)
        try:
            return self.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.wait(10)


def start_dev_server(
    workers: int = 1, args: Sequence[str] = (), timeout: float = STARTUP_SECONDS
) -> ServerProcess:
    """``stud-server --dev`` (an ephemeral key) on a free 127.0.0.1 port, no metrics
    endpoint, once it serves. Its log lines are drained, not kept."""
    server = ServerProcess(
        [
            "--dev",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--metrics-port",
            "0",
            "--workers",
            str(workers),
            *args,
        ],
        keep_lines=False,
    )
    try:
        server.wait_serving(timeout)
    except TimeoutError as error:
        server.stop(20)
        raise ServerNotStarted(str(error)) from None
    except BaseException:
        server.stop(20)
        raise
    return server

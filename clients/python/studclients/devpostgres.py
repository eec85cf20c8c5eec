"""A throw-away PostgreSQL cluster (Debian's binaries) on a free loopback port, for tests
and benchmarks: initdb, start, stop and remove. Run as the ``postgres`` system user when
the caller is root (initdb refuses root)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Postgres:
    """A throw-away PostgreSQL cluster (Debian's binaries) on a free loopback port, run as
    the ``postgres`` system user when the tests run as root (initdb refuses root)."""

    def __init__(self, settings: Mapping[str, str] | None = None) -> None:
        """``settings``: server settings (``-c name=value``) beyond the defaults."""
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
        extra = "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.dir / "log"), "-w",
            "-o", f"-h 127.0.0.1 -p {self.port} -k {self.dir} -c fsync=off{extra}", "start",
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

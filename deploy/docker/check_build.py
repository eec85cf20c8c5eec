"""Check the image's build and start-up without a Docker engine (`make image-check`).

Runs the Dockerfile's own build-stage RUN commands (all but apt-get: the C compiler is
already here) in a fresh venv, on a copy of exactly the files .dockerignore lets into
the build context; installs the wheels offline as the runtime stage does, and checks
that every package installed is at the version the lock (requirements/ci.txt) pins; starts
`stud-server` with the runtime stage's ENV (host and ports moved to free loopback ones)
as UID 10001 when run as root; runs the HEALTHCHECK command; stops it with SIGTERM.
Needs PyPI (the build stage downloads wheels). Exit 0 when every step passed.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = Path(__file__).resolve().parent / "Dockerfile"
LOCK = REPO / "requirements" / "ci.txt"
UID = 10001
# the build stage's folders of wheels: the lock's, and the ones the runtime installs
BUILD_DIRS = ("/lock", "/wheels")


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def stages() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    ins = instructions()
    starts = [i for i, (word, _) in enumerate(ins) if word == "FROM"]
    return ins[starts[0] : starts[1]], ins[starts[1] :]


def ignore_patterns() -> list[str]:
    lines = (REPO / ".dockerignore").read_text().splitlines()
    return [s.strip() for s in lines if s.strip() and not s.strip().startswith("#")]


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore rules (last match wins, ``!`` re-includes), as used here."""
    result = False
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = (pattern[1:] if negate else pattern).rstrip("/")
        if pat.startswith("**/"):
            hit = any(fnmatch.fnmatch(p, pat[3:]) for p in parts)
        else:
            hit = any(fnmatch.fnmatch(p, pat) for p in prefixes)
        if hit:
            result = not negate
    return result


def context_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    patterns = ignore_patterns()
    return [p for p in listed if (REPO / p).is_file() and not ignored(p, patterns)]


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_pins(text: str) -> dict[str, str]:
    """The lock's ``name==version`` pins, by normalized name."""
    return {_normalized(n): v for n, v in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)}


def wheel_versions(names: Iterable[str]) -> dict[str, str]:
    """Each wheel file's project and version (``grpcio-1.85.3-cp311-...whl``)."""
    return {_normalized(n.split("-")[0]): n.split("-")[1] for n in names}


def off_the_lock(installed: dict[str, str], pins: dict[str, str]) -> list[str]:
    """The packages (but ours) whose version is not the lock's."""
    return sorted(
        f"{name} {version} (lock: {pins.get(name, 'not in the lock')})"
        for name, version in installed.items()
        if not name.startswith("studengine") and pins.get(name) != version
    )


def _python() -> str:
    """An interpreter UID 10001 can run (a venv's may live under /root)."""
    for candidate in ("/usr/local/bin/python3.11", "/usr/bin/python3.11"):
        if Path(candidate).exists():
            return candidate
    return sys.executable


def _step(title: str, cmd: list[str] | str, **kwargs: object) -> None:
    print(f"== {title}", flush=True)
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if out.returncode != 0:
        print(out.stdout[-3000:], out.stderr[-3000:], sep="\n")
        raise SystemExit(f"FAILED: {title} (exit {out.returncode})")
    print(f"   ok in {time.monotonic() - t0:.1f}s", flush=True)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main() -> int:
    build, runtime = stages()
    python = _python()
    root = Path(tempfile.mkdtemp(prefix="stud-image-check-"))
    os.chmod(root, 0o755)
    try:
        src, wheels = root / "src", root / "wheels"
        files = context_files()
        for rel in files:
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, src / rel)
        print(f"build context: {len(files)} files", flush=True)
        _step("build venv", [python, "-m", "venv", str(root / "build-venv")])
        env = {**os.environ, "PATH": f"{root / 'build-venv' / 'bin'}:{os.environ['PATH']}"}
        env.pop("VIRTUAL_ENV", None)
        for word, arg in build:
            if word == "RUN" and "apt-get" not in arg:
                command = arg
                for folder in BUILD_DIRS:
                    command = command.replace(folder, str(root / folder.lstrip("/")))
                _step(
                    f"RUN {arg[:70]}",
                    ["bash", "-o", "pipefail", "-c", command],
                    cwd=src,
                    env=env,
                )
        print("wheels: " + ", ".join(sorted(p.name for p in wheels.glob("*.whl"))), flush=True)
        _step("runtime venv", [python, "-m", "venv", str(root / "venv")])
        install = next(arg for word, arg in runtime if word == "RUN" and "pip install" in arg)
        pip = install.split("&&")[0]
        pip = re.sub(r"--mount=\S+\s*", "", pip).replace("/wheels", str(wheels))
        pip = pip.replace("python -m pip", f"{root / 'venv' / 'bin' / 'python'} -m pip")
        _step("runtime pip install (offline)", ["bash", "-c", pip])
        shipped = wheel_versions(p.name for p in wheels.glob("*.whl"))
        stray = off_the_lock(shipped, lock_pins(LOCK.read_text()))
        if stray:
            raise SystemExit("FAILED: the image's wheels are off the lock: " + ", ".join(stray))
        print(f"   {len(shipped)} wheels for the runtime, each at the lock's version", flush=True)
        # Start it as the image would, with the image's ENV, on loopback and free ports.
        image_env: dict[str, str] = {}
        for word, arg in runtime:
            if word == "ENV":
                image_env.update(dict(re.findall(r"(\w+)=(\S+)", arg)))
        metrics_dir = root / "run" / "metrics"
        metrics_dir.mkdir(parents=True)
        image_env.update(
            STUD_HOST="127.0.0.1",
            STUD_PORT="0",
            STUD_METRICS_PORT=str(_free_port()),
            STUD_WORKERS="2",
            PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
            PATH="/usr/bin:/bin",
        )
        keygen = root / "venv" / "bin" / "stud-keygen"
        key = subprocess.run([str(keygen), "--new"], capture_output=True, text=True, check=True)
        image_env["STUD_SEALING_KEYS"] = key.stdout.strip()
        entry = json.loads(next(arg for word, arg in runtime if word == "ENTRYPOINT"))
        cmd = [str(root / "venv" / "bin" / entry[0]), *entry[1:]]
        if os.geteuid() == 0:
            for path in (root / "run", metrics_dir):
                os.chown(path, UID, UID)
            cmd = ["setpriv", f"--reuid={UID}", f"--regid={UID}", "--clear-groups", *cmd]
        print(
            "== start: "
            + " ".join(cmd[-1:])
            + f" as uid {UID if os.geteuid() == 0 else os.geteuid()}",
            flush=True,
        )
        log = (root / "server.log").open("w+")
        proc = subprocess.Popen(
            cmd, env=image_env, cwd=root / "run", stdout=log, stderr=subprocess.STDOUT
        )
        try:
            port = 0
            deadline = time.monotonic() + 60
            while not port and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.2)
                for line in (root / "server.log").read_text().splitlines():
                    if '"serving"' in line:
                        port = json.loads(line)["port"]
            if not port:
                print((root / "server.log").read_text()[-3000:])
                raise SystemExit("FAILED: the server did not start")
            health = next(arg for word, arg in runtime if word == "HEALTHCHECK")
            probe = json.loads(health[health.index("CMD") + 3 :].strip())
            probe[0] = str(root / "venv" / "bin" / probe[0])
            time.sleep(1)
            _step("HEALTHCHECK", probe, env={**image_env, "STUD_PORT": str(port)})
            written = sorted(p.name for p in metrics_dir.iterdir())
            print(f"   metrics files in PROMETHEUS_MULTIPROC_DIR: {len(written)}", flush=True)
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(30)
            log.close()
        print(f"== SIGTERM: exit code {code}", flush=True)
        if code != 0:
            raise SystemExit("FAILED: unclean shutdown")
        print("image check passed")
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""The container image: hadolint-clean (stud-table's too), builds from what .dockerignore
lets in, and its HEALTHCHECK really probes a server (run here against a live stud-server).

No Docker engine runs on this machine, so the image itself is not built by the tests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib

import pytest
from support.deploy_support import DEPLOY, localcluster, run, venv_tool
from support.paths import REPO

DOCKERFILE = DEPLOY / "docker" / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    result = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


@pytest.mark.parametrize("name", ["Dockerfile", "Dockerfile.table", "Dockerfile.proxy"])
def test_hadolint_clean(name: str) -> None:
    hadolint = venv_tool("hadolint")
    out = run([hadolint, "--failure-threshold", "style", str(DEPLOY / "docker" / name)])
    assert out.returncode == 0, out.stdout + out.stderr


def test_multi_stage_non_root_and_exposed_ports() -> None:
    ins = _instructions()
    froms = [arg for word, arg in ins if word == "FROM"]
    assert len(froms) == 2 and " AS build" in froms[0] and " AS runtime" in froms[1]
    starts = [i for i, (word, _) in enumerate(ins) if word == "FROM"]
    runtime = ins[starts[1] :]
    users = [arg for word, arg in runtime if word == "USER"]
    assert users and re.fullmatch(r"[1-9][0-9]*(:[0-9]+)?", users[-1]), users
    assert ("EXPOSE", "50051 8080 9464") in runtime
    entry = json.loads(next(arg for word, arg in runtime if word == "ENTRYPOINT"))
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    assert entry[0] in scripts, f"{entry[0]} is not a console script of the package"
    # The build stage generates the protobuf code and builds a wheel.
    build_runs = " ".join(arg for word, arg in ins[: len(ins) - len(runtime)] if word == "RUN")
    assert "proto/generate.py" in build_runs and "pip wheel" in build_runs


def _ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore semantics, from the image check script (deploy/docker/check_build.py)."""
    docker_dir = str(DEPLOY / "docker")
    if docker_dir not in sys.path:
        sys.path.insert(0, docker_dir)
    import check_build

    result: bool = check_build.ignored(path, patterns)
    return result


def test_build_context_has_what_the_wheel_needs() -> None:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    needed = [
        "pyproject.toml",
        project["readme"],
        "proto/generate.py",
        "service/studengine/cards.py",
    ]
    needed += [
        str(p.relative_to(REPO))
        for p in (REPO / "proto").rglob("*.proto")
        if "node_modules" not in p.parts
    ]
    if (REPO / "setup.py").exists():
        needed.append("setup.py")
    needed += ["proto/python/pyproject.toml", "proto/python/setup.py", "requirements/ci.txt"]
    for path in needed:
        assert not _ignored(path, patterns), f"{path} is left out of the build context"
    for path in (
        ".venv/bin/python",
        ".git/HEAD",
        "tests/conftest.py",
        "service/studengine/state/_gen/__init__.py",
        "proto/python/stud_api/__init__.py",
        "benchmarks/rpc.py",
        "clients/python/studclients/play.py",
        "proto/node_modules/x/y.js",
        "service/studengine/__pycache__/cards.cpython-311.pyc",
        "requirements/ci.in",
    ):
        assert _ignored(path, patterns), f"{path} would be sent to the build"


def _build_runs(dockerfile: str) -> list[str]:
    """The build stage's RUN commands of ``deploy/docker/<dockerfile>``."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "docker" / dockerfile).read_text())
    lines = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    runtime = next(
        i for i, line in enumerate(lines) if line.startswith("FROM") and "runtime" in line
    )
    return [line[4:] for line in lines[:runtime] if line.startswith("RUN ")]


@pytest.mark.parametrize("dockerfile", ["Dockerfile", "Dockerfile.table"])
def test_the_images_are_built_from_the_lock(dockerfile: str) -> None:
    """Every third-party package of an image is the lock's: the build stage fetches the
    lock's wheels with their hashes checked (as CI installs), builds with the tools among
    them, and gathers the runtime's wheels from those alone (no index)."""
    runs = " && ".join(_build_runs(dockerfile)).split("&&")
    steps = [" ".join(step.split()) for step in runs]
    fetch = next(s for s in steps if "-r requirements/ci.txt" in s)
    assert "--require-hashes" in fetch and "--no-deps" in fetch and "--wheel-dir /lock" in fetch
    tools = next(s for s in steps if "pip install" in s)
    assert "--no-index --find-links=/lock" in tools and "grpcio-tools" in tools
    build = next(s for s in steps if "pip wheel" in s and "requirements" not in s)
    assert "--no-index --find-links=/lock" in build and "--no-build-isolation" in build
    assert "--wheel-dir /wheels" in build
    ranged = [s for s in steps if "pip" in s and re.search(r"[<>]=?\d", s)]
    assert not ranged, f"a package by a version range, not from the lock: {ranged}"


def _healthcheck_command() -> list[str]:
    arg = next(arg for word, arg in _instructions() if word == "HEALTHCHECK")
    command: list[str] = json.loads(arg[arg.index("CMD") + 3 :].strip())
    return command


def _probe(port: int) -> subprocess.CompletedProcess[bytes]:
    """Run the image's HEALTHCHECK command (its python -c) against 127.0.0.1:port."""
    command = _healthcheck_command()
    assert command[0] == "python" and command[1] == "-c"
    env = {**os.environ, "STUD_PORT": str(port)}
    return subprocess.run(
        [sys.executable, *command[1:]], env=env, capture_output=True, timeout=30, check=False
    )


def test_healthcheck_probes_a_live_server() -> None:
    lc = localcluster()
    with lc.replicas(1, lc.new_key_spec(), workers=1) as (replica,):
        ok = _probe(replica.port)
        assert ok.returncode == 0, ok.stderr
    # The same port with the server gone: the probe fails.
    gone = _probe(replica.port)
    assert gone.returncode != 0

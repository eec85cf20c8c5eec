"""The three wheels install as declared: built from a clean copy of the sources (as a
fresh clone builds them: the generated code comes from the pinned grpcio-tools of the
build requirements), installed into a fresh venv with every dependency at the LOWEST
version each distribution declares (a constraints file of the ``>=`` floors; what those
floors pull in comes at its newest), then the server starts from that venv and plays a
hand with the clients' package from that venv, and stud-load (the clients without their
``[table]`` extra: the engine client and the service config the API package ships) plays
hands against it; stud-table there says how to install the extra it lacks.

Needs the package index (uv fetches the floors and the build requirements): outside CI
it skips when the index cannot be reached; bounded by timeouts on every step.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version
from support.paths import IN_CI, REPO
from support.server_harness import new_key_spec

DISTRIBUTIONS = (REPO / "proto" / "python", REPO, REPO / "clients" / "python")
OURS = {"studengine", "studengine-api", "studengine-clients"}
STEP_SECONDS = 600

PLAY = """
import sys, grpc
from stud_api.stud.v1 import stud_engine_pb2 as pb, stud_engine_pb2_grpc as pb_grpc
stub = pb_grpc.StudEngineServiceStub(grpc.insecure_channel(sys.argv[1]))
hand = stub.StartHand(pb.StartHandRequest(
    variant=pb.VARIANT_SEVEN_CARD_STUD, table=pb.Table(ante=5, bring_in=10, small_bet=20,
    big_bet=40), players=[pb.Player(id=f"p{i}", stack=1000) for i in range(3)]),
    timeout=30).hand
while not hand.over:
    legal = [a for a in hand.legal_actions if a.type != pb.ACTION_TYPE_FOLD]
    move = legal[0]
    request = pb.ActRequest(state=hand.state, seat=hand.to_act, action=move.type,
                            expected_seq=hand.seq)
    if move.HasField("to"):
        request.to = move.to
    hand = stub.Act(request, timeout=30).hand
assert sum(hand.result.stacks) == 3000, hand.result
print("played", hand.seq, "actions")
"""


def uv() -> str:
    found = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    if not Path(found).exists():
        pytest.fail("uv is not installed: it is in the dev extra (`make venv`)")
    return found


def run(*cmd: str, cwd: Path | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=STEP_SECONDS, check=False
    )
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def require_index(tmp: Path) -> None:
    """Skip (fail under CI) when the package index cannot be reached."""
    (tmp / "probe.in").write_text("packaging\n")
    proc = subprocess.run(
        [uv(), "pip", "compile", "--no-cache", "--python-version", "3.11", str(tmp / "probe.in")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        message = f"the package index cannot be reached (uv: {proc.stderr.strip()[-300:]})"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message + "; this test installs the lowest declared versions from it")


def clean_copy(dest: Path) -> None:
    """The repository's files as a fresh clone has them (no generated code, no builds)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO, capture_output=True, check=True, timeout=60,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file() and not name.startswith(("clients/node/", "deploy/", "tests/")):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def floors(wheels: list[Path]) -> list[str]:
    """``name==X`` for every ``name>=X`` the wheels require (their runtime dependencies);
    where two wheels declare different floors, the higher one (the one an install honours)."""
    pins: dict[str, Version] = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            meta = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            lines = archive.read(meta).decode().splitlines()
        for line in lines:
            if not line.startswith("Requires-Dist:"):
                continue
            req = Requirement(line.partition(":")[2].strip())
            if req.marker is not None and "extra" in str(req.marker):
                continue
            if req.name in OURS:
                continue
            lows = [s.version for s in req.specifier if s.operator == ">="]
            assert lows, f"{wheel.name}: {req} has no lower bound"
            pins[req.name] = max(Version(lows[0]), pins.get(req.name, Version("0")))
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


@pytest.mark.timeout(1800)
def test_wheels_install_and_serve_with_the_lowest_declared_versions(tmp_path: Path) -> None:
    require_index(tmp_path)
    source = tmp_path / "src"
    clean_copy(source)
    dist = tmp_path / "dist"
    for distribution in DISTRIBUTIONS:
        where = source / distribution.relative_to(REPO)
        run(uv(), "build", "--wheel", "--no-cache", "--out-dir", str(dist), str(where))
    wheels = sorted(dist.glob("*.whl"))
    assert len(wheels) == 3, wheels
    constraints = tmp_path / "floors.txt"
    pinned = floors(wheels)
    constraints.write_text("\n".join(pinned) + "\n")
    venv = tmp_path / "venv"
    run(uv(), "venv", "--python", sys.executable, str(venv))
    python = str(venv / "bin" / "python")
    run(uv(), "pip", "install", "--no-cache", "--python", python, "-c", str(constraints),
        *map(str, wheels))  # fmt: skip
    installed = run(uv(), "pip", "freeze", "--python", python).lower()
    for pin in pinned:
        assert pin.lower() in installed, f"{pin} not installed:\n{installed}"

    key_file = tmp_path / "keys.txt"
    key_file.write_text(new_key_spec() + "\n")
    from studclients.devserver import server_env, serving_port

    version = run(str(venv / "bin" / "stud-server"), "--version")
    assert version.startswith("stud-server 0.1.0"), version
    floor = dict(pin.split("==") for pin in pinned)
    assert f"grpc {floor['grpcio']}" in version and f"protobuf {floor['protobuf']}" in version
    # the wheel's compiled engine runs on the lowest librt it declares (compiled.choose)
    assert version.rstrip().endswith("engine mypyc)"), version
    server = subprocess.Popen(
        [str(venv / "bin" / "stud-server"), "--host", "127.0.0.1", "--port", "0",
         "--metrics-port", "0", "--key-file", str(key_file)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=server_env(),
    )  # fmt: skip
    try:
        assert server.stdout is not None
        lines = []
        port = None
        while port is None:
            line = server.stdout.readline()  # the server exits (EOF) if it cannot start
            assert line, "stud-server ended:\n" + "".join(lines)
            lines.append(line)
            port = serving_port(line)
        out = run(python, "-c", PLAY, f"127.0.0.1:{port}", cwd=tmp_path)
        assert out.startswith("played"), out
        load = [str(venv / "bin" / "stud-load"), "--target", f"127.0.0.1:{port}"]
        out = run(*load, "--hands", "4", "--tables", "2", "--quiet", cwd=tmp_path)
        assert "chips conserved 4" in out, out
    finally:
        server.terminate()
        server.communicate(timeout=60)
    assert server.returncode == 0, "".join(lines)
    table = subprocess.run(
        [str(venv / "bin" / "stud-table"), "--target", "127.0.0.1:1"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert table.returncode == 2, table.stderr
    assert "pip install 'studengine-clients[table]'" in table.stderr

"""The protos: buf lint (STANDARD) is clean, and proto/generate.py writes a package whose
imports are package-relative (``studengine.gen.stud...``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from studengine.gen.stud.v1 import stud_engine_pb2 as pb
from support.paths import IN_CI, REPO

BUF = REPO / "proto" / "node_modules" / ".bin" / "buf"


def test_buf_lint_is_clean() -> None:
    if not BUF.exists():
        message = "buf is not installed: run `make buf-lint` (npm ci in proto/)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    done = subprocess.run(
        [str(BUF), "lint"], cwd=REPO / "proto", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_generate_writes_a_package_with_relative_imports(tmp_path: Path) -> None:
    out = tmp_path / "gen"
    subprocess.run(
        [sys.executable, str(REPO / "proto" / "generate.py"), "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    grpc_module = (out / "stud" / "v1" / "stud_engine_pb2_grpc.py").read_text()
    assert "from studengine.gen.stud.v1 import stud_engine_pb2" in grpc_module
    for path in out.rglob("*.py*"):
        assert not re.search(r"^\s*(from|import) stud\.", path.read_text(), re.MULTILINE), path
    for package in ("", "stud", "stud/v1", "stud/internal", "stud/internal/v1"):
        assert (out / package / "__init__.py").exists()


def test_the_service_and_its_methods() -> None:
    service = pb.DESCRIPTOR.services_by_name["StudEngineService"]
    assert service.full_name == "stud.v1.StudEngineService"
    assert [m.name for m in service.methods] == [
        "StartHand",
        "Act",
        "GetView",
        "Evaluate",
        "Equity",
    ]

"""The protos (``make buf-lint`` runs buf lint on them): proto/generate.py writes the public API
(``stud_api``) and the internal state schema (``studengine.state._gen``) apart."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from stud_api.stud.v1 import stud_engine_pb2 as pb
from support.paths import REPO

BUF = REPO / "proto" / "node_modules" / ".bin" / "buf"


def test_generate_writes_packages_with_their_own_imports(tmp_path: Path) -> None:
    """The public API goes to ``stud_api``, the internal state schema to the server's own
    ``studengine.state._gen``; protoc's absolute ``stud.`` imports are rewritten."""
    api, internal, api_keys = tmp_path / "stud_api", tmp_path / "_gen", tmp_path / "api_gen"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "proto" / "generate.py"),
            "--api-out",
            str(api),
            "--internal-out",
            str(internal),
            "--api-keys-out",
            str(api_keys),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    grpc_module = (api / "stud" / "v1" / "stud_engine_pb2_grpc.py").read_text()
    assert "from stud_api.stud.v1 import stud_engine_pb2" in grpc_module
    assert not (api / "stud" / "internal").exists()
    assert not (internal / "stud" / "v1").exists()
    assert (internal / "stud" / "internal" / "v1" / "state_pb2.py").exists()
    for path in [*api.rglob("*.py*"), *internal.rglob("*.py*")]:
        assert not re.search(r"^\s*(from|import) stud\.", path.read_text(), re.MULTILINE), path
    for package in ("", "stud", "stud/v1"):
        assert (api / package / "__init__.py").exists()
    for package in ("", "stud", "stud/internal", "stud/internal/v1"):
        assert (internal / package / "__init__.py").exists()
    assert (api / "py.typed").exists()
    # the API's field keys alone, for the server: no protobuf module beside them
    assert (api_keys / "stud" / "v1" / "stud_engine_keys.py").exists()
    assert not list(api_keys.rglob("*_pb2*"))


def test_the_service_and_its_methods() -> None:
    service = pb.DESCRIPTOR.services_by_name["StudEngineService"]
    assert service.full_name == "stud.v1.StudEngineService"
    assert [m.name for m in service.methods] == [
        "StartHand",
        "Act",
        "GetView",
        "Evaluate",
        "Equity",
        "GetHandHistory",
        "CreateDealTicket",
    ]

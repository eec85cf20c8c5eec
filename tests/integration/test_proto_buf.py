"""The public API's buf checks: ``make buf-lint`` (part of ``make lint``) runs buf lint
with the COMMENTS rules and buf breaking against the newest release's image, and fails
on a breaking change or an undocumented field. Runs on copies of proto/. Needs buf from
``make buf-lint`` (npm ci in proto/): skips without it, fails under CI=true."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support.paths import IN_CI, REPO, require_tool

PROTO = REPO / "proto"
BUF = PROTO / "node_modules" / ".bin" / "buf"
API = Path("stud") / "v1" / "stud_engine.proto"


def buf() -> Path:
    if not BUF.exists():
        message = "buf is not installed: run `make buf-lint` (npm ci in proto/)"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return BUF


def proto_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "proto"
    shutil.copytree(PROTO, copy, ignore=shutil.ignore_patterns("node_modules"))
    return copy


def buf_lint(proto_dir: Path) -> subprocess.CompletedProcess[str]:
    """``make buf-lint`` exactly as ``make lint`` runs it, on another proto directory."""
    make = require_tool("make", "apt-get install make")
    buf()
    return subprocess.run(
        [make, "-s", "--no-print-directory", "-C", str(REPO), "buf-lint", f"BUF_DIR={proto_dir}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_the_api_as_it_is_passes_lint_and_breaking(tmp_path: Path) -> None:
    proc = buf_lint(proto_copy(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        ("int64 bring_in = 2;", "int64 bring_in = 12;", 'field "2" with name "bring_in"'),
        (
            "  rpc Equity(EquityRequest) returns (EquityResponse);\n",
            "",
            'RPC "Equity" on service "StudEngineService" was deleted',
        ),
        ("string hand_id = 1;", "string hand = 1;", 'changed name from "hand_id" to "hand"'),
    ],
    ids=["field-number", "rpc-removed", "field-renamed"],
)
def test_a_breaking_change_fails_buf_breaking(
    tmp_path: Path, old: str, new: str, complaint: str
) -> None:
    copy = proto_copy(tmp_path)
    edit(copy / API, old, new)
    proc = buf_lint(copy)
    assert proc.returncode != 0
    assert complaint in proc.stdout + proc.stderr


def test_an_undocumented_field_fails_buf_lint(tmp_path: Path) -> None:
    copy = proto_copy(tmp_path)
    edit(copy / API, "  bool revealed = 12;\n", "  bool revealed = 12;\n  int32 table_no = 99;\n")
    proc = buf_lint(copy)
    assert proc.returncode != 0
    assert 'Field "table_no" should have a non-empty comment' in proc.stdout + proc.stderr


def test_release_image_holds_only_the_public_api_and_is_the_makefiles() -> None:
    images = sorted((PROTO / "releases").glob("*.binpb"))
    assert images, "no release image in proto/releases"
    configured = re.search(r"^RELEASE_IMAGE\s*:=\s*(\S+)", (REPO / "Makefile").read_text(), re.M)
    assert configured is not None
    assert (PROTO / configured.group(1)).is_file()
    proc = subprocess.run(
        [str(buf()), "ls-files", str(PROTO / configured.group(1))],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["stud/v1/stud_engine.proto"]


def test_one_off_breaking_exceptions_go_with_the_v0_1_0_baseline() -> None:
    """buf.yaml excuses the language options added after v0.1.0; once the Makefile
    compares against a newer release, the excuses must go."""
    makefile = (REPO / "Makefile").read_text()
    baseline = re.search(r"^RELEASE_IMAGE\s*:=\s*releases/(\S+)\.binpb", makefile, re.M)
    assert baseline is not None
    excused = "FILE_SAME_GO_PACKAGE" in (PROTO / "buf.yaml").read_text()
    assert excused == (baseline.group(1) == "v0.1.0")


def test_generated_clients_get_the_public_api_only() -> None:
    """The sealed-state schema (stud.internal.v1) is never generated for clients."""
    config = (PROTO / "buf.gen.yaml").read_text()
    assert re.search(r"paths:\s*\n\s*- stud/v1\s*\n", config)
    generated = REPO / "clients" / "node" / "src" / "gen"
    if generated.is_dir():
        assert not list(generated.rglob("*internal*"))
        assert {p.name for p in generated.rglob("*.ts")} == {"stud_engine_pb.ts", "errors_pb.ts"}

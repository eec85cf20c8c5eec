"""Every conformance vector in ../shared/conformance, played against the engine in-process
and through the ``stud-conformance`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from studengine.conformance import LocalDriver, play_vector, vector_files
from support.known_failures import check_command_output, vector_params
from support.paths import CONFORMANCE_DIR

VECTORS = vector_files([CONFORMANCE_DIR]) if CONFORMANCE_DIR.is_dir() else []


def test_vectors_are_present() -> None:
    assert len(VECTORS) >= 30, f"conformance vectors not found under {CONFORMANCE_DIR}"


@pytest.mark.parametrize("path", vector_params(VECTORS))
def test_vector_in_process(path: Path) -> None:
    vector = json.loads(path.read_text())
    assert play_vector(vector, LocalDriver()) is None


def test_runner_reports_a_difference(tmp_path: Path) -> None:
    """The runner is not a rubber stamp: a wrong expectation is reported."""
    vector = json.loads((CONFORMANCE_DIR / "5s-worked-example.json").read_text())
    vector["result"]["stacks"][0] += 1
    difference = play_vector(vector, LocalDriver())
    assert difference is not None and difference.startswith("result: stacks")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(vector))
    run = subprocess.run(
        [sys.executable, "-m", "studengine.conformance", str(broken)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1
    assert run.stdout.splitlines()[-1] == "0 passed, 1 failed"


def test_command_plays_every_vector() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "studengine.conformance", str(CONFORMANCE_DIR)],
        capture_output=True,
        text=True,
    )
    check_command_output(run.stdout + run.stderr, len(VECTORS))


def test_runner_checks_tabled_and_reports_what_it_cannot_check() -> None:
    """R-ALL-IN-FACE-UP's ``tabled`` expectation is checked, not passed: a wrong one is a
    difference; an ``expect`` key (or table option) the runner does not know is reported
    before the hand starts, never passed without its check."""
    name = "7s-all-in-face-up-tabled-before-the-deal.json"
    vector = json.loads((CONFORMANCE_DIR / name).read_text())
    last = vector["steps"][-1]["expect"]
    assert last["tabled"] == [0, 1]
    last["tabled"] = [0]
    difference = play_vector(vector, LocalDriver())
    assert difference is not None and "tabled is [0, 1], expected [0]" in difference
    last["tabled"] = [0, 1]
    vector["steps"][0]["expect"]["mucked"] = []
    assert play_vector(vector, LocalDriver()) == "start: unsupported field 'mucked'"
    del vector["steps"][0]["expect"]["mucked"]
    vector["table"]["all_in_face_down"] = True
    assert play_vector(vector, LocalDriver()) == "start: unsupported field 'all_in_face_down'"

"""What the distributions say of themselves: every description names the four games
(the three Python distributions, the TypeScript client, the engine image), and the three
Python distributions declare one Python range, honest about the pinned build tool
(grpcio-tools 1.62.3 has wheels for CPython 3.11 and 3.12, none for 3.13)."""

from __future__ import annotations

import json
import re
import tomllib

import pytest
from packaging.specifiers import SpecifierSet
from support.paths import REPO

GAMES = ("Five Card Stud", "Seven Card Stud", "Razz", "Seven Card Stud Hi-Lo")
PYPROJECTS = ("pyproject.toml", "proto/python/pyproject.toml", "clients/python/pyproject.toml")
# the CPython versions grpcio-tools 1.62.3 has wheels for (pip download --only-binary)
PINNED_TOOLS_PYTHONS = {"1.62.3": ("3.11", "3.12")}


def descriptions() -> dict[str, str]:
    found = {p: tomllib.loads((REPO / p).read_text())["project"]["description"] for p in PYPROJECTS}
    found["clients/node/package.json"] = json.loads(
        (REPO / "clients/node/package.json").read_text()
    )["description"]
    dockerfile = (REPO / "deploy/docker/Dockerfile").read_text()
    label = re.search(r'org\.opencontainers\.image\.description="([^"]*)"', dockerfile)
    assert label, "the engine image has no description label"
    found["deploy/docker/Dockerfile"] = label.group(1)
    return found


@pytest.mark.parametrize(
    "where", [*PYPROJECTS, "clients/node/package.json", "deploy/docker/Dockerfile"]
)
def test_every_description_names_the_four_games(where: str) -> None:
    text = descriptions()[where]
    missing = [game for game in GAMES if game not in text]
    assert not missing, f"{where}: {text!r} does not name {missing}"
    assert "Five and Seven" not in text  # the old two-game wording


def test_the_python_range_is_one_and_fits_the_pinned_grpcio_tools() -> None:
    projects = {p: tomllib.loads((REPO / p).read_text()) for p in PYPROJECTS}
    ranges = {p: data["project"]["requires-python"] for p, data in projects.items()}
    assert len(set(ranges.values())) == 1, ranges
    allowed = SpecifierSet(next(iter(ranges.values())))
    for path, data in projects.items():
        for requirement in data["build-system"]["requires"]:
            name, _, version = requirement.partition("==")
            if name == "grpcio-tools" and version:
                wheels = PINNED_TOOLS_PYTHONS[version]  # a new pin: check its wheels first
                for minor in range(11, 16):
                    python = f"3.{minor}"
                    assert (python in allowed) == (python in wheels), (path, python, allowed)

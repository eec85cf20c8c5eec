"""README's "What is where" table matches the tree: every path it names exists, and every
package, top-level folder and test tier is named in it."""

from __future__ import annotations

import re

from support.paths import REPO


def table_paths() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## What is where", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE)


def test_every_path_in_the_table_exists() -> None:
    paths = table_paths()
    assert len(paths) > 10
    for path in paths:
        assert (REPO / path).exists(), path


def test_every_package_folder_and_tier_is_in_the_table() -> None:
    listed = {path.rstrip("/") for path in table_paths()}
    packages = [
        f"service/studengine/{p.name}"
        for p in (REPO / "service" / "studengine").iterdir()
        if p.is_dir() and (p / "__init__.py").exists()
    ]
    tiers = [
        f"tests/{p.name}" for p in (REPO / "tests").iterdir() if p.is_dir() and p.name[0] != "_"
    ]
    clients = [f"clients/{p.name}" for p in (REPO / "clients").iterdir() if p.is_dir()]
    tops = ["proto", "proto/python", "benchmarks", "deploy", "requirements"]
    missing = [p for p in [*packages, *tiers, *clients, *tops] if p not in listed]
    assert not missing, f"not in README's What is where: {missing}"

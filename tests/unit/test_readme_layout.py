"""The README and the docs stay short, linked and true: README's "What is where" table
matches the tree (every path it names exists; every package, top-level folder and test
tier is named in it), README.md is at most 300 lines and links every ``docs/`` page, and
every relative link in README.md, CHANGELOG.md, clients/README.md and ``docs/*.md``
points at a file (and heading) that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.paths import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
README_MAX_LINES = 300
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def table_paths() -> list[str]:
    text = README.read_text()
    section = text.split("## What is where", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \|", section, re.MULTILINE)


def prose_lines(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks (a ``# comment`` there is no heading)."""
    lines, fenced = [], False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def anchors(path: Path) -> set[str]:
    """GitHub's anchors for the file's headings: lower case, punctuation dropped, spaces
    as hyphens (``## States, `seq` and compare-and-set`` -> ``states-seq-and-compare-and-set``)."""
    slugs = set()
    for line in prose_lines(path):
        heading = re.match(r"#{1,6} +(.+?) *#*$", line)
        if heading:
            text = re.sub(r"[^\w\- ]", "", heading.group(1).lower())
            slugs.add(text.replace(" ", "-"))
    return slugs


def relative_links(path: Path) -> list[str]:
    links = [m for line in prose_lines(path) for m in LINK.findall(line)]
    return [link for link in links if not re.match(r"[a-z][a-z0-9+.-]*:", link)]


def documents() -> list[Path]:
    others = [REPO / "CHANGELOG.md", REPO / "clients" / "README.md"]
    return [README, *others, *sorted(DOCS.glob("*.md"))]


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
    tops = ["proto", "proto/python", "benchmarks", "deploy", "requirements", "docs"]
    missing = [p for p in [*packages, *tiers, *clients, *tops] if p not in listed]
    assert not missing, f"not in README's What is where: {missing}"


def test_the_readme_is_short() -> None:
    lines = len(README.read_text().splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines; move details to docs/"


def test_every_docs_page_is_linked_from_the_readme() -> None:
    pages = sorted(DOCS.glob("*.md"))
    assert len(pages) >= 9
    linked = {(REPO / link.split("#", 1)[0]).resolve() for link in relative_links(README)}
    unlinked = [p.name for p in pages if p.resolve() not in linked]
    assert not unlinked, f"docs pages README.md does not link: {unlinked}"


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_at_something_that_exists(document: Path) -> None:
    broken = []
    for link in relative_links(document):
        target, _, anchor = link.partition("#")
        path = (document.parent / target).resolve() if target else document
        if not path.exists():
            broken.append(f"{link}: no {path.relative_to(REPO.resolve())}")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{link}: no heading #{anchor} in {path.name}")
    assert not broken, f"{document.name}: {broken}"


def test_the_changelog_opens_with_unreleased() -> None:
    headings = re.findall(r"^## (.+)$", (REPO / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert headings[0] == "Unreleased", headings[:2]

"""deploy/compose/docker-compose.yml, checked without a Docker engine: valid against the Compose
specification's JSON schema (the copy check-jsonschema ships, with its licence), every
file it mounts or builds from exists, ports are published on loopback only, and
Prometheus scrapes the engine's and stud-table's metrics ports, and stud-table's operator
token comes from the operator's environment (never a token in the file). Compose resolves
relative paths against the file's own folder, and so do these checks. Also the stud-table
image's own build context (deploy/docker/Dockerfile.table.dockerignore): the API and the
clients in, the server and everything else out."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from studclients.table import tokens
from support.paths import REPO

COMPOSE = REPO / "deploy" / "compose" / "docker-compose.yml"
HERE = COMPOSE.parent


def compose_schema() -> dict[str, Any]:
    vendor = resources.files("check_jsonschema") / "builtin_schemas" / "vendor"
    assert (vendor / "licenses" / "LICENSE.compose-spec").is_file()
    return dict(json.loads((vendor / "compose-spec.json").read_text()))


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text()))


def test_compose_file_follows_the_compose_specification(compose: dict[str, Any]) -> None:
    schema = compose_schema()
    jsonschema.validators.validator_for(schema)(schema).validate(compose)
    assert set(compose["services"]) == {
        "engine",
        "keygen",
        "proxy",
        "table",
        "prometheus",
        "grafana",
    }


def test_a_broken_compose_file_is_caught() -> None:
    schema = compose_schema()
    broken = {"services": {"engine": {"image": "x", "depends_on": 5}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validators.validator_for(schema)(schema).validate(broken)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validators.validator_for(schema)(schema).validate(
            {"services": {"e": {"imag": "x"}}}
        )


def test_what_it_builds_from_and_mounts_exists(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        build = service.get("build")
        if build:
            context = (HERE / build["context"]).resolve()
            assert context == REPO, f"{name} builds from {context}, not the repository root"
            assert (context / build["dockerfile"]).is_file(), name
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (HERE / source).exists(), f"{name} mounts missing {source}"
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"


def test_prometheus_scrapes_the_engine_and_grafana_gets_the_dashboard(
    compose: dict[str, Any],
) -> None:
    config = yaml.safe_load((HERE / "prometheus.yml").read_text())
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert jobs["stud-engine"]["dns_sd_configs"] == [  # every replica
        {"names": ["engine"], "type": "A", "port": 9464}
    ]
    assert [t for s in jobs["stud-table"]["static_configs"] for t in s["targets"]] == ["table:9465"]
    dashboards = Path(REPO / "deploy/grafana")
    assert (dashboards / "stud-engine.json").is_file()
    mounts = {
        target: (HERE / source).resolve()
        for source, target, *_ in (v.split(":") for v in compose["services"]["grafana"]["volumes"])
    }
    assert mounts["/var/lib/grafana/dashboards"] == dashboards
    table = compose["services"]["table"]
    assert "--target=engine:50051" in table["command"]
    assert "--metrics-port=9465" in table["command"]  # the stud-table job's target


def test_the_proxy_fronts_every_engine_replica(compose: dict[str, Any]) -> None:
    """The proxy's config (deploy/haproxy/haproxy.cfg, the image's only file) has a server
    slot per engine replica in each backend, by the engine's service name and ports."""
    config = (REPO / "deploy" / "haproxy" / "haproxy.cfg").read_text()
    slots = re.findall(r"^\s*server-template engine (\d+) engine:(\d+)", config, re.MULTILINE)
    replicas = compose["services"]["engine"]["deploy"]["replicas"]
    assert sorted(port for _, port in slots) == ["50051", "8080"]
    assert all(int(count) >= replicas for count, _ in slots), (slots, replicas)
    ignore = (REPO / "deploy" / "docker" / "Dockerfile.proxy.dockerignore").read_text()
    assert "!deploy/haproxy/haproxy.cfg" in ignore.splitlines()
    engine = compose["services"]["engine"]
    assert "ports" not in engine  # the proxy's address is the engine's
    # one key for every replica: a state sealed by one opens on another
    assert engine["command"] == ["--key-file=/var/lib/stud-keys/sealing.key"]
    assert engine["depends_on"]["keygen"] == {"condition": "service_completed_successfully"}


def _table_context_ignores(path: str) -> bool:
    """Whether the stud-table image's build leaves ``path`` out (.dockerignore rules as the
    engine image's check script applies them)."""
    docker_dir = str(REPO / "deploy" / "docker")
    if docker_dir not in sys.path:
        sys.path.insert(0, docker_dir)
    import check_build

    lines = (REPO / "deploy" / "docker" / "Dockerfile.table.dockerignore").read_text()
    patterns = [s.strip() for s in lines.splitlines() if s.strip() and not s.startswith("#")]
    return bool(check_build.ignored(path, patterns))


def test_the_table_image_builds_from_the_api_and_the_clients_only() -> None:
    needed = [
        "proto/generate.py",
        "proto/python/pyproject.toml",
        "proto/python/setup.py",
        "clients/python/pyproject.toml",
        "clients/python/studclients/bots.py",
        "clients/python/studclients/table/__main__.py",
        "clients/python/studclients/table/static/table.js",
        "requirements/ci.txt",  # the lock its packages come from
    ]
    needed += [str(p.relative_to(REPO)) for p in (REPO / "proto" / "stud").rglob("*.proto")]
    for path in needed:
        assert not _table_context_ignores(path), f"{path} is left out of the table's build"
    for path in (
        ".venv/bin/python",
        ".git/HEAD",
        "service/studengine/cards.py",
        "tests/conftest.py",
        "proto/python/stud_api/__init__.py",
        "proto/node_modules/x/y.js",
        "clients/node/src/play.ts",
        "clients/python/studclients/__pycache__/bots.cpython-311.pyc",
        "stud-table.db",
        "requirements/ci.in",
    ):
        assert _table_context_ignores(path), f"{path} would be sent to the table's build"


#: A value that looks like a secret written into the file: a long run of token characters.
LITERAL_SECRET = re.compile(r"[A-Za-z0-9_\-+/=]{24,}")


def operator_token_problems(service: dict[str, Any]) -> list[str]:
    """What is wrong with a stud-table service's operator-token setting: it must come from
    the operator's environment (``${STUD_TABLE_OPERATOR_TOKEN...}``, interpolated by
    Compose) or a secret file under /run/secrets, never be written into the file."""
    problems = []
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        environment = dict(e.partition("=")[::2] for e in environment)
    value = environment.get(tokens.OPERATOR_ENV)
    files = [a for a in service.get("command", []) if a.startswith("--operator-token-file")]
    if value is None and not files:
        problems.append("no operator-token setting")
    if value is not None and not re.fullmatch(r"\$\{STUD_TABLE_OPERATOR_TOKEN(:?-)?\}", value):
        problems.append(f"{tokens.OPERATOR_ENV} is not read from the operator's environment")
    for arg in files:
        if not arg.partition("=")[2].startswith("/run/secrets/"):
            problems.append(f"{arg}: not a Compose secret")
    for name, setting in environment.items():
        if "${" not in str(setting) and LITERAL_SECRET.search(str(setting)):
            problems.append(f"{name} holds a literal secret")
    if any(a.startswith("--operator-token=") for a in service.get("command", [])):
        problems.append("a token on the command line")
    return problems


def test_the_operator_token_comes_from_the_operators_environment(
    compose: dict[str, Any],
) -> None:
    table = compose["services"]["table"]
    assert operator_token_problems(table) == []
    # unset, Compose passes an empty value: stud-table starts with the operator API closed
    assert tokens.operator_token(None, {tokens.OPERATOR_ENV: ""}) is None
    token = "x" * tokens.OPERATOR_MIN_CHARS
    assert tokens.operator_token(None, {tokens.OPERATOR_ENV: token}) == tokens.token_hash(token)
    # the operator's .env beside the file (where Compose looks for it) is never committed
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", str(HERE / ".env")], cwd=REPO, check=False
    )
    assert ignored.returncode == 0, "deploy/compose/.env is not git-ignored"


def test_a_committed_operator_token_is_caught() -> None:
    literal = {"command": [], "environment": {tokens.OPERATOR_ENV: "k" * 43}}
    assert operator_token_problems(literal) == [
        f"{tokens.OPERATOR_ENV} is not read from the operator's environment",
        f"{tokens.OPERATOR_ENV} holds a literal secret",
    ]
    assert operator_token_problems({"command": ["--operator-token=abc"]}) == [
        "no operator-token setting",
        "a token on the command line",
    ]
    assert operator_token_problems({"command": ["--operator-token-file=./token"]}) == [
        "--operator-token-file=./token: not a Compose secret"
    ]
    assert operator_token_problems({"command": []}) == ["no operator-token setting"]

"""docker-compose.yml, checked without a Docker engine: valid against the Compose
specification's JSON schema (the copy check-jsonschema ships, with its licence), every
file it mounts or builds from exists, ports are published on loopback only, and
Prometheus scrapes the engine service's metrics port."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from conftest import REPO

COMPOSE = REPO / "docker-compose.yml"


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
    assert set(compose["services"]) == {"engine", "table", "prometheus", "grafana"}


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
            assert (REPO / build["context"] / build["dockerfile"]).is_file(), name
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (REPO / source).exists(), f"{name} mounts missing {source}"
        for port in service.get("ports", []):
            assert str(port).startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"


def test_prometheus_scrapes_the_engine_and_grafana_gets_the_dashboard(
    compose: dict[str, Any],
) -> None:
    config = yaml.safe_load((REPO / "deploy/compose/prometheus.yml").read_text())
    targets = [
        t for job in config["scrape_configs"] for s in job["static_configs"] for t in s["targets"]
    ]
    assert targets == ["engine:9464"]
    dashboards = Path(REPO / "deploy/grafana")
    assert (dashboards / "stud-engine.json").is_file()
    assert (
        "./deploy/grafana:/var/lib/grafana/dashboards:ro"
        in compose["services"]["grafana"]["volumes"]
    )
    table = compose["services"]["table"]
    assert "--engine=engine:50051" in table["command"]

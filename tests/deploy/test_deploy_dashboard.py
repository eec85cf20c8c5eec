"""The Grafana dashboard: valid, and every panel reads metrics that a real stud-server
exports (a live scrape after real game calls, including a finished hand and a refusal)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from support.deploy_support import (
    DEPLOY,
    dashboard_queries,
    localcluster,
    metric_names,
)

BOARD = DEPLOY / "grafana" / "stud-engine.json"


@pytest.fixture(scope="module")
def scraped() -> dict[str, set[frozenset[tuple[str, str]]]]:
    """Sample name -> label sets, scraped from a 2-worker server after real calls."""
    lc = localcluster()
    with lc.replicas(1, lc.new_key_spec(), workers=2) as (replica,):
        played = lc.play_hands(replica.target, 4, bad_states=2)
        assert played.hands_finished == 4 and played.refused == 2
        url = f"http://{replica.metrics_target}/metrics"
        with urllib.request.urlopen(url, timeout=10) as reply:
            text = reply.read().decode()
    samples: dict[str, set[frozenset[tuple[str, str]]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, set()).add(frozenset(sample.labels.items()))
    return samples


def test_dashboard_is_valid_grafana_json() -> None:
    board: dict[str, Any] = json.loads(BOARD.read_text())
    assert board["uid"] and board["title"] and board["schemaVersion"] >= 30
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids))
    for panel in board["panels"]:
        assert set(panel["gridPos"]) == {"x", "y", "w", "h"}
        assert panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        if panel["type"] != "row":
            assert panel["targets"], panel["title"]
            assert [t["refId"] for t in panel["targets"]] == sorted(
                {t["refId"] for t in panel["targets"]}
            )
    titles = " ".join(p["title"].lower() for p in board["panels"])
    for topic in ("method and code", "latency", "variant", "actions", "refusals", "state size"):
        assert topic in titles


def test_metric_name_extraction() -> None:
    expr = (
        'histogram_quantile(0.99, sum by (le, grpc_method) (rate(x_bucket{a="b", c=~"d|e"}'
        "[$__rate_interval]))) / ignoring (grpc_code) group_left sum(y_total) or vector(0)"
    )
    assert metric_names(expr) == {"x_bucket", "y_total"}


def test_every_panel_reads_exported_metrics(
    scraped: dict[str, set[frozenset[tuple[str, str]]]],
) -> None:
    import re

    queries = dashboard_queries()
    assert len(queries) >= 10
    for title, expr in queries:
        names = metric_names(expr)
        assert names, f"{title}: no metric in {expr}"
        for name in names:
            assert name in scraped, (
                f"panel {title!r} reads {name}, which the server does not export"
            )
            # Labels the panel groups or filters by exist on that metric (job/instance
            # come from Prometheus itself).
            wanted = set(re.findall(r"\b(grpc_\w+|variant|action|reason)\s*(?:=|!=|=~|!~)", expr))
            grouped = re.findall(r"by \(([^)]*)\)", expr)
            wanted |= {g.strip() for part in grouped for g in part.split(",")} - {"le"}
            present = {k for labels in scraped[name] for k, _ in labels}
            missing = wanted - present
            assert not missing, f"panel {title!r}: {name} has no label {sorted(missing)}"

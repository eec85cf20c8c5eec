"""The Grafana dashboard: valid, and every panel reads metrics that a real stud-server
exports (a live scrape after real game calls, including a finished hand and a refusal);
the stud-table row's panels (``job="stud-table"``) read what a real stud-table exports
(bots playing hands against a real engine)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
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
TABLE_JOB = 'job="stud-table"'
Samples = dict[str, set[frozenset[tuple[str, str]]]]


def samples_of(text: str) -> Samples:
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, set()).add(frozenset(sample.labels.items()))
    return samples


@pytest.fixture(scope="module")
def scraped() -> dict[str, set[frozenset[tuple[str, str]]]]:
    """Sample name -> label sets, scraped from a 2-worker server after real calls."""
    lc = localcluster()
    with lc.replicas(1, lc.new_key_spec(), workers=2) as (replica,):
        played = lc.play_hands(replica.target, 4, bad_states=2)
        assert played.hands_finished == 4 and played.refused == 2
        url = f"http://{replica.metrics_target}/metrics"
        with urllib.request.urlopen(url, timeout=10) as reply:
            return samples_of(reply.read().decode())


@pytest.fixture
def table_scraped(live_server: Callable[..., Any], tmp_path: Path) -> Samples:
    """A real stud-table's scrape after its bots played a few hands."""
    from support.polling import poll_until
    from support.table_harness import TableServer

    engine = live_server()
    table = TableServer(
        engine.target,
        f"sqlite:///{tmp_path / 'table.db'}",
        ["--bots", "station,station", "--bot-delay", "0", "--pause", "0", "--metrics-port", "0"],
    )
    try:
        poll_until(
            lambda: table.metric("stud_table_moves_total", 'source="bot"') >= 10, "ten bot moves"
        )
        url = f"http://127.0.0.1:{table.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as reply:
            return samples_of(reply.read().decode())
    finally:
        table.stop()


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
    for topic in ("hands dealt", "moves", "compare-and-set", "timeouts", "engine errors",
                  "websockets", "dropped subscribers", "rate limits"):  # fmt: skip
        assert f"table {topic}" in titles or topic in titles, topic


def test_metric_name_extraction() -> None:
    expr = (
        'histogram_quantile(0.99, sum by (le, grpc_method) (rate(x_bucket{a="b", c=~"d|e"}'
        "[$__rate_interval]))) / ignoring (grpc_code) group_left sum(y_total) or vector(0)"
    )
    assert metric_names(expr) == {"x_bucket", "y_total"}


def test_every_panel_reads_exported_metrics(scraped: Samples) -> None:
    queries = [(t, e) for t, e in dashboard_queries() if TABLE_JOB not in e]
    assert len(queries) >= 10
    check_panels(queries, scraped)


def test_every_stud_table_panel_reads_what_stud_table_exports(table_scraped: Samples) -> None:
    queries = [(t, e) for t, e in dashboard_queries() if TABLE_JOB in e]
    assert len(queries) >= 8
    check_panels(queries, table_scraped)


def check_panels(queries: list[tuple[str, str]], scraped: Samples) -> None:
    import re

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

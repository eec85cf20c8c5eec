"""A real Prometheus scraping a live 2-worker stud-server: the calls made are the calls
counted, the dashboard's queries and the recording rules all return data."""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Iterator
from typing import Any

import pytest
from support.deploy_support import PROMETHEUS_HINT, dashboard_queries, localcluster
from support.paths import require_tool
from support.polling import poll_until

GAME = 'grpc_service="stud.v1.StudEngineService"'
WAIT_SECONDS = 60.0
# Prometheus is asked at most four times a second
until = functools.partial(poll_until, timeout=WAIT_SECONDS, interval=0.25)


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[Any, Any, Any]]:
    """(server replica, Prometheus, calls made) with the calls already made."""
    require_tool("prometheus", PROMETHEUS_HINT)
    lc = localcluster()
    with contextlib.ExitStack() as stack:
        (replica,) = stack.enter_context(lc.replicas(1, lc.new_key_spec(), workers=2))
        prom = stack.enter_context(lc.prometheus([replica.metrics_target], scrape_interval="1s"))
        until(lambda: prom.targets_up() == 1, "the server as an up target")
        played = lc.play_hands(replica.target, 5, bad_states=3)
        yield replica, prom, played


def test_handled_total_equals_the_calls_made(stack: tuple[Any, Any, Any]) -> None:
    _, prom, played = stack
    assert played.calls == played.ok + played.refused and played.refused == 3
    expr = f"sum(grpc_server_handled_total{{{GAME}}})"
    until(lambda: prom.scalar(expr) == played.calls, f"{expr} == {played.calls}")
    # Stays there over two more scrapes: nothing else was counted (health checks are
    # another service).
    scraped = f"max(timestamp(grpc_server_handled_total{{{GAME}}}))"
    seen_at = prom.scalar(scraped)
    until(lambda: (prom.scalar(scraped) or 0) >= (seen_at or 0) + 2, "two more scrapes")
    assert prom.scalar(expr) == played.calls
    assert prom.scalar(f"sum(grpc_server_started_total{{{GAME}}})") == played.calls
    refused = f'sum(grpc_server_handled_total{{{GAME},grpc_code="INVALID_ARGUMENT"}})'
    assert prom.scalar(refused) == played.refused
    assert prom.scalar('sum(stud_rejections_total{reason="bad_state"})') == played.refused
    assert prom.scalar("sum(stud_hands_finished_total)") == played.hands_finished


def test_every_dashboard_query_returns_data(stack: tuple[Any, Any, Any]) -> None:
    _, prom, _ = stack
    # the engine's panels; the stud-table row's (job="stud-table") read what a real
    # stud-table exports, in test_deploy_dashboard: this stack runs no stud-table
    engine_panels = [(t, e) for t, e in dashboard_queries() if 'job="stud-table"' not in e]
    assert engine_panels
    for title, expr in engine_panels:
        query = expr.replace("$__rate_interval", "30s").replace("$instance", ".*")
        result = until(lambda q=query: prom.query(q), f"panel {title!r}: {query}")
        assert all(len(r["value"]) == 2 for r in result)


def test_rules_load_and_record(stack: tuple[Any, Any, Any]) -> None:
    _, prom, played = stack
    groups = prom.api("/api/v1/rules")["groups"]
    names = {g["name"] for g in groups}
    assert names == {"stud-engine.rules", "stud-engine.alerts"}
    assert all(r["health"] == "ok" for g in groups for r in g["rules"] if "health" in r)
    result = until(
        lambda: prom.query('stud:grpc_server_handled:rate5m{grpc_method="StartHand"}'),
        "the recording rule's StartHand series",
    )
    assert not math.isnan(float(result[0]["value"][1]))
    # Healthy and busy: no alert fires (StudEngineNoTraffic needs 15 minutes of nothing).
    alerts = prom.api("/api/v1/alerts")["alerts"]
    assert [a for a in alerts if a["state"] == "firing"] == []
    assert played.hands_finished == 5

"""Prometheus files: the scrape config and rules pass promtool, the rule unit tests pass,
and the Kubernetes PrometheusRule carries exactly the same groups."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.deploy_support import K8S, PROM, PROMETHEUS_HINT, find, kustomize, run
from support.paths import require_tool


def _promtool() -> str:
    return require_tool("promtool", PROMETHEUS_HINT)


def test_promtool_check_config(tmp_path: Path) -> None:
    promtool = _promtool()
    # The config as `make cluster` uses it: a copy beside a real file_sd target file.
    for name in ("prometheus.yml", "alerts.yml"):
        shutil.copy(PROM / name, tmp_path / name)
    (tmp_path / "targets").mkdir()
    (tmp_path / "targets" / "stud-engine.json").write_text(
        '[{"targets": ["127.0.0.1:9464"], "labels": {"replica": "0"}}]'
    )
    out = run([promtool, "check", "config", str(tmp_path / "prometheus.yml")])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout + out.stderr


def test_promtool_check_rules() -> None:
    out = run([_promtool(), "check", "rules", str(PROM / "alerts.yml")])
    assert out.returncode == 0, out.stdout + out.stderr


def test_promtool_rule_unit_tests() -> None:
    out = run([_promtool(), "test", "rules", str(PROM / "alerts_test.yml")])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS" in out.stdout + out.stderr


def test_rule_unit_tests_can_fail(tmp_path: Path) -> None:
    """A rule threshold changed under the unit tests makes promtool fail (guards the above)."""
    promtool = _promtool()
    rules = (PROM / "alerts.yml").read_text()
    assert "> 0.2\n        for: 2m" in rules
    (tmp_path / "alerts.yml").write_text(
        rules.replace("> 0.2\n        for: 2m", "> 5\n        for: 2m")
    )
    shutil.copy(PROM / "alerts_test.yml", tmp_path / "alerts_test.yml")
    out = run([promtool, "test", "rules", str(tmp_path / "alerts_test.yml")])
    assert out.returncode != 0
    assert "StudEngineBadStateBurst" in out.stdout + out.stderr


def test_every_alert_has_a_unit_test_and_a_runbook_entry() -> None:
    rules = yaml.safe_load((PROM / "alerts.yml").read_text())
    alerts = {r["alert"] for g in rules["groups"] for r in g["rules"] if "alert" in r}
    tests = yaml.safe_load((PROM / "alerts_test.yml").read_text())
    tested = {
        case["alertname"]
        for t in tests["tests"]
        for case in t.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert alerts <= tested, f"alerts never seen firing in a unit test: {alerts - tested}"
    guide = (PROM.parent / "README.md").read_text()
    missing = {a for a in alerts if a not in guide}
    assert not missing, f"alerts the operations guide does not explain: {missing}"


def test_prometheusrule_is_generated_from_the_rules_file() -> None:
    out = subprocess.run(
        [sys.executable, str(PROM / "sync_rules.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    rules = yaml.safe_load((PROM / "alerts.yml").read_text())
    committed = yaml.safe_load((K8S / "base" / "prometheusrule.yaml").read_text())
    assert committed["spec"]["groups"] == rules["groups"]
    for overlay in ("dev", "prod"):
        rendered = find(kustomize(overlay), "PrometheusRule")
        assert rendered["spec"]["groups"] == rules["groups"]


def test_prometheusrule_groups_pass_promtool(tmp_path: Path) -> None:
    """The CR's own content checked as a rules file (the CRD's schema is not available)."""
    promtool = _promtool()
    rendered = find(kustomize("prod"), "PrometheusRule")
    path = tmp_path / "from-cr.yml"
    path.write_text(yaml.safe_dump({"groups": rendered["spec"]["groups"]}))
    out = run([promtool, "check", "rules", str(path)])
    assert out.returncode == 0, out.stdout + out.stderr


def test_rules_name_real_codes_reasons_and_the_job() -> None:
    """The label values the rules match are the ones the server and the scrape produce:
    gRPC status names as the interceptor writes them, the rejection reasons the metrics
    module documents, and the job name of both the local config and the ServiceMonitor."""
    import re

    import grpc

    text = (PROM / "alerts.yml").read_text()
    codes = {c for group in re.findall(r'grpc_code=~"([^"]+)"', text) for c in group.split("|")}
    assert codes and codes <= {c.name for c in grpc.StatusCode}
    metrics = pytest.importorskip("studengine.server.metrics")
    documented = set(re.findall(r"\b[a-z_]+\b", metrics.rejected.__doc__ or ""))
    reasons = {r for group in re.findall(r'reason=~?"([^"]+)"', text) for r in group.split("|")}
    assert reasons and reasons <= documented, reasons - documented
    jobs = set(re.findall(r'job="([^"]+)"', text))
    config = yaml.safe_load((PROM / "prometheus.yml").read_text())
    assert jobs == {j["job_name"] for j in config["scrape_configs"]}
    docs = kustomize("prod")
    monitor = find(docs, "ServiceMonitor")["spec"]
    scraped = [
        s
        for s in docs
        if s["kind"] == "Service"
        and monitor["selector"]["matchLabels"].items() <= s["metadata"]["labels"].items()
    ]
    assert {s["metadata"]["labels"][monitor["jobLabel"]] for s in scraped} == jobs

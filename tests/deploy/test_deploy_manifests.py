"""Kubernetes manifests: every overlay renders, validates strictly, and keeps its promises."""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest
import yaml
from support.deploy_support import K8S, OVERLAYS, find, kustomize, kustomize_text, run, venv_tool

# The Prometheus Operator CRDs are not in kubernetes-validate's schemas: these are the
# parts of their published OpenAPI schemas (monitoring.coreos.com/v1) this project uses,
# strict (no unknown field), checked with jsonschema instead.
_LABELS = {"type": "object", "additionalProperties": {"type": "string"}}
_META = {
    "type": "object",
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "namespace": {"type": "string"},
        "labels": _LABELS,
        "annotations": _LABELS,
    },
    "additionalProperties": False,
}
SERVICE_MONITOR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "ServiceMonitor"},
        "metadata": _META,
        "spec": {
            "type": "object",
            "required": ["selector", "endpoints"],
            "additionalProperties": False,
            "properties": {
                "jobLabel": {"type": "string"},
                "selector": {
                    "type": "object",
                    "properties": {"matchLabels": _LABELS},
                    "additionalProperties": False,
                },
                "namespaceSelector": {"type": "object"},
                "endpoints": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "port": {"type": "string"},
                            "path": {"type": "string"},
                            "interval": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                            "scrapeTimeout": {"type": "string", "pattern": "^[0-9]+(ms|s|m|h)$"},
                        },
                    },
                },
            },
        },
    },
}
_RULE = {
    "type": "object",
    "required": ["expr"],
    "additionalProperties": False,
    "properties": {
        "record": {"type": "string"},
        "alert": {"type": "string"},
        "expr": {"type": "string"},
        "for": {"type": "string"},
        "labels": _LABELS,
        "annotations": _LABELS,
    },
    "oneOf": [{"required": ["record"]}, {"required": ["alert"]}],
}
PROMETHEUS_RULE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "additionalProperties": False,
    "properties": {
        "apiVersion": {"const": "monitoring.coreos.com/v1"},
        "kind": {"const": "PrometheusRule"},
        "metadata": _META,
        "spec": {
            "type": "object",
            "required": ["groups"],
            "additionalProperties": False,
            "properties": {
                "groups": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "rules"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string"},
                            "interval": {"type": "string"},
                            "rules": {"type": "array", "items": _RULE},
                        },
                    },
                }
            },
        },
    },
}
# Gateway API routes (gateway.networking.k8s.io/v1, standard channel): the parts this
# project uses, strict, as the CRDs' published schemas have them.
_PARENT_REFS = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["name"],
        "additionalProperties": False,
        "properties": {"name": {"type": "string"}, "sectionName": {"type": "string"}},
    },
}
_BACKEND_REFS = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["name", "port"],
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        },
    },
}


def _route_schema(kind: str, match: dict[str, Any], rule_extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "additionalProperties": False,
        "properties": {
            "apiVersion": {"const": "gateway.networking.k8s.io/v1"},
            "kind": {"const": kind},
            "metadata": _META,
            "spec": {
                "type": "object",
                "required": ["parentRefs", "rules"],
                "additionalProperties": False,
                "properties": {
                    "parentRefs": _PARENT_REFS,
                    "rules": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "matches": {"type": "array", "items": match},
                                "backendRefs": _BACKEND_REFS,
                                **rule_extra,
                            },
                        },
                    },
                },
            },
        },
    }


_DURATION = {"type": "string", "pattern": "^([0-9]{1,5}(h|m|s|ms)){1,4}$"}
GRPC_ROUTE_SCHEMA = _route_schema(
    "GRPCRoute",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "method": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "type": {"enum": ["Exact", "RegularExpression"]},
                    "service": {"type": "string"},
                    "method": {"type": "string"},
                },
            }
        },
    },
    {},
)
HTTP_ROUTE_SCHEMA = _route_schema(
    "HTTPRoute",
    {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "path": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "type": {"enum": ["Exact", "PathPrefix", "RegularExpression"]},
                    "value": {"type": "string", "pattern": "^/"},
                },
            }
        },
    },
    {
        "timeouts": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"request": _DURATION, "backendRequest": _DURATION},
        }
    },
)
CUSTOM = {
    "ServiceMonitor": SERVICE_MONITOR_SCHEMA,
    "PrometheusRule": PROMETHEUS_RULE_SCHEMA,
    "GRPCRoute": GRPC_ROUTE_SCHEMA,
    "HTTPRoute": HTTP_ROUTE_SCHEMA,
}


@pytest.mark.parametrize("overlay", OVERLAYS)
@pytest.mark.parametrize("k8s_version", ["1.30.0", "1.37.0"])
def test_overlay_validates_strictly(overlay: str, k8s_version: str, tmp_path: Any) -> None:
    """kubectl kustomize output passes kubernetes-validate --strict (built-in kinds)."""
    validate = venv_tool("kubernetes-validate")
    docs = kustomize(overlay)
    builtin = [d for d in docs if d["kind"] not in CUSTOM]
    path = tmp_path / f"{overlay}.yaml"
    path.write_text(yaml.safe_dump_all(builtin))
    out = run([validate, "--strict", "--quiet", "-k", k8s_version, str(path)])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "ERROR" not in out.stdout + out.stderr
    kinds = sorted(d["kind"] for d in docs)
    for kind in (
        "Deployment",
        "HorizontalPodAutoscaler",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "PrometheusRule",
        "Service",
        "ServiceMonitor",
    ):
        assert kind in kinds


def test_strict_validation_catches_an_unknown_field(tmp_path: Any) -> None:
    """The validator really is strict: a misspelt field fails (guards the test above)."""
    validate = venv_tool("kubernetes-validate")
    deployment = find(kustomize("prod"), "Deployment")
    broken = yaml.safe_load(yaml.safe_dump(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {}
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(broken))
    out = run([validate, "--strict", "--quiet", str(path)])
    assert out.returncode != 0
    assert "readinessProbes" in out.stdout + out.stderr


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_custom_resources_match_their_schema(overlay: str) -> None:
    docs = kustomize(overlay)
    for kind, schema in CUSTOM.items():
        for doc in (d for d in docs if d["kind"] == kind):
            jsonschema.validate(doc, schema)
    for kind in ("ServiceMonitor", "PrometheusRule"):
        find(docs, kind)


def test_prod_routes_grpc_and_connect_to_the_service_ports() -> None:
    """The Gateway API routes (the proxy's Kubernetes equivalent): gRPC to the Service's
    gRPC port, Connect and gRPC-Web to its HTTP port, on one Gateway."""
    docs = kustomize("prod")
    ports = {p["name"]: p["port"] for p in find(docs, "Service", "stud-engine")["spec"]["ports"]}
    grpc_route, http_route = find(docs, "GRPCRoute"), find(docs, "HTTPRoute")
    for route, port in ((grpc_route, ports["grpc"]), (http_route, ports["http"])):
        backends = [b for rule in route["spec"]["rules"] for b in rule["backendRefs"]]
        assert backends == [{"name": "stud-engine", "port": port}], route
    gateways = {
        r["name"] for route in (grpc_route, http_route) for r in route["spec"]["parentRefs"]
    }
    assert len(gateways) == 1, gateways
    services = [m["method"]["service"] for r in grpc_route["spec"]["rules"] for m in r["matches"]]
    assert "stud.v1.StudEngineService" in services
    broken = yaml.safe_load(yaml.safe_dump(grpc_route))
    broken["spec"]["rules"][0]["retry"] = {"attempts": 3}  # not in the standard channel
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, GRPC_ROUTE_SCHEMA)


def _container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    containers = find(docs, "Deployment")["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    result: dict[str, Any] = containers[0]
    return result


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_deployment_is_hardened_and_drains(overlay: str) -> None:
    docs = kustomize(overlay)
    deployment = find(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = _container(docs)
    env = _env(container)
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert isinstance(pod["securityContext"]["runAsUser"], int)
    assert pod["securityContext"]["runAsUser"] != 0
    sc = container["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert {"requests", "limits"} <= set(container["resources"])
    # Native gRPC probes on the numeric gRPC port.
    port = int(env["STUD_PORT"])
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == port
    assert container["readinessProbe"]["grpc"]["service"] == "stud.v1.StudEngineService"
    # Drain: preStop sleep + server grace fits in the termination grace period.
    sleep = int(container["lifecycle"]["preStop"]["exec"]["command"][-1])
    grace = float(env["STUD_GRACE_SECONDS"])
    assert pod["terminationGracePeriodSeconds"] > sleep + grace
    assert float(env["STUD_MAX_CONNECTION_AGE_SECONDS"]) > 0
    # Keys from a Secret, never inline.
    assert env["STUD_SEALING_KEYS"]["secretKeyRef"]["name"] == "stud-sealing-keys"
    # Writable dirs are emptyDirs: the metrics multiprocess dir and /tmp.
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert "emptyDir" in volumes[mounts[env["PROMETHEUS_MULTIPROC_DIR"]]]
    assert "emptyDir" in volumes[mounts["/tmp"]]
    assert pod["automountServiceAccountToken"] is False


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workers_match_the_cpu_limit_and_disruptions_leave_replicas(overlay: str) -> None:
    docs = kustomize(overlay)
    container = _container(docs)
    cpu = container["resources"]["limits"]["cpu"]
    cores = int(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
    assert int(_env(container)["STUD_WORKERS"]) == cores
    hpa = find(docs, "HorizontalPodAutoscaler")["spec"]
    assert hpa["minReplicas"] <= find(docs, "Deployment")["spec"]["replicas"] <= hpa["maxReplicas"]
    pdb = find(docs, "PodDisruptionBudget")["spec"]
    assert pdb["maxUnavailable"] < max(2, hpa["minReplicas"])


def test_prod_runs_three_replicas_and_dev_allows_test_decks() -> None:
    prod, dev = kustomize("prod"), kustomize("dev")
    assert find(prod, "Deployment")["spec"]["replicas"] == 3
    assert find(prod, "HorizontalPodAutoscaler")["spec"]["minReplicas"] >= 3
    assert "STUD_ALLOW_TEST_DECKS" not in _env(_container(prod))
    assert _env(_container(dev))["STUD_ALLOW_TEST_DECKS"] == "true"
    # Only dev carries the (placeholder) Secret; prod's comes from outside.
    assert not [d for d in prod if d["kind"] == "Secret"]


def test_secret_example_holds_no_real_key() -> None:
    secret = find(kustomize("dev"), "Secret", "stud-sealing-keys")
    value = secret["stringData"]["STUD_SEALING_KEYS"]
    assert value.startswith("REPLACE-ME:")
    assert "not-a-key" in value
    # The server refuses the placeholder at start-up instead of sealing with it.
    keys = pytest.importorskip("studengine.state.keys")
    with pytest.raises(keys.KeySpecError):
        keys.keys_from_env_value(value)
    # Nothing in the rendered manifests looks like a 32-byte base64 key.
    for overlay in OVERLAYS:
        assert not re.search(r"[A-Za-z0-9+/]{43}=", kustomize_text(overlay))


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_services_select_the_pods_and_the_monitor_one_service(overlay: str) -> None:
    docs = kustomize(overlay)
    pod_labels = find(docs, "Deployment")["spec"]["template"]["metadata"]["labels"]
    services = [d for d in docs if d["kind"] == "Service"]
    headless = [s for s in services if s["spec"].get("clusterIP") == "None"]
    cluster_ip = [s for s in services if s["spec"].get("clusterIP") != "None"]
    assert len(headless) == 1 and len(cluster_ip) == 1
    for service in services:
        assert service["spec"]["selector"].items() <= pod_labels.items()
    monitor = find(docs, "ServiceMonitor")["spec"]
    wanted = monitor["selector"]["matchLabels"].items()
    scraped = [s for s in services if wanted <= s["metadata"].get("labels", {}).items()]
    assert len(scraped) == 1, "the ServiceMonitor must select exactly one Service"
    ports = {p["name"] for p in scraped[0]["spec"]["ports"]}
    assert {e["port"] for e in monitor["endpoints"]} <= ports
    for kind in ("PodDisruptionBudget", "NetworkPolicy"):
        selector = (
            find(docs, kind)["spec"].get("selector") or find(docs, kind)["spec"]["podSelector"]
        )
        assert selector["matchLabels"].items() <= pod_labels.items()
    target = find(docs, "HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]
    assert target["name"] == find(docs, "Deployment")["metadata"]["name"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_container_env_is_a_valid_server_configuration(overlay: str) -> None:
    """Every STUD_* variable the manifests set is a real stud-server setting with a value
    the server's own parser accepts."""
    config = pytest.importorskip("studengine.server.config")
    container = _container(kustomize(overlay))
    env = {k: v for k, v in _env(container).items() if isinstance(v, str)}
    env["STUD_SEALING_KEYS"] = "k1:" + "A" * 43 + "="
    parser = config.build_parser()
    known = {
        config._env_name(a.option_strings[0])
        for a in parser._actions
        if a.option_strings and a.option_strings[0].startswith("--")
    } | {config.KEYS_ENV}
    unknown = {k for k in env if k.startswith("STUD_")} - known
    assert not unknown, f"not stud-server settings: {sorted(unknown)}"
    parsed = config.parse_config([], env)
    assert parsed.port == 50051 and parsed.metrics_port == 9464
    assert parsed.http_port == 8080  # Connect and gRPC-Web beside gRPC
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": 50051, "http": 8080, "metrics": 9464}
    assert parsed.host == "0.0.0.0"
    assert parsed.grace_seconds == float(env["STUD_GRACE_SECONDS"])
    assert parsed.max_connection_age_seconds > 0


def test_kustomize_files_are_all_used() -> None:
    """No stray manifest in base/ that the kustomization forgets."""
    base = yaml.safe_load((K8S / "base" / "kustomization.yaml").read_text())
    listed = set(base["resources"])
    on_disk = {p.name for p in (K8S / "base").glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk


def _containers(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    pods = [d["spec"]["template"]["spec"] for d in docs if "template" in d.get("spec", {})]
    return [c for pod in pods for c in pod.get("containers", []) + pod.get("initContainers", [])]


def operator_token_problems(docs: list[dict[str, Any]]) -> list[str]:
    """Where a rendered manifest would hold stud-table's operator token itself: the
    variable with a literal ``value`` (it must be a ``secretKeyRef``), the token on a
    command line, or a stud-table container without any operator-token setting."""
    problems = []
    for container in _containers(docs):
        env = {e["name"]: e for e in container.get("env", [])}
        setting = env.get("STUD_TABLE_OPERATOR_TOKEN")
        if setting is not None and "secretKeyRef" not in setting.get("valueFrom", {}):
            problems.append(f"{container['name']}: STUD_TABLE_OPERATOR_TOKEN is not a secretKeyRef")
        args = [*container.get("command", []), *container.get("args", [])]
        if any(str(a).startswith("--operator-token=") for a in args):
            problems.append(f"{container['name']}: a token on the command line")
        runs_table = "stud-table" in container.get("image", "") or "stud-table" in args
        has_file = any(str(a).startswith("--operator-token-file") for a in args)
        if runs_table and setting is None and not has_file:
            problems.append(f"{container['name']}: stud-table without an operator-token setting")
    return problems


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_no_manifest_holds_an_operator_token(overlay: str) -> None:
    docs = kustomize(overlay)
    assert operator_token_problems(docs) == []
    # stud-table runs from the Compose file only (tests/unit/test_table_compose.py checks
    # its token there); a stud-table Deployment added here must take it from a Secret
    assert not [c for c in _containers(docs) if "stud-table" in c.get("image", "")]


def test_an_inline_operator_token_is_caught() -> None:
    inline = [{"spec": {"template": {"spec": {"containers": [
        {"name": "table", "image": "stud-table:1", "env": [
            {"name": "STUD_TABLE_OPERATOR_TOKEN", "value": "k" * 43}]},
        {"name": "cli", "image": "stud-table:1", "args": ["--operator-token=abc"]},
    ]}}}}]  # fmt: skip
    assert operator_token_problems(inline) == [
        "table: STUD_TABLE_OPERATOR_TOKEN is not a secretKeyRef",
        "cli: a token on the command line",
        "cli: stud-table without an operator-token setting",
    ]

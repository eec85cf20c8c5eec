"""`make cluster` end to end (shortened): three replicas behind HAProxy, a real Prometheus,
load through the proxy spread across all three, and a report; everything stopped and
removed afterwards."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

import pytest
from support.deploy_support import DEPLOY, PROMETHEUS_HINT
from support.paths import require_tool


@pytest.mark.slow
def test_make_cluster_runs_bounded_and_cleans_up() -> None:
    require_tool("prometheus", PROMETHEUS_HINT)
    require_tool("haproxy", "run `make proxy-deps` (as root: apt-get install haproxy)")
    env = {**os.environ, "LOAD_SECONDS": "3", "CLUSTER_SECONDS": "0", "CLUSTER_REPLICAS": "3"}
    out = subprocess.run(
        [sys.executable, "-W", "ignore", str(DEPLOY / "local" / "cluster.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    text = out.stdout
    assert out.returncode == 0, text + out.stderr
    replicas = re.findall(r"^replica-\d: gRPC (127\.0\.0\.1:\d+)", text, re.MULTILINE)
    assert len(replicas) == 3
    assert re.search(r"^prometheus: http://127\.0\.0\.1:\d+", text, re.MULTILINE)
    front = re.search(r"^haproxy: (127\.0\.0\.1:\d+)", text, re.MULTILINE)
    assert front, text
    assert "targets up: 3/3" in text
    counted = re.search(r"prometheus counts (\d+) game calls", text)
    assert counted and int(counted.group(1)) > 0
    per_instance = [int(n) for n in re.findall(r"^  127\.0\.0\.1:\d+: (\d+)$", text, re.MULTILINE)]
    assert len(per_instance) == 3 and all(n > 0 for n in per_instance), per_instance
    assert sum(per_instance) == int(counted.group(1))
    # Every call the load made (stud-load or the fallback driver) is a call Prometheus counted.
    reported = re.search(r"^the load reports (\d+) calls$", text, re.MULTILINE)
    assert reported and int(reported.group(1)) == int(counted.group(1))
    assert "temporary files removed" in text
    # Nothing left listening on the replicas' gRPC ports or the proxy's.
    for target in [*replicas, front.group(1)]:
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", int(target.rsplit(":", 1)[1]))) != 0

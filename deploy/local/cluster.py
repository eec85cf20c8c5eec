"""`make cluster`: three stud-server replicas on loopback sharing a fresh temporary key,
Debian's HAProxy in front of them (deploy/haproxy/haproxy.cfg: one address for gRPC,
Connect and gRPC-Web), a real Prometheus scraping them, and load through the proxy;
prints the load report, the calls per replica and where the proxy and Prometheus answer,
keeps them up for CLUSTER_SECONDS, then stops and cleans up.

The load is `stud-load --target ... --duration ... --json` when installed (clients);
otherwise deploy/local/driver.py plays the hands (said so in the output).
Environment: CLUSTER_REPLICAS (3), CLUSTER_WORKERS (1 per replica), LOAD_SECONDS (20),
CLUSTER_SECONDS (60: how long Prometheus stays up after the load).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import driver
import localcluster as lc
import proxy


def _load(targets: list[str], seconds: float) -> dict[str, object]:
    stud_load = lc.tool("stud-load")
    if stud_load and subprocess.run([stud_load, "--help"], capture_output=True).returncode != 0:
        stud_load = None  # installed as a script but not (yet) working
    if stud_load:
        cmd = [stud_load, "--target", ",".join(targets), "--duration", str(seconds), "--json"]
        print("load: " + " ".join(cmd), flush=True)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 120)
        if out.returncode != 0:
            print(out.stderr, file=sys.stderr)
            raise SystemExit(f"stud-load failed with exit code {out.returncode}")
        report: dict[str, object] = json.loads(out.stdout)
        return report
    print("load: stud-load is not available; using deploy/local/driver.py", flush=True)
    return driver.run_load(targets, seconds=seconds, threads=4).as_dict()


def _settled(prom: lc.Prometheus, expr: str, report: dict[str, object]) -> float | None:
    """The value once scrapes have caught up with the load: equal to the load's own call
    count when it reports one, else unchanged over two scrape intervals (bounded)."""
    expected = report.get("calls")
    deadline = time.monotonic() + 40
    last, since = prom.scalar(expr), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(1)
        value = prom.scalar(expr)
        if isinstance(expected, int) and value == expected:
            return value
        if value != last:
            last, since = value, time.monotonic()
        elif not isinstance(expected, int) and time.monotonic() - since > 11:
            break
    return last


def main() -> int:
    replicas = int(os.environ.get("CLUSTER_REPLICAS", "3"))
    workers = int(os.environ.get("CLUSTER_WORKERS", "1"))
    load_seconds = float(os.environ.get("LOAD_SECONDS", "20"))
    linger = float(os.environ.get("CLUSTER_SECONDS", "60"))
    key = lc.new_key_spec()  # in memory only: never written to disk or the repository
    with tempfile.TemporaryDirectory(prefix="stud-cluster-") as tmp:
        logs = Path(tmp)
        http = ["--http-port", "0"]
        with lc.replicas(replicas, key, workers=workers, extra_args=http, log_dir=logs) as started:
            for r in started:
                print(f"{r.name}: gRPC {r.target}  HTTP 127.0.0.1:{r.http_port}  "
                      f"metrics http://{r.metrics_target}/metrics")  # fmt: skip
            with (
                proxy.haproxy(started) as front,
                lc.prometheus([r.metrics_target for r in started]) as prom,
            ):
                print(f"haproxy: {front.target} (gRPC, Connect, gRPC-Web)")
                print(f"prometheus: {prom.url}  (graph: {prom.url}/graph)", flush=True)
                report = _load([front.target], load_seconds)
                print(json.dumps(report, indent=2))
                game = 'grpc_service="stud.v1.StudEngineService"'
                total = _settled(prom, f"sum(grpc_server_handled_total{{{game}}})", report)
                by_instance = prom.query(f"sum by (instance) (grpc_server_handled_total{{{game}}})")
                print(f"prometheus counts {total:.0f} game calls" if total else "no calls counted")
                if isinstance(report.get("calls"), int):
                    print(f"the load reports {report['calls']} calls")
                for row in by_instance:
                    print(f"  {row['metric']['instance']}: {float(row['value'][1]):.0f}")
                print(f"targets up: {prom.targets_up()}/{replicas}")
                if linger > 0:
                    print(f"the proxy and Prometheus stay up for {linger:.0f}s (Ctrl-C stops)")
                    with contextlib.suppress(KeyboardInterrupt):
                        time.sleep(linger)
        print("stopped all replicas, the proxy and Prometheus; temporary files removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

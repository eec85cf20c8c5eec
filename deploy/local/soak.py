"""`make soak`: a bounded fixed-rate run (10 minutes by default, not in CI) against
three local replicas; reports each worker's resident memory (RSS) at start and end and
the error count. Environment: SOAK_SECONDS (600), SOAK_RATE (hands/s, 5),
SOAK_REPLICAS (3), SOAK_WORKERS (2 per replica).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import driver
import localcluster as lc


def _rss(replicas: list[lc.Replica]) -> dict[str, int]:
    found = {}
    for r in replicas:
        for pid in r.worker_pids():
            try:
                found[f"{r.name}/pid{pid}"] = lc.rss_bytes(pid)
            except OSError:
                found[f"{r.name}/pid{pid}"] = 0
    return found


def main() -> int:
    seconds = float(os.environ.get("SOAK_SECONDS", "600"))
    rate = float(os.environ.get("SOAK_RATE", "5"))
    count = int(os.environ.get("SOAK_REPLICAS", "3"))
    workers = int(os.environ.get("SOAK_WORKERS", "2"))
    key = lc.new_key_spec()
    with tempfile.TemporaryDirectory(prefix="stud-soak-") as tmp:
        with lc.replicas(count, key, workers=workers, log_dir=Path(tmp)) as replicas:
            # warm up (imports, first hands) before the first RSS reading
            driver.run_load([r.target for r in replicas], hands=20, threads=2)
            start = _rss(replicas)
            print(
                f"soak: {seconds:.0f}s at {rate} hands/s on {count}x{workers} workers", flush=True
            )
            result: dict[str, driver.LoadReport] = {}
            stop = threading.Event()

            def load() -> None:
                targets = [r.target for r in replicas]
                result["r"] = driver.run_load(
                    targets, seconds=seconds, rate=rate, threads=4, stop=stop
                )

            thread = threading.Thread(target=load, daemon=True)
            thread.start()
            try:
                while thread.is_alive():
                    thread.join(60)
                    if thread.is_alive():
                        now = _rss(replicas)
                        mib = {k: round(v / 2**20, 1) for k, v in now.items()}
                        print(f"  {time.strftime('%H:%M:%S')} RSS MiB {mib}", flush=True)
            except KeyboardInterrupt:
                print("interrupted: finishing the hands in play", flush=True)
                stop.set()
                thread.join(60)
            end = _rss(replicas)
            loaded = result["r"]
            report = loaded.as_dict()
        rows = []
        for name in sorted(set(start) | set(end)):
            a, b = start.get(name, 0), end.get(name, 0)
            rows.append(
                {
                    "worker": name,
                    "rss_start_mib": round(a / 2**20, 1),
                    "rss_end_mib": round(b / 2**20, 1),
                    "growth_mib": round((b - a) / 2**20, 1),
                }
            )
    errors = sum(loaded.errors.values())
    print(json.dumps({"load": report, "rss": rows, "errors": errors}, indent=2))
    return 0 if errors == 0 and loaded.chip_violations == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Failure drills on a local 3-replica cluster under load (client-side round robin over
all replicas, as against the headless Service): a replica killed with SIGKILL costs only
retried UNAVAILABLE calls; a replica stopped with SIGTERM drains without refusing a call
(see the note on CANCELLED below). Every hand completes and conserves chips either way."""

from __future__ import annotations

import json
import signal
import threading
import time
from typing import Any

import pytest
from deploy_support import driver, localcluster, require_server

LOAD_SECONDS = 8.0
STRIKE_AFTER = 3.0


def _drill(sig: int, retry_cancelled: bool = False) -> tuple[Any, Any, list[Any]]:
    """Run the load for LOAD_SECONDS, hit replica 1 with ``sig`` after STRIKE_AFTER."""
    require_server()
    lc = localcluster()
    load_driver = driver()

    with lc.replicas(3, lc.new_key_spec(), workers=1) as replicas:
        result: dict[str, Any] = {}

        def load() -> None:
            result["report"] = load_driver.run_load(
                [r.target for r in replicas],
                seconds=LOAD_SECONDS,
                threads=4,
                retry_cancelled=retry_cancelled,
            )

        thread = threading.Thread(target=load)
        thread.start()
        time.sleep(STRIKE_AFTER)
        victim = replicas[1]
        victim.signal(sig)
        victim.proc.wait(30)
        thread.join(LOAD_SECONDS + 60)
        assert not thread.is_alive(), "the load did not stop"
        for survivor in (replicas[0], replicas[2]):
            assert survivor.proc.poll() is None
            lc.wait_serving(survivor.port, 5)
        report = result["report"]
        print(json.dumps({"signal": signal.Signals(sig).name, **report.as_dict()}))
        return report, victim, replicas


@pytest.mark.slow
def test_sigkill_costs_only_retried_unavailable() -> None:
    report, victim, _ = _drill(signal.SIGKILL)
    assert victim.proc.returncode == -signal.SIGKILL
    assert report.hands_started > 20
    assert report.errors == {}, f"calls failed for good: {report.errors}"
    assert set(report.retried_codes) <= {"UNAVAILABLE"}
    assert report.hands_finished == report.hands_started
    assert report.chip_violations == 0


@pytest.mark.slow
def test_sigterm_drains_without_a_failed_call() -> None:
    report, victim, _ = _drill(signal.SIGTERM, retry_cancelled=True)
    assert victim.proc.returncode == 0
    assert any(e.get("event") == "stopped" for e in victim.events())
    assert report.hands_started > 20
    assert report.errors == {}
    # The drain refuses nothing: no UNAVAILABLE. A call the server had received but not
    # yet started when it began to stop comes back CANCELLED (a gRPC Python server
    # limitation, grpc/grpc#41785): rare (about 1 in 10,000 calls here), retried, counted.
    assert "UNAVAILABLE" not in report.retried_codes, report.retried_codes
    assert set(report.retried_codes) <= {"CANCELLED"}
    assert report.retried_codes["CANCELLED"] <= 3
    assert report.hands_finished == report.hands_started
    assert report.chip_violations == 0

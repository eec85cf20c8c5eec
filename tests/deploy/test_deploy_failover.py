"""Failure drills on a local cluster of three replicas under load.

- SIGKILL under `stud-load`: the calls in flight on the killed replica are lost, retried
  (UNAVAILABLE: the channel's service config, then failover) on the others; every hand
  completes and conserves chips.
- SIGTERM under `stud-load`: the replica drains (every call it had started finishes OK,
  it exits 0); no call fails.
- SIGTERM under client-side round robin (one channel over all replicas, as against the
  headless Service): the draining replica's UNAVAILABLE refusals are retried on the
  others (the service config), then GOAWAY moves traffic away; no call fails.

No client retries CANCELLED (AIP-194): a draining server must answer the calls it has
not started with UNAVAILABLE (which the service config retries), so a CANCELLED here
counts as an error and fails the drill.
"""

from __future__ import annotations

import json
import signal
import subprocess
import threading
from collections import Counter
from typing import Any

import pytest
from support.deploy_support import driver, localcluster, venv_tool
from support.polling import poll_until

LOAD_SECONDS = 7.0
# the strike comes mid-load, once the victim has answered this many of its calls (about
# a second of the load here)
STRIKE_AFTER_CALLS = 300


def _victim_codes(victim: Any) -> Counter[str]:
    """gRPC codes of the calls the struck replica logged (one JSON line per call)."""
    return Counter(e["code"] for e in victim.events() if e.get("event") == "rpc")


def _strike(victim: Any, sig: int) -> None:
    """``sig`` to the victim once it is serving the load (``STRIKE_AFTER_CALLS`` answered),
    and its end awaited."""
    poll_until(
        lambda: _victim_codes(victim)["OK"] >= STRIKE_AFTER_CALLS,
        f"replica 1 to answer {STRIKE_AFTER_CALLS} calls of the load",
        LOAD_SECONDS,
    )
    victim.signal(sig)
    victim.proc.wait(30)


def _stud_load_drill(sig: int) -> tuple[dict[str, Any], Any]:
    stud_load = venv_tool("stud-load", "pip install -e . (the clients' load generator)")
    lc = localcluster()
    with lc.replicas(3, lc.new_key_spec(), workers=1) as replicas:
        cmd = [stud_load, "--target", ",".join(r.target for r in replicas)]
        cmd += ["--duration", str(LOAD_SECONDS), "--tables", "8", "--json", "--quiet"]
        load = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        victim = replicas[1]
        _strike(victim, sig)
        out, err = load.communicate(timeout=LOAD_SECONDS + 120)
        assert load.returncode in (0, 1), err  # 1: the report lists errors
        report: dict[str, Any] = json.loads(out)
        for survivor in (replicas[0], replicas[2]):
            assert survivor.proc.poll() is None
            lc.wait_serving(survivor.port, 5)
        print(json.dumps({"signal": signal.Signals(sig).name, **report}))
        return report, victim


@pytest.mark.slow
def test_sigkill_under_stud_load_costs_only_retried_unavailable() -> None:
    report, victim = _stud_load_drill(signal.SIGKILL)
    assert victim.proc.returncode == -signal.SIGKILL
    assert report["hands"] > 20
    # stud-load retries UNAVAILABLE (counted in "retries") and counts anything else here.
    assert report["errors"] == {}, report["errors"]
    assert report["unfinished"] == 0
    assert report["hands_checked"] == report["hands_conserved"] == report["hands"]


@pytest.mark.slow
def test_sigterm_under_stud_load_drains() -> None:
    report, victim = _stud_load_drill(signal.SIGTERM)
    assert victim.proc.returncode == 0
    assert any(e.get("event") == "stopped" for e in victim.events())
    codes = _victim_codes(victim)
    # nothing cut short: calls it had started end OK; ones it had not are refused UNAVAILABLE
    assert codes["OK"] > 0 and set(codes) <= {"OK", "UNAVAILABLE"}, codes
    # no call fails, and none is CANCELLED (stud-load would count it under errors)
    assert report["errors"] == {}, report["errors"]
    assert report["hands"] > 20
    assert report["hands_checked"] == report["hands_conserved"] == report["hands"]
    assert report["unfinished"] == 0


@pytest.mark.slow
def test_sigterm_under_round_robin_fails_no_call() -> None:
    lc = localcluster()
    load_driver = driver()
    with lc.replicas(3, lc.new_key_spec(), workers=1) as replicas:
        result: dict[str, Any] = {}

        def load() -> None:
            result["report"] = load_driver.run_load(
                [r.target for r in replicas],
                seconds=LOAD_SECONDS,
                threads=4,
            )

        thread = threading.Thread(target=load)
        thread.start()
        victim = replicas[1]
        _strike(victim, signal.SIGTERM)
        thread.join(LOAD_SECONDS + 60)
        assert not thread.is_alive(), "the load did not stop"
        report = result["report"]
        print(json.dumps({"signal": "SIGTERM", **report.as_dict()}))
    assert victim.proc.returncode == 0
    codes = _victim_codes(victim)
    assert codes["OK"] > 0 and set(codes) <= {"OK", "UNAVAILABLE"}, codes
    assert report.hands_started > 20
    assert report.errors == {}  # no CANCELLED, nor anything the channel could not retry
    assert report.hands_finished == report.hands_started
    assert report.chip_violations == 0

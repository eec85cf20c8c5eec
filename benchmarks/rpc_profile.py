"""``python -m benchmarks.rpc_profile DIR [--echo]``: where Act's server instructions go.

Records bench-rpc's Act mix as ``benchmarks.rpc --instructions`` does, replays it to one
``stud-server`` under callgrind (and, with ``--echo``, the echo on the same settings),
prints the instructions per call, then the inclusive instructions per call of each
compiled function (mypyc's ``CPyDef_…``), of protobuf's upb functions and of the
cipher's, biggest first. The dumps stay in ``DIR`` (``callgrind.act.*``) for
``callgrind_annotate --inclusive=yes``. Instruction counts do not move with the machine's
load, so two branches' profiles compare even on a busy machine; the recorded mix differs
a little between runs, so compare functions rather than totals.
"""

from __future__ import annotations

import argparse
import glob
import re
import shutil
import subprocess
from pathlib import Path

from benchmarks import rpc_instructions
from benchmarks.rpc import (
    ACT_METHOD,
    ECHO_METHOD,
    _bench_env,
    bytes_value_of_size,
)

HANDS, SEED = 30, 2026
_SHOWN = ("CPyDef_", "PyUpb_", "EVP_")  # compiled, protobuf's and OpenSSL's functions
_LINE = re.compile(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+)")


def inclusive_per_call(dump: str, calls: int, floor_k: float = 2.0) -> list[tuple[float, str]]:
    """The shown functions of a callgrind dump with their inclusive k instructions per call
    (at least ``floor_k``), biggest first, each once."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", dump],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    seen: dict[str, float] = {}
    for line in text.splitlines():
        found = _LINE.match(line)
        if found is None:
            continue
        function = found.group(2).split(":")[-1]
        k = int(found.group(1).replace(",", "")) / calls / 1e3
        if k >= floor_k and function.startswith(_SHOWN) and function not in seen:
            seen[function] = k
    return sorted(((k, name) for name, k in seen.items()), reverse=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dir", type=Path, help="where the dumps go (emptied first)")
    parser.add_argument("--echo", action="store_true", help="also the echo, for the ratio")
    options = parser.parse_args()
    if not rpc_instructions.have_callgrind():
        raise SystemExit(1)
    tmp: Path = options.dir
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    env = _bench_env()
    mix, request_bytes, response_bytes = rpc_instructions.recorded_mix(env, tmp, HANDS, SEED)
    calls = rpc_instructions.CALLS
    act = rpc_instructions.per_call(rpc_instructions.STUD_CMD, env, tmp, "act", ACT_METHOD, mix)
    print(f"Act: {act / 1e3:.1f} k instructions per call ({len(mix)} requests, {calls} calls)")
    if options.echo:
        echo_cmd = rpc_instructions.echo_cmd("aio", response_bytes)
        echo_request = [bytes_value_of_size(request_bytes)]
        echo = rpc_instructions.per_call(echo_cmd, env, tmp, "echo", ECHO_METHOD, echo_request)
        print(
            f"echo: {echo / 1e3:.1f} k; Act/echo {act / echo:.2f}x; "
            f"Act less echo {(act - echo) / 1e3:.1f} k"
        )
    (dump,) = glob.glob(str(tmp / "callgrind.act.*.1"))
    print(f"inclusive k instructions per call ({dump}):")
    for k, function in inclusive_per_call(dump, calls):
        print(f"  {k:8.1f} k  {function}")


if __name__ == "__main__":
    main()

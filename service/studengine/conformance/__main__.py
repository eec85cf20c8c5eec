"""``stud-conformance DIR_OR_FILE...`` (also ``python -m studengine.conformance``): plays
the vectors against the engine in-process, or with ``--target HOST:PORT`` against a live
server through the public API, and prints each failing vector's first difference.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from studengine.conformance.local import LocalDriver
from studengine.conformance.runner import Driver, play_vector, vector_files


def make_driver(target: str | None) -> Driver:
    if target is None:
        return LocalDriver()
    from studengine.conformance.remote import RemoteDriver  # only the remote one needs gRPC

    driver: Driver = RemoteDriver(target)
    return driver


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="stud-conformance", description="Play conformance vectors and report differences."
    )
    parser.add_argument("paths", nargs="+", help="vector files or directories of them")
    parser.add_argument("--target", help="HOST:PORT of a live server (test decks allowed)")
    args = parser.parse_args(argv)
    passed = failed = 0
    for path in vector_files(args.paths):
        vector = json.loads(path.read_text())
        difference = play_vector(vector, make_driver(args.target))
        if difference is None:
            passed += 1
        else:
            failed += 1
            print(f"FAIL {vector.get('name', path.stem)}: {difference}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())

"""``stud-conformance DIR_OR_FILE...`` (also ``python -m studengine.conformance``): plays
the vectors against the engine in-process, or with ``--target HOST:PORT`` against a live
server through the public API (one channel for the run), and prints each failing
vector's first difference. A path that does not exist is an error (exit code 2) before
anything is played, and so is a file that is not JSON when it comes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

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
    missing = [path for path in args.paths if not Path(path).exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")  # exits with 2
    passed = failed = 0
    driver = make_driver(args.target)  # one driver (one channel) for every vector
    try:
        for path in vector_files(args.paths):
            try:
                vector = json.loads(path.read_text())
            except (OSError, ValueError) as error:
                parser.error(f"{path}: not a conformance vector: {error}")
            difference = play_vector(vector, driver)
            if difference is None:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {vector.get('name', path.stem)}: {difference}")
    finally:
        close = getattr(driver, "close", None)
        if close is not None:
            close()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())

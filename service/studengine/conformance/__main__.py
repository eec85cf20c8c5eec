"""``stud-conformance DIR_OR_FILE...`` (also ``python -m studengine.conformance``): plays
the vectors against the engine in-process, or with ``--target HOST:PORT`` (and the
clients' ``--tls*`` flags) against a live server through the public API and the clients'
one engine client (one channel for the run), and prints each failing vector's first
difference. A path that does not exist is an error (exit code 2) before
anything is played, and so is a file that is not JSON when it comes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from studengine.conformance.local import LocalDriver
from studengine.conformance.runner import Driver, play_vector, vector_files

if TYPE_CHECKING:
    from studclients.engine import Dial

NO_CLIENTS = "--target needs the clients' engine client: pip install studengine-clients"


def make_driver(dial: Dial | None) -> Driver:
    if dial is None:
        return LocalDriver()
    from studengine.conformance.remote import RemoteDriver  # only the remote one needs gRPC

    driver: Driver = RemoteDriver(dial)
    return driver


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stud-conformance", description="Play conformance vectors and report differences."
    )
    parser.add_argument("paths", nargs="+", help="vector files or directories of them")
    try:
        from studclients.engine import add_dial_options
    except ImportError:  # the server alone (its image): in-process only
        parser.add_argument("--target", action="append", help=NO_CLIENTS)
    else:
        add_dial_options(parser, default="the engine in-process (a live one must allow test decks)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    missing = [path for path in args.paths if not Path(path).exists()]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")  # exits with 2
    dial = None
    if args.target:
        try:
            from studclients.engine import dial_from_args
        except ImportError:
            parser.error(NO_CLIENTS)
        dial = dial_from_args(parser, args)
    passed = failed = 0
    driver = make_driver(dial)  # one driver (one channel) for every vector
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

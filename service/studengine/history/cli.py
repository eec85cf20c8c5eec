"""``stud-replay FILE.phh...``: play hand histories through the engine.

Each file holds one PHH history (ours, or another tool's such as a PokerKit export). For
each, one line: ``ok`` when every action was legal and the finishing stacks (and the rake,
``_rake``, when recorded) agree (or the file records none), ``DIFFERENT`` with both stack
lists (and both rakes) when they do not, ``ERROR`` with the file's line and the reason
when a line cannot be read or an action is not legal. Exit status 0 when every hand is ok,
1 otherwise (2 for bad usage).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from studengine.history.reader import PhhError, parse, replay


def check_file(path: Path) -> tuple[bool, str]:
    """Whether the history in ``path`` replays to its finishing stacks, and the line
    that says so."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return False, f"{path}: ERROR cannot read: {error}"
    try:
        history = parse(text)
        played = replay(history)
    except PhhError as error:
        return False, f"{path}: ERROR {error}"
    name = f"hand {history.hand}, " if history.hand else ""
    summary = f"{name}{played.actions} actions legal"
    if played.stacks_agree is None:
        return True, f"{path}: ok ({summary}; no finishing_stacks to compare: {played.stacks})"
    if not played.stacks_agree:
        return False, (
            f"{path}: DIFFERENT ({summary}) finishing stacks: the history says "
            f"{history.finishing_stacks}, the engine {played.stacks}"
            + (
                f"; rake: the history says {history.rake}, the engine {played.rake}"
                if history.rake is not None
                else ""
            )
        )
    return True, f"{path}: ok ({summary}, finishing stacks agree)"


def check_files(
    prog: str,
    description: str,
    check: Callable[[Path], tuple[bool, str]],
    argv: Sequence[str] | None,
) -> int:
    """A command over history files: ``check`` each, print its line and a total; the exit
    status, 0 when every file passed (``stud-replay``, ``stud-verify``)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE.phh")
    args = parser.parse_args(argv)
    failed = 0
    for path in args.files:
        ok, line = check(path)
        failed += not ok
        print(line)
    total = len(args.files)
    print(f"{total - failed} of {total} hands ok" + (f", {failed} not" if failed else ""))
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    description = "Play PHH hand histories through the Stud Engine rules and check them."
    return check_files("stud-replay", description, check_file, argv)


if __name__ == "__main__":
    sys.exit(main())

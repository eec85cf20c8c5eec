"""``make bench-eval``: the evaluator's figures, ours next to the usual Python libraries.

(a) all 133,784,560 seven-card hands enumerated in C: the nine category counts
    (checked against the known totals) and the time;
(b) on the same pre-generated random hands, 7-card and 5-card single-call evaluations
    per second from Python: our C extension, our pure-Python twin, and the fastest entry
    point of phevaluator, eval7, treys and pokerkit; then our batch call and a plain C
    loop (our core compiled with gcc into a small program) over the same hands;
(c) equity showdowns per second (benchmarks.equity);
(d) the lows, ace-to-five and eight-or-better, next to PokerKit's low hand classes
    (benchmarks.eval_low).

phevaluator, eval7, treys and pokerkit are in benchmarks/requirements.txt (``make
bench-eval`` installs them into .venv-bench); a missing one is reported and skipped.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from studengine import evaluator
from studengine.cards import format_card
from studengine.evaluator import Category, _twin

from benchmarks import equity as equity_bench

SEVEN_CARD_COUNTS: tuple[int, ...] = (23_294_460, 58_627_800, 31_433_400, 6_461_620)
SEVEN_CARD_COUNTS += (6_180_020, 4_047_644, 3_473_184, 224_848, 41_584)
CORE_DIR = Path(evaluator.__file__).resolve().parent

LOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "eval_core.h"
int main(int argc, char **argv) {
    /* mode (argv[4], default 0): 0 high, 1 ace-to-five low, 2 eight-or-better low */
    int n = atoi(argv[2]), rounds = atoi(argv[3]), mode = argc > 4 ? atoi(argv[4]) : 0;
    FILE *f = fopen(argv[1], "rb");
    fseek(f, 0, SEEK_END); long len = ftell(f); fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(len);
    if (fread(buf, 1, len, f) != (size_t)len) return 1;
    long hands = len / n; unsigned long long sum = 0;
    int *out = malloc(sizeof(int) * hands);
    se_init_tables();
    struct timespec t0, t1;
    double s = 1e9;
    for (int r = 0; r < rounds; r++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < hands; i++) {
            if (mode == 0) {
                out[i] = (int)se_eval_bytes(buf + i * n, n);
                continue;
            }
            uint32_t m[4], sc;
            if (!se_read_bytes(buf + i * n, n, m, &sc)) return 2;
            out[i] = (int)(mode == 2 ? se_low8_masks(m) : se_low_masks(m));
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        for (long i = 0; i < hands; i += 4096) sum += (unsigned)out[i];
        double one = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        if (one < s) s = one;
    }
    unsigned long long check = 0;
    for (long i = 0; i < hands; i++) check += (unsigned)out[i];
    printf("%.6f %llu %llu\n", s, check, sum);
    return 0;
}
"""


def random_hands(count: int, size: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    return [rng.sample(range(52), size) for _ in range(count)]


def best_rates(entries: dict[str, tuple[Callable[[], Any], int]], rounds: int) -> dict[str, float]:
    """Items per second of each entry: the best of ``rounds`` passes, taken in turns so
    that a busy spell of the machine hits every entry alike."""
    best = dict.fromkeys(entries, float("inf"))
    for _ in range(rounds):
        for name, (loop, _count) in entries.items():
            start = time.perf_counter()
            loop()
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: entries[name][1] / best[name] for name in entries}


def single_call_entries(
    hands: Sequence[Sequence[int]], slow: int
) -> dict[str, tuple[Callable[[], Any], int]]:
    """name -> (a loop evaluating hands once each with that library's fastest entry point,
    the number of hands it does). Slow entries take the first ``slow`` hands only
    (pokerkit, the slowest by far, a fifth of those)."""
    size = len(hands[0])
    few = hands[:slow]
    entries: dict[str, tuple[Callable[[], Any], int]] = {}
    if evaluator.BACKEND == "c":
        c_eval = evaluator.evaluate
        entries["studengine C"] = (lambda: [c_eval(h) for h in hands], len(hands))
    twin = _twin.evaluate
    entries["studengine twin"] = (lambda: [twin(h) for h in few], len(few))
    try:
        from phevaluator import _pheval

        fn = getattr(_pheval, f"evaluate_{size}cards")
        tuples = [tuple(h) for h in hands]  # phevaluator's card ids are rank * 4 + suit too
        entries["phevaluator"] = (lambda: [fn(*t) for t in tuples], len(tuples))
    except ImportError:
        print("  (phevaluator not installed)")
    texts = [[format_card(c) for c in h] for h in hands]
    try:
        import eval7

        e7 = [[eval7.Card(t) for t in h] for h in texts]
        e7_eval = eval7.evaluate
        entries["eval7"] = (lambda: [e7_eval(h) for h in e7], len(e7))
    except ImportError:
        print("  (eval7 not installed)")
    try:
        from treys import Card as TreysCard
        from treys import Evaluator as TreysEvaluator

        # the function treys' public evaluate(hand, board) dispatches to, without the
        # list concatenation: its fastest entry point
        t_eval = TreysEvaluator().hand_size_map[size]
        treys_hands = [
            [TreysCard.new(t) for t in h] for h in (texts if size == 5 else texts[:slow])
        ]
        entries["treys"] = (lambda: [t_eval(h) for h in treys_hands], len(treys_hands))
    except ImportError:
        print("  (treys not installed)")
    try:
        from pokerkit import Card as PkCard
        from pokerkit import StandardHighHand

        pk = [tuple(PkCard.parse("".join(h))) for h in texts[: max(slow // 5, 1)]]
        # five cards: the hand's constructor; more: from_game picks the best five
        pk_eval = StandardHighHand if size == 5 else StandardHighHand.from_game
        entries["pokerkit"] = (lambda: [pk_eval(h) for h in pk], len(pk))
    except ImportError:
        print("  (pokerkit not installed)")
    return entries


class PlainLoop:
    """Our core compiled with gcc -O3 into a small program (``LOOP_C``) that loops over a
    hands file: ``run(buffer, size, rounds, mode)`` with mode "0" high, "1" ace-to-five low,
    "2" eight-or-better low gives the best seconds and a checksum of the values."""

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)
        gcc = shutil.which("gcc") or shutil.which("cc")
        self.program: Path | None = None
        if gcc is None:
            print("  (no C compiler: plain C loop skipped)")
            return
        source, program = self.directory / "loop.c", self.directory / "loop"
        source.write_text(LOOP_C)
        subprocess.run(
            [gcc, "-O3", "-I", str(CORE_DIR), str(source), "-o", str(program)], check=True
        )
        self.program = program

    def run(self, buffer: bytes, size: int, rounds: int, mode: str = "0") -> tuple[float, int]:
        """Seconds of the best of ``rounds`` passes, and the sum of the values."""
        assert self.program is not None
        data = self.directory / "hands.bin"
        data.write_bytes(buffer)
        args = [str(self.program), str(data), str(size), str(rounds), mode]
        out = subprocess.run(args, check=True, capture_output=True).stdout.split()
        return float(out[0]), int(out[1])


def batch_vs_plain(size: int, ours: float, plain: PlainLoop) -> None:
    hands = random_hands(1_000_000, size, seed=100 + size)
    buffer = bytes(c for h in hands for c in h)
    many = evaluator.evaluate_many
    batch_best = plain_best = float("inf")
    checksum = 0
    for _ in range(5):  # in turns, best of each
        start = time.perf_counter()
        ranks = many(buffer, size)
        batch_best = min(batch_best, time.perf_counter() - start)
        if plain.program is not None:
            seconds, checksum = plain.run(buffer, size, rounds=2)
            plain_best = min(plain_best, seconds)
    batch = len(hands) / batch_best
    print(
        f"    batch evaluate_many   {batch / 1e6:8.1f} M/s  {batch / ours:6.1f}x the single C call"
    )
    if plain.program is not None:
        plain_rate = len(hands) / plain_best
        print(
            f"    plain C loop          {plain_rate / 1e6:8.1f} M/s  plain/batch = "
            f"{plain_rate / batch:.2f} (same ranks: {checksum == sum(ranks)})"
        )


def part_a() -> None:
    print("(a) all 133,784,560 seven-card hands, enumerated in C")
    from benchmarks.enumerate7 import count_categories_7

    start = time.perf_counter()
    counts = count_categories_7()  # compiles enumerate7.c first: the time includes gcc
    elapsed = time.perf_counter() - start
    for cat, (got, want) in enumerate(zip(counts, SEVEN_CARD_COUNTS, strict=True)):
        mark = "ok" if got == want else f"WRONG, expected {want:,}"
        print(f"  {Category(cat).name.replace('_', ' ').lower():16} {got:>12,}  {mark}")
    print(
        f"  total {sum(counts):,} hands in {elapsed:.2f} s = {sum(counts) / elapsed / 1e6:.0f} M/s"
    )


def part_b(count: int, slow: int, rounds: int) -> None:
    print(
        f"(b) single calls from Python on the same random hands ({count:,}; "
        f"slow ones: the first {slow:,}); best of {rounds} passes taken in turns"
    )
    with tempfile.TemporaryDirectory() as tmp:
        plain = PlainLoop(tmp)
        for size in (7, 5):
            hands = random_hands(count, size, seed=size)
            rates = best_rates(single_call_entries(hands, slow), rounds)
            ours = rates.get("studengine C", rates["studengine twin"])
            print(f"  {size}-card hands       evals/s     ours (C) is x faster")
            for name, value in sorted(rates.items(), key=lambda kv: -kv[1]):
                print(f"    {name:18} {value / 1e6:8.3f} M   {ours / value:6.2f}x")
            others = [v for k, v in rates.items() if not k.startswith("studengine")]
            if others:
                print(f"    ours vs the fastest other library: {ours / max(others):.2f}x")
            if "treys" in rates:
                print(f"    twin vs treys: {rates['studengine twin'] / rates['treys']:.1f}x")
            if evaluator.BACKEND == "c":
                batch_vs_plain(size, ours, plain)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000, help="hands for fast entries")
    parser.add_argument("--slow-hands", type=int, default=10_000, help="hands for slow ones")
    parser.add_argument("--rounds", type=int, default=5, help="passes per entry")
    parser.add_argument("--skip-enumeration", action="store_true")
    args = parser.parse_args(argv)
    print(f"studengine evaluator backend: {evaluator.BACKEND}")
    started = time.perf_counter()
    if not args.skip_enumeration:
        part_a()
    part_b(args.hands, args.slow_hands, args.rounds)
    equity_bench.run()
    from benchmarks import eval_low  # it imports this module's helpers

    eval_low.run(args.hands, args.slow_hands, args.rounds)
    print(f"bench-eval done in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

"""A card room under load (``make bench-room``; not a test): N bots (default 200) in one
multi-table tournament on two stud-table replicas against one real PostgreSQL, the clock
off in effect (bots act at once, no pause between hands), played to a winner. Checks that
each player's chips carry from hand to hand and that the seats hold the chips the field
bought, and measures hands per second (wall time from the start to the winner) and each
replica's peak resident memory. Its last line:

``room: P players, T tables, H hands, chips conserved: yes|no, X hands/s, Y MiB per replica``

``--profile DIR`` runs each replica under cProfile (``DIR/replica-N.prof`` and the top of
it in ``.txt``) and PostgreSQL with pg_stat_statements (``DIR/statements.txt``).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import pstats
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from stud_api.stud.v1 import stud_engine_pb2 as pb
from studclients.devpostgres import Postgres
from studclients.devserver import start_dev_server
from studclients.table.schema import mtts
from studclients.table.store import Store, hands, history, plays

from benchmarks import processes

OPERATOR = "bench-room-operator-token-0123456789"
# the stakes double to the end: at 400/800/1600 a 1,000-player field's last three calling
# stations (300,000 chips) played over 1,500 hands without a bust
LEVELS = ((0, 5, 10), (5, 10, 20), (10, 25, 50), (25, 50, 100), (50, 100, 200),
          (100, 200, 400), (200, 400, 800), (400, 800, 1600), (800, 1600, 3200),
          (1600, 3200, 6400), (3200, 6400, 12800), (6400, 12800, 25600),
          (12800, 25600, 51200), (25600, 51200, 102400))  # fmt: skip


class Replica:
    """A ``stud-table`` process; its port once it serves."""

    def __init__(self, target: str, db: str, token_file: Path, profile: Path | None) -> None:
        """``profile``: where cProfile writes the replica's profile when it stops."""
        prefix = ["-m", "cProfile", "-o", str(profile)] if profile else []
        cmd = [sys.executable, *prefix, "-m", "studclients.table", "--target", target, "--db", db,
               "--port", "0", "--operator-token-file", str(token_file), "--pause", "0",
               "--bot-delay", "0", "--clock", "30"]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.port = 0
        self.lines: list[str] = []
        ready = threading.Event()

        def read() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                if len(self.lines) < 50:
                    self.lines.append(line)
                if line.startswith("stud-table serving "):
                    self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(60) or not self.port:
            self.stop()
            raise RuntimeError("stud-table did not start:\n" + "".join(self.lines))

    def peak_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        processes.stop(self.proc)


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


async def until_finished(url: str, deadline: float) -> int:
    """Waits for the tournament's end, reading its row once a second (not its page: the
    replicas' time goes to the tables); the players left at the deadline, 0 at the end."""
    store = Store(url)
    try:
        while True:
            async with store.engine.connect() as conn:
                field = (await conn.execute(sa.select(mtts.c.field))).scalar_one()
            if field["status"] == "finished":
                return 0
            if time.monotonic() > deadline:
                return len(field["entries"]) - len(field["places"])
            await asyncio.sleep(1.0)
    finally:
        await store.close()


def conserved(url: str, players: int, stack: int) -> tuple[bool, int]:
    """Whether every player's hands start with what their last one ended with (the first
    with the starting stack) and the chips add up at the end; the hands dealt."""

    async def read() -> tuple[list[Any], list[Any], dict[str, float], dict[str, bytes]]:
        store = Store(url)
        try:
            async with store.engine.connect() as conn:
                rows = list(await conn.execute(sa.select(hands)))
                dealt = list(await conn.execute(sa.select(plays)))
                at = dict((await conn.execute(
                    sa.select(history.c.hand_id, history.c.at).where(history.c.seq == 0)
                )).all())  # fmt: skip
                last = {}
                for hand in rows:
                    last[hand.hand_id] = hand.update
            return rows, dealt, at, last
        finally:
            await store.close()

    rows, dealt, at, last = asyncio.run(read())
    by_id = {h.hand_id: h for h in rows}
    chips: dict[str, int] = {}
    good = all(h.over for h in rows)
    for play in sorted(dealt, key=lambda p: at[p.hand_id]):
        hand = by_id[play.hand_id]
        index = hand.seat_map.index(play.seat_no)
        good = good and hand.start_stacks[index] == chips.get(play.player, stack)
        chips[play.player] = pb.HandUpdate.FromString(last[play.hand_id]).result.stacks[index]
    good = good and len(chips) == players and sum(chips.values()) == players * stack
    return good, len(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--stack", type=int, default=300)
    parser.add_argument("--every", type=int, default=3, help="hands per level")
    parser.add_argument("--timeout", type=float, default=3600.0)
    parser.add_argument("--profile", type=Path, help="a folder for the profiles")
    args = parser.parse_args(argv)
    settings = {
        "levels": [{"ante": a, "bring_in": b, "small_bet": s} for a, b, s in LEVELS],
        "every": args.every, "unit": "hands", "payouts": [5000, 3000, 2000],
        "buy_in": 100, "seats": 8, "starting_stack": args.stack, "min_entrants": 4,
        "max_entrants": max(args.players, 4),
    }  # fmt: skip
    engine = start_dev_server(workers=1)
    try:
        pg = Postgres({"shared_preload_libraries": "pg_stat_statements"} if args.profile else None)
    except BaseException:
        engine.stop()
        raise
    try:
        try:
            run(args, settings, engine.target, pg.url)
        finally:
            if args.profile:
                write_profiles(args.profile, pg.url)
    finally:
        engine.stop()
        pg.stop()


def run(args: argparse.Namespace, settings: dict[str, Any], target: str, db: str) -> None:
    """The tournament on two replicas, to a winner, then the check and the last line."""
    replicas: list[Replica] = []
    with tempfile.TemporaryDirectory() as tmp:
        token_file = Path(tmp) / "operator"
        token_file.write_text(OPERATOR + "\n")
        try:
            profiles: list[Path | None] = [None, None]
            if args.profile:
                args.profile.mkdir(parents=True, exist_ok=True)
                profiles = [args.profile / f"replica-{n}.prof" for n in (1, 2)]
            replicas = [Replica(target, db, token_file, profile) for profile in profiles]
            base = f"http://127.0.0.1:{replicas[0].port}"
            made = {"id": "room", "name": "Room", "game": "seven", "settings": settings,
                    "seed": "bench-room"}  # fmt: skip
            call(base, "POST", "/api/tournaments", made, OPERATOR)
            entering = time.monotonic()
            for number in range(args.players):
                bot = {"name": f"Bot {number}", "bot": ("station", "random")[number % 2]}
                call(base, "POST", "/api/tournaments/room/bots", bot, OPERATOR)
            print(f"room: {args.players} entered in {time.monotonic() - entering:.0f} s",
                  file=sys.stderr)  # fmt: skip
            call(base, "POST", "/api/tournaments/room/start", {}, OPERATOR)
            tables = len(call(base, "GET", "/api/tournaments/room")["tables"])
            began = time.monotonic()
            left = asyncio.run(until_finished(db, began + args.timeout))
            if left:
                sys.exit(f"room: no winner after {args.timeout:.0f} s: {left} left")
            elapsed = time.monotonic() - began
            peak = max(r.peak_mib() for r in replicas)
        finally:
            for replica in replicas:
                replica.stop()
    good, hands_dealt = conserved(db, args.players, args.stack)
    verdict = "yes" if good else "no"
    print(
        f"room: {args.players} players, {tables} tables, {hands_dealt} hands, chips conserved: "
        f"{verdict}, {hands_dealt / elapsed:.1f} hands/s, {peak:.0f} MiB per replica"
    )


def write_profiles(folder: Path, url: str) -> None:
    """The top of each replica's profile, and PostgreSQL's statements by total time."""
    for prof in sorted(folder.glob("replica-*.prof")):
        out = io.StringIO()
        stats = pstats.Stats(str(prof), stream=out)
        stats.sort_stats("cumulative").print_stats(60)
        stats.sort_stats("tottime").print_stats(40)
        prof.with_suffix(".txt").write_text(out.getvalue())

    async def statements() -> list[Any]:
        store = Store(url)
        try:
            async with store.engine.begin() as conn:
                await conn.execute(sa.text("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"))
                query = sa.text(
                    "SELECT calls, total_exec_time, rows, query,"
                    " sum(total_exec_time) OVER () AS everything FROM pg_stat_statements"
                    " ORDER BY total_exec_time DESC LIMIT 40"
                )
                return list(await conn.execute(query))
        finally:
            await store.close()

    rows = asyncio.run(statements())
    total = (rows[0].everything if rows else 0.0) or 1.0
    lines = [
        f"{r.calls:>8} calls {r.total_exec_time / 1000:8.1f} s"
        f" {100 * r.total_exec_time / total:5.1f}% {r.rows:>9} rows"
        f"  {' '.join(r.query.split())[:300]}"
        for r in rows
    ]
    (folder / "statements.txt").write_text("\n".join(lines) + "\n")
    print(f"room: profiles in {folder}", file=sys.stderr)


if __name__ == "__main__":
    main()

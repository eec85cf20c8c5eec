"""``stud-table``: serve the web table and run the tables' hands against a stud-server.

    stud-table --target 127.0.0.1:50051 [--db sqlite:///stud-table.db] [--port 8080]

Creates the table ``--table`` if it does not exist yet (with its game, stakes, seats,
clock and bots), resumes every hand in progress found in the database, and prints
``stud-table serving http://HOST:PORT/`` once it listens. Needs the ``[table]`` extra
(``pip install 'studengine-clients[table]'``); without it, it says so and exits 2."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence

from studclients.bots import BOT_KINDS
from studclients.client import VARIANTS as CLIENT_VARIANTS
from studclients.engine import Dial, Engine, add_dial_options, dial_from_args

#: What the [table] extra brings (imported by stud-table's modules or by SQLAlchemy).
TABLE_EXTRA = frozenset({"aiohttp", "sqlalchemy", "aiosqlite", "asyncpg", "greenlet"})
INSTALL = "pip install 'studengine-clients[table]'"


def _needs_extra(error: ModuleNotFoundError) -> str:
    if (error.name or "").split(".")[0] not in TABLE_EXTRA:
        raise error
    return f"stud-table: {error.name} is missing: stud-table needs the [table] extra ({INSTALL})"


try:
    from aiohttp import web

    from studclients.table.game import Tables, TableSettings, Timing
    from studclients.table.store import Store
    from studclients.table.web import Hub, build_app
except ModuleNotFoundError as missing:  # stud-play and stud-load need none of it
    sys.stderr.write(_needs_extra(missing) + "\n")
    sys.exit(2)

log = logging.getLogger("stud-table")
VARIANTS = CLIENT_VARIANTS  # five, seven, razz, hilo (Seven Card Stud Hi-Lo)
TICK_SECONDS = 0.2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stud-table", description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add_dial_options(parser, aliases=("--engine",), many=True, required=True)
    add(
        "--db",
        default="sqlite:///stud-table.db",
        help="database URL (sqlite:///FILE or postgresql://...)",
    )
    add("--host", default="127.0.0.1")
    add("--port", type=int, default=8080, help="0: any free port")
    add("--table", default="main", help="id of the table to create if missing")
    add("--name", default="Main table")
    add("--variant", choices=list(VARIANTS), default="seven")
    add("--seats", type=int, default=6)
    add("--stack", type=int, default=1000, help="chips a new player sits down with")
    add("--ante", type=int, default=5)
    add("--bring-in", type=int, default=10)
    add("--small-bet", type=int, default=20, help="the big bet is twice this")
    add("--clock", type=float, default=30.0, help="seconds a player has to act")
    add(
        "--all-in-face-up",
        action="store_true",
        help="a new table tables the hands once a player is all-in and the betting is over",
    )
    add("--bots", default="", help=f"bots to seat at a new table: {','.join(BOT_KINDS)}")
    add("--pause", type=float, default=4.0, help="seconds between hands")
    add("--bot-delay", type=float, default=0.8, help="a bot's thinking time (seconds)")
    return parser


async def drive(tables: Tables) -> None:
    """Deals, clocks and bots, forever; errors are logged and the loop goes on."""
    while True:
        try:
            await tables.tick()
        except Exception:
            log.exception("tick failed")
        await asyncio.sleep(TICK_SECONDS)


async def serve(args: argparse.Namespace, dial: Dial) -> None:
    store = Store(args.db)
    await store.create_schema()
    engine = Engine(dial)
    hub_box: list[Hub] = []
    tables = Tables(
        store,
        engine,
        Timing(pause=args.pause, bot_delay=args.bot_delay),
        on_change=lambda table_id: hub_box[0].changed(table_id) if hub_box else None,
    )
    hub = Hub(tables)
    hub_box.append(hub)
    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    await tables.create_table(
        TableSettings(
            table_id=args.table,
            name=args.name,
            variant=VARIANTS[args.variant],
            ante=args.ante,
            bring_in=args.bring_in,
            small_bet=args.small_bet,
            start_stack=args.stack,
            max_seats=args.seats,
            clock_seconds=args.clock,
            bots=bots,
            all_in_face_up=args.all_in_face_up,
        )
    )
    runner = web.AppRunner(build_app(tables, hub), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    print(f"stud-table serving http://{host}:{port}/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    workers = [asyncio.create_task(drive(tables)), asyncio.create_task(hub.run())]
    await stop.wait()
    for task in workers:
        task.cancel()
    for task in workers:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await runner.cleanup()
    await engine.close()
    await store.close()
    print("stud-table stopped", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    dial = dial_from_args(parser, args, many=True)
    assert dial is not None  # --target is required
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    try:
        asyncio.run(serve(args, dial))
    except ModuleNotFoundError as missing:  # a database driver: asyncpg for postgresql://
        sys.stderr.write(_needs_extra(missing) + "\n")
        sys.exit(2)
    except ValueError as error:
        sys.exit(f"stud-table: {error}")


if __name__ == "__main__":
    main()

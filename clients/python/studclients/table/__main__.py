"""``stud-table``: serve the web table and run the tables' hands against a stud-server.

    stud-table --target 127.0.0.1:50051 [--db sqlite:///stud-table.db] [--port 8080]

Creates the table ``--table`` if it does not exist yet (with its game, stakes, seats,
clock and bots), resumes every hand in progress found in the database, and prints
``stud-table serving http://HOST:PORT/`` once it listens. With ``--export-history
FILE.zip`` it serves nothing: it writes the PHH histories of every finished hand of
``--table`` (the audit rendering, or ``--audience players``) and exits. Needs the ``[table]`` extra
(``pip install 'studengine-clients[table]'``); without it, it says so and exits 2."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import signal
import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path

from studclients.bots import BOT_KINDS
from studclients.client import VARIANTS as CLIENT_VARIANTS
from studclients.engine import Dial, Engine, add_dial_options, dial_from_args

#: What the [table] extra brings (imported by stud-table's modules or by SQLAlchemy).
TABLE_EXTRA = frozenset(
    {"aiohttp", "sqlalchemy", "aiosqlite", "asyncpg", "greenlet", "prometheus_client"}
)
INSTALL = "pip install 'studengine-clients[table]'"


def _needs_extra(error: ModuleNotFoundError) -> str:
    if (error.name or "").split(".")[0] not in TABLE_EXTRA:
        raise error
    return f"stud-table: {error.name} is missing: stud-table needs the [table] extra ({INSTALL})"


try:
    from aiohttp import web

    from studclients.table import histories, metrics, ratelimit, tournament, tracing
    from studclients.table.away import AwayPolicy
    from studclients.table.errors import ApiError
    from studclients.table.game import Tables, TableSettings, Timing
    from studclients.table.mtt.director import Director
    from studclients.table.store import Store
    from studclients.table.tokens import OPERATOR_ENV, operator_token
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
    add(
        "--no-verifiable-deals",
        dest="verifiable",
        action="store_false",
        help="a new table deals without deal tickets and players' entropy (default: with)",
    )
    add(
        "--deal-wait",
        type=float,
        default=2.0,
        help="seconds a verifiable deal waits for the players' entropy before dealing",
    )
    add("--bots", default="", help=f"bots to seat at a new table: {','.join(BOT_KINDS)}")
    add("--pause", type=float, default=4.0, help="seconds between hands")
    add("--bot-delay", type=float, default=0.8, help="a bot's thinking time (seconds)")
    away = parser.add_argument_group("time banks and players away")
    away.add_argument(
        "--time-bank", type=float, default=30.0, help="seconds of each player's time bank"
    )
    away.add_argument(
        "--bank-every", type=int, default=10, help="the bank is refilled every N hands played"
    )
    away.add_argument(
        "--away-after", type=int, default=2, help="timeouts in a row that mark a player away"
    )
    away.add_argument(
        "--away-limit",
        type=float,
        default=600.0,
        help="seconds away after which the seat is given up (0: never)",
    )
    add(
        "--rate-limits",
        default="",
        help="ROUTE=REQUESTS/SECONDS,... for join, act, bots, resume, download (0: no limit); "
        f"default {','.join(f'{r}={n}/{p:g}' for r, (n, p) in ratelimit.DEFAULTS.items())}",
    )
    add(
        "--metrics-port",
        type=int,
        default=None,
        help="serve Prometheus /metrics on this port (0: any free port; default: off)",
    )
    add("--metrics-host", default="127.0.0.1", help="the metrics port's address")
    add(
        "--test-decks",
        help="JSON file: a list of decks (lists of cards) for the first hands dealt, for "
        "tests; the engine must allow test decks",
    )
    mixed = parser.add_argument_group("a mixed table (the games in turn)")
    mixed.add_argument("--games", default="", help="e.g. razz,seven,hilo (H.O.R.S.E.'s stud)")
    mixed.add_argument("--rotate-every", type=int, default=8, help="hands of each game")
    sng = parser.add_argument_group("a sit-and-go (starts when every seat is taken)")
    sng.add_argument("--sit-and-go", action="store_true", help="the new table is a tournament")
    sng.add_argument(
        "--levels",
        default="0/5/10,1/10/20,2/15/30,3/25/50,5/50/100",
        help="ANTE/BRING-IN/SMALL-BET per level, comma-separated (big bet: twice)",
    )
    sng.add_argument("--level-every", type=int, default=10, help="hands or minutes per level")
    sng.add_argument("--level-unit", choices=tournament.UNITS, default="hands")
    sng.add_argument(
        "--payouts", default="6500,3500", help="basis points of the prize pool by place"
    )
    sng.add_argument("--buy-in", type=int, default=100, help="each entrant's share of the pool")
    add(
        "--operator-token-file",
        help=f"file holding the operator token (else ${OPERATOR_ENV}; neither: no operator API)",
    )
    ops = parser.add_argument_group("an operator's export (instead of serving)")
    ops.add_argument("--export-history", metavar="FILE.zip", help="write --table's histories")
    ops.add_argument("--audience", choices=tuple(histories.AUDIENCES), default="audit")
    return parser


async def export_history(args: argparse.Namespace, dial: Dial) -> None:
    """Every finished hand of ``--table`` as PHH files in a zip, for an operator."""
    store, engine = Store(args.db), Engine(dial)
    try:
        data = await histories.for_operator(Tables(store, engine), args.table, args.audience)
    except ApiError as error:
        raise ValueError(error.message) from None
    finally:
        await engine.close()
        await store.close()
    Path(args.export_history).write_bytes(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        count = sum(name.endswith(".phh") for name in archive.namelist())
    where = args.export_history
    print(f"stud-table: {count} hands of table {args.table} ({args.audience}) in {where}")


async def serve_metrics(host: str, port: int) -> web.AppRunner:
    runner = web.AppRunner(metrics.metrics_app(), handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    bound_host, bound_port = runner.addresses[0][:2]
    print(f"stud-table metrics on http://{bound_host}:{bound_port}/metrics", flush=True)
    return runner


def table_settings(args: argparse.Namespace) -> TableSettings:
    """The table the command line describes (ValueError for one that cannot be played)."""
    names = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in names if g not in VARIANTS]
    if unknown:
        raise ValueError(f"--games: {unknown[0]!r} is not one of {', '.join(VARIANTS)}")
    games = tuple(VARIANTS[g] for g in names)
    event = None
    if args.sit_and_go:
        event = {
            "levels": tournament.parse_levels(args.levels),
            "every": args.level_every,
            "unit": args.level_unit,
            "payouts": [int(p) for p in args.payouts.split(",") if p.strip()],
            "buy_in": args.buy_in,
        }
    return TableSettings(
        table_id=args.table,
        name=args.name,
        variant=VARIANTS[args.variant],
        ante=args.ante,
        bring_in=args.bring_in,
        small_bet=args.small_bet,
        start_stack=args.stack,
        max_seats=args.seats,
        clock_seconds=args.clock,
        bank_seconds=args.time_bank,
        bank_every=args.bank_every,
        bots=tuple(b.strip() for b in args.bots.split(",") if b.strip()),
        games=games,
        rotate_every=args.rotate_every,
        tournament=event,
        all_in_face_up=args.all_in_face_up,
        verifiable=args.verifiable,
    )


async def drive(tables: Tables, director: Director) -> None:
    """Deals, clocks and bots, and the tournaments' decisions, forever; errors are logged
    and the loop goes on."""
    while True:
        worked = False
        try:
            await director.tick()
            worked = await tables.tick()
        except Exception:
            log.exception("tick failed")
        # at once again while hands move (bots with no thinking time), else a pause
        await asyncio.sleep(0 if worked else TICK_SECONDS)


async def serve(args: argparse.Namespace, dial: Dial) -> None:
    store = Store(args.db)
    await store.create_schema()
    engine = Engine(dial)
    hub_box: list[Hub] = []
    tables = Tables(
        store,
        engine,
        Timing(pause=args.pause, bot_delay=args.bot_delay, deal_wait=args.deal_wait),
        on_change=lambda table_id: hub_box[0].changed(table_id) if hub_box else None,
        away=AwayPolicy(away_after=args.away_after, away_limit=args.away_limit),
    )
    if args.test_decks:
        tables.test_decks = [list(deck) for deck in json.loads(Path(args.test_decks).read_text())]
    hub = Hub(tables)
    hub_box.append(hub)
    await tables.create_table(table_settings(args))
    operator = operator_token(args.operator_token_file)
    limits = ratelimit.RateLimits.parse(args.rate_limits)
    director = Director(store, clock_seconds=args.clock)
    runner = web.AppRunner(build_app(tables, hub, operator, limits, director), handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port)
    await site.start()
    host, port = runner.addresses[0][:2]
    runners = [runner]
    if args.metrics_port is not None:
        runners.append(await serve_metrics(args.metrics_host, args.metrics_port))
    print(f"stud-table serving http://{host}:{port}/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    workers = [asyncio.create_task(drive(tables, director)), asyncio.create_task(hub.run())]
    await stop.wait()
    for task in workers:
        task.cancel()
    for task in workers:
        with contextlib.suppress(asyncio.CancelledError):
            await task
    for each in runners:
        await each.cleanup()
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
    stop_tracing = tracing.setup()
    try:
        asyncio.run(export_history(args, dial) if args.export_history else serve(args, dial))
    except ModuleNotFoundError as missing:  # a database driver: asyncpg for postgresql://
        sys.stderr.write(_needs_extra(missing) + "\n")
        sys.exit(2)
    except ValueError as error:
        sys.exit(f"stud-table: {error}")
    finally:
        if stop_tracing is not None:
            stop_tracing()


if __name__ == "__main__":
    main()

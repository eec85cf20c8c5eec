"""stud-table's own Prometheus metrics, in a registry of their own, served on
``--metrics-port`` (``/metrics``): what the card room does (hands, moves, the clock, time
banks, players away), where it fails (compare-and-set conflicts, engine errors by code,
voided hands, refused requests) and its pushes (open WebSockets, dropped subscribers)."""

from __future__ import annotations

import grpc
from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    generate_latest,
)

from studclients.client import VARIANT_NAMES

REGISTRY = CollectorRegistry(auto_describe=True)

HANDS_DEALT = Counter(
    "stud_table_hands_dealt", "Hands dealt, by game.", ["game"], registry=REGISTRY
)
HANDS_VOIDED = Counter(
    "stud_table_hands_voided",
    "Hands called off because no engine could open their sealed state (stacks restored).",
    registry=REGISTRY,
)
MOVES = Counter(
    "stud_table_moves",
    "Moves applied, by who made them: player, clock (a timeout) or bot.",
    ["source"],
    registry=REGISTRY,
)
CAS_CONFLICTS = Counter(
    "stud_table_cas_conflicts",
    "Compare-and-set writes that lost to another writer (this replica's answer dropped), "
    "by step: deal, move, bank.",
    ["step"],
    registry=REGISTRY,
)
CLOCK_TIMEOUTS = Counter(
    "stud_table_clock_timeouts",
    "Players whose clock and time bank ran out (the engine's TIMEOUT sent for them).",
    registry=REGISTRY,
)
TIME_BANKS_USED = Counter(
    "stud_table_time_banks_used",
    "Clocks that ran out onto the player's time bank.",
    registry=REGISTRY,
)
PLAYERS_AWAY = Counter(
    "stud_table_players_away",
    "Players marked away (clock ran out twice in a row); they sit out until they return.",
    registry=REGISTRY,
)
ENGINE_ERRORS = Counter(
    "stud_table_engine_errors",
    "Engine calls that failed for good, by gRPC status code.",
    ["code"],
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "stud_table_rate_limited",
    "Requests refused with 429 by the rate limits, by route: join, act, bots, resume.",
    ["route"],
    registry=REGISTRY,
)
WEBSOCKETS_OPEN = Gauge(
    "stud_table_websockets_open", "WebSocket connections open now.", registry=REGISTRY
)
SUBSCRIBERS_DROPPED = Counter(
    "stud_table_subscribers_dropped",
    "WebSocket subscribers dropped because they could not keep up, by reason: "
    "queue_full (their send queue filled), send_timeout (one send never finished).",
    ["reason"],
    registry=REGISTRY,
)


def metrics_app() -> web.Application:
    """The ``/metrics`` endpoint (a port of its own: never the players' port)."""

    async def scrape(request: web.Request) -> web.StreamResponse:
        return web.Response(
            body=generate_latest(REGISTRY), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    app = web.Application()
    app.router.add_get("/metrics", scrape)
    return app


def _known_labels() -> None:
    """Every label value a counter can take, at zero from the start: a dashboard's rate()
    reads 0, not "no data", until the first one happens."""
    for game in VARIANT_NAMES.values():
        HANDS_DEALT.labels(game)
    for source in ("player", "clock", "bot"):
        MOVES.labels(source)
    for step in ("deal", "move", "bank"):
        CAS_CONFLICTS.labels(step)
    for code in grpc.StatusCode:
        if code is not grpc.StatusCode.OK:
            ENGINE_ERRORS.labels(code.name)
    for route in ("join", "act", "bots", "resume"):
        RATE_LIMITED.labels(route)
    for reason in ("queue_full", "send_timeout"):
        SUBSCRIBERS_DROPPED.labels(reason)


_known_labels()

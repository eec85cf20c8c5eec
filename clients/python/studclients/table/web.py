"""stud-table's HTTP side (aiohttp): the page, a small JSON API and a WebSocket that pushes
each seat its own view whenever its table changes (here or on another replica).

Seat tokens travel only in an ``Authorization: Bearer`` header or as the WebSocket's first
message, never in a URL, so they never reach an access log."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from studclients.table import cookies, histories, lobby, metrics, resume, tokens, tracing
from studclients.table.errors import ApiError
from studclients.table.game import Tables
from studclients.table.mtt import pages as mtt_pages
from studclients.table.mtt import routes as mtt_routes
from studclients.table.mtt.director import Director
from studclients.table.pushes import Subscriber
from studclients.table.ratelimit import RateLimited, RateLimits

log = logging.getLogger("stud-table")
STATIC = Path(__file__).parent / "static"
#: How often each replica looks for changes made by other replicas (seconds).
POLL_SECONDS = 0.3
HELLO_SECONDS = 10.0
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


class Hub:
    """WebSocket subscribers by table; queues a fresh page for each when the table's version
    moves (a local write wakes it at once, other replicas' writes within POLL_SECONDS), and
    for every table when this replica's engine goes down or comes back (the page says so).
    Each subscriber sends from its own bounded queue (``pushes``): nobody waits on a slow
    reader."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.subscribers: dict[str, dict[web.WebSocketResponse, Subscriber]] = {}
        self.versions: dict[str, int] = {}
        self.engine_down = False
        self.wake = asyncio.Event()

    def changed(self, table_id: str) -> None:
        self.wake.set()

    async def subscribe(
        self, table_id: str, ws: web.WebSocketResponse, request: web.Request, token: str
    ) -> None:
        subscriber = Subscriber(ws, request, token)
        self.subscribers.setdefault(table_id, {})[ws] = subscriber
        await self.push(table_id, subscriber)

    def unsubscribe(self, table_id: str, ws: web.WebSocketResponse, stop: bool = True) -> None:
        """Forgets the subscriber; ``stop=False`` lets its sender finish what is queued."""
        subs = self.subscribers.get(table_id, {})
        subscriber = subs.pop(ws, None)
        if subscriber is not None and stop:
            subscriber.task.cancel()
        if not subs:
            self.subscribers.pop(table_id, None)
            self.versions.pop(table_id, None)

    async def push(self, table_id: str, subscriber: Subscriber) -> None:
        """Queues the seat's page; a token that no longer holds a seat gets ``gone``, or
        ``moved`` with its new table and seat (a tournament player moved between tables:
        the same token holds the new seat), and the connection is closed after it."""
        try:
            seat = await self.tables.authenticate(table_id, subscriber.token)
        except ApiError as error:
            moved = await mtt_pages.seat_elsewhere(self.tables.store, table_id, subscriber.token)
            message = {"type": "moved", **moved} if moved else {"type": "gone", **error.body()}
            subscriber.offer(json.dumps(message), close_after=True)
            self.unsubscribe(table_id, subscriber.ws, stop=False)  # it sends, then closes
            return
        page = await self.tables.page(table_id, seat)
        if not subscriber.offer(json.dumps(page)):
            self.unsubscribe(table_id, subscriber.ws)

    async def run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), POLL_SECONDS)
            self.wake.clear()
            try:
                await self._push_changed()
            except Exception:
                log.exception("push failed")

    async def _push_changed(self) -> None:
        engine_moved = self.tables.health.down != self.engine_down
        self.engine_down = self.tables.health.down
        if not self.subscribers:
            return
        versions = await self.tables.store.versions(list(self.subscribers))
        for table_id, version in versions.items():
            if self.versions.get(table_id) == version and not engine_moved:
                continue
            self.versions[table_id] = version
            for ws, subscriber in list(self.subscribers.get(table_id, {}).items()):
                if ws.closed or subscriber.dropped:
                    self.unsubscribe(table_id, ws)
                    continue
                await self.push(table_id, subscriber)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refusals as JSON ``{"error": {"reason", "message"}}`` with their status; the
    security headers on every answer."""
    try:
        response = await handler(request)
    except ApiError as error:
        response = web.json_response(error.body(), status=error.status)
        if isinstance(error, RateLimited):
            response.headers["Retry-After"] = str(error.retry_after)
    except web.HTTPException as error:
        reason = "not_found" if error.status == 404 else "http_error"
        body = {"error": {"reason": reason, "message": error.reason}}
        response = web.json_response(body, status=error.status)
    except Exception:
        log.exception("%s %s failed", request.method, request.path)
        body = {"error": {"reason": "internal", "message": "the server failed; try again"}}
        response = web.json_response(body, status=500)
    response.headers.update(SECURITY_HEADERS)
    if request.path.startswith("/api/"):
        response.headers["Cache-Control"] = "no-store"
    return response


def parse_json(text: str) -> Any:
    """The JSON value of ``text``; 400 ``malformed_json`` when it is not JSON or nests
    deeper than the parser's recursion limit (a ``RecursionError`` is not a 500)."""
    try:
        return json.loads(text)
    except ValueError:
        raise ApiError(400, "malformed_json", "the body is not valid JSON") from None
    except RecursionError:
        raise ApiError(400, "malformed_json", "the JSON nests too deeply") from None


async def json_body(request: web.Request) -> Any:
    """The request's JSON body (``null`` when empty), read as UTF-8 whatever its
    Content-Type says (RFC 8259: JSON between systems is UTF-8); 400 ``malformed_json``
    when it is not UTF-8 (stray bytes, UTF-16) or not JSON."""
    data = await request.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "malformed_json", "the body is not UTF-8 text") from None
    return parse_json(text or "null")


def zip_download(data: bytes, name: str) -> web.Response:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return web.Response(
        body=data,
        content_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def build_app(
    tables: Tables,
    hub: Hub,
    operator: bytes | None = None,
    limits: RateLimits | None = None,
    director: Director | None = None,
) -> web.Application:
    """The routes; ``operator`` is the operator token's SHA-256 (None: no operator API),
    ``limits`` the rate limits (the defaults when None)."""
    app = web.Application(middlewares=[tracing.traced, errors], client_max_size=16 * 1024)
    limits = limits or RateLimits()

    def limit(route: str, request: web.Request, key: str | None = None) -> None:
        """One request of ``route`` by this client (its seat token, else its address)."""
        assert limits is not None
        client = tokens.token_hash(key).hex() if key else (request.remote or "unknown")
        limits.check(route, client)

    async def index(request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html")

    async def health(request: web.Request) -> web.StreamResponse:
        return web.json_response({"status": "ok"})

    async def list_tables(request: web.Request) -> web.StreamResponse:
        return web.json_response(await lobby.listing(tables))

    def token_of(request: web.Request) -> str | None:
        return tokens.bearer(request.headers.get("Authorization"))

    def require_operator(request: web.Request) -> None:
        if operator is None:
            raise ApiError(403, "no_operator", "this stud-table has no operator token set")
        if not tokens.is_operator(token_of(request), operator):
            raise ApiError(401, "not_operator", "the operator token is required")

    async def create_table(request: web.Request) -> web.StreamResponse:
        require_operator(request)
        answer = await lobby.create(tables, await json_body(request))
        return web.json_response(answer, status=201)

    async def my_history(request: web.Request) -> web.StreamResponse:
        limit("download", request, token_of(request))
        table_id = request.match_info["table"]
        data = await histories.for_player(tables, table_id, token_of(request))
        return zip_download(data, f"stud-table-{table_id}-history.zip")

    async def table_history(request: web.Request) -> web.StreamResponse:
        limit("download", request)
        require_operator(request)
        table_id = request.match_info["table"]
        audience = request.query.get("audience", "audit")
        data = await histories.for_operator(tables, table_id, audience)
        return zip_download(data, f"stud-table-{table_id}-{audience}.zip")

    async def hand_proof(request: web.Request) -> web.StreamResponse:
        limit("download", request, token_of(request))
        table_id, hand_id = request.match_info["table"], request.match_info["hand"]
        name, phh = await histories.proof(tables, table_id, hand_id, token_of(request))
        return web.Response(
            body=phh.encode(),
            content_type="application/octet-stream",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    async def contribute(request: web.Request) -> web.StreamResponse:
        limit("act", request, token_of(request))  # the moves' bucket: one seat's requests
        table_id = request.match_info["table"]
        seat = await tables.authenticate(table_id, token_of(request))  # 401 before any 400
        return web.json_response(await tables.contribute(table_id, seat, await json_body(request)))

    async def join(request: web.Request) -> web.StreamResponse:
        limit("join", request)
        body = await json_body(request)
        name = body.get("name") if isinstance(body, dict) else None
        table_id = request.match_info["table"]
        answer = await tables.join(table_id, name)
        resume_token = answer.pop("resume")
        response = web.json_response(answer)
        cookies.set_cookie(response, request, cookies.cookie_name(table_id), resume_token)
        return response

    async def resume_seats(request: web.Request) -> web.StreamResponse:
        limit("resume", request)
        body = await json_body(request)
        wanted = body.get("tournament") if isinstance(body, dict) else None
        if wanted is not None and not isinstance(wanted, str):
            raise ApiError(400, "bad_field", "tournament: the id of the tournament to resume")
        return await resume.resume_seats(tables.store, request, wanted)

    async def back(request: web.Request) -> web.StreamResponse:
        return web.json_response(await tables.back(request.match_info["table"], token_of(request)))

    async def view(request: web.Request) -> web.StreamResponse:
        table_id = request.match_info["table"]
        seat = await tables.authenticate(table_id, token_of(request))
        return web.json_response(await tables.page(table_id, seat))

    async def act(request: web.Request) -> web.StreamResponse:
        limit("act", request, token_of(request))
        table_id = request.match_info["table"]
        seat = await tables.authenticate(table_id, token_of(request))  # 401 before any 400
        return web.json_response(await tables.act_as(table_id, seat, await json_body(request)))

    async def leave(request: web.Request) -> web.StreamResponse:
        table_id = request.match_info["table"]
        response = web.json_response(await tables.leave(table_id, token_of(request)))
        cookies.clear_cookie(response, cookies.cookie_name(table_id))
        return response

    async def add_bot(request: web.Request) -> web.StreamResponse:
        limit("bots", request)
        table_id = request.match_info["table"]
        await tables.authenticate(table_id, token_of(request))  # 401 before any 400
        body = await json_body(request)
        kind = body.get("kind", "station") if isinstance(body, dict) else None
        return web.json_response({"seat": await tables.seat_bot(table_id, str(kind))})

    async def socket(request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=20.0, max_msg_size=4096)
        await ws.prepare(request)
        metrics.WEBSOCKETS_OPEN.inc()
        try:
            return await serve_socket(request, ws)
        except ConnectionError as error:  # the client reset it: nobody is left to answer
            log.info("WebSocket from %s ended by a reset: %s", request.remote, error)
            return ws
        finally:
            metrics.WEBSOCKETS_OPEN.dec()

    async def serve_socket(request: web.Request, ws: web.WebSocketResponse) -> web.StreamResponse:
        table_id = await hello(request, ws)
        if table_id is None:
            return ws
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await ws.send_json(
                        {
                            "type": "error",
                            "error": {
                                "reason": "read_only",
                                "message": "moves go to POST /api/tables/{id}/act",
                            },
                        }
                    )
        finally:
            hub.unsubscribe(table_id, ws)
        return ws

    async def hello(request: web.Request, ws: web.WebSocketResponse) -> str | None:
        """The first message must be ``{"type": "hello", "table": ID, "token": TOKEN}``."""

        async def refuse(reason: str, message: str, code: int) -> None:
            await ws.send_json({"type": "error", "error": {"reason": reason, "message": message}})
            await ws.close(code=code, message=reason.encode())

        try:
            first = await ws.receive(timeout=HELLO_SECONDS)
        except TimeoutError:
            await refuse("no_hello", "send the hello message first", 4400)
            return None
        if first.type != WSMsgType.TEXT:
            await refuse("bad_hello", "the first message must be JSON text", 4400)
            return None
        try:
            hello = parse_json(first.data)
        except ApiError as error:
            await refuse(error.reason, f"the hello message: {error.message}", 4400)
            return None
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            await refuse("bad_hello", 'expected {"type": "hello", "table", "token"}', 4400)
            return None
        table_id, token = hello.get("table"), hello.get("token")
        if not isinstance(table_id, str) or not isinstance(token, str):
            await refuse("bad_hello", "table and token must be strings", 4400)
            return None
        try:
            await tables.authenticate(table_id, token)
        except ApiError as error:
            await refuse(error.reason, error.message, 4401 if error.status == 401 else 4404)
            return None
        await hub.subscribe(table_id, ws, request, token)
        return table_id

    app.router.add_get("/", index)
    app.router.add_get("/healthz", health)
    app.router.add_static("/static/", STATIC, append_version=False)
    app.router.add_get("/api/tables", list_tables)
    app.router.add_post("/api/tables", create_table)
    app.router.add_get("/api/tables/{table}/history", my_history)
    app.router.add_get("/api/operator/tables/{table}/history", table_history)
    app.router.add_post("/api/tables/{table}/join", join)
    app.router.add_get("/api/tables/{table}/view", view)
    app.router.add_post("/api/tables/{table}/act", act)
    app.router.add_post("/api/tables/{table}/contribute", contribute)
    app.router.add_get("/api/tables/{table}/hands/{hand}/proof", hand_proof)
    app.router.add_post("/api/tables/{table}/leave", leave)
    app.router.add_post("/api/tables/{table}/bots", add_bot)
    app.router.add_post("/api/tables/{table}/back", back)
    app.router.add_post(cookies.COOKIE_PATH, resume_seats)
    app.router.add_get("/ws", socket)
    mtt_routes.add_routes(
        app, director or Director(tables.store), json_body, token_of, require_operator
    )
    return app

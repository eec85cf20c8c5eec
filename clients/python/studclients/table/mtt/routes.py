"""The HTTP routes of multi-table tournaments: the lobby's list, a tournament's page,
registering (with a resume cookie: cookies.py), where a player sits now, rebuys and the
add-on (the player's token), and the operator's create, start, pause, resume, cancel and
bots (the operator token)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from studclients.client import VARIANTS
from studclients.table import cookies, validation
from studclients.table.errors import ApiError, SettingsError
from studclients.table.lobby import TABLE_NAME
from studclients.table.mtt import pages
from studclients.table.mtt.director import Director

Body = Callable[[web.Request], Awaitable[Any]]
#: a tournament's id: its tables are ``<id>-<number>``, within a table id's 64 characters
MTT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,47}$")
#: the seed of every draw (stored, shown to anyone who checks the draw)
SEED = re.compile(r"^[\x21-\x7e]{1,64}$")


def add_routes(
    app: web.Application,
    director: Director,
    json_body: Body,
    token_of: Callable[[web.Request], str | None],
    require_operator: Callable[[web.Request], None],
) -> None:
    async def listing(request: web.Request) -> web.StreamResponse:
        return web.json_response(await pages.listing(director))

    async def page(request: web.Request) -> web.StreamResponse:
        return web.json_response(await pages.page(director, request.match_info["mtt"]))

    async def create(request: web.Request) -> web.StreamResponse:
        require_operator(request)
        body = await json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            raise ApiError(400, "bad_request", "id, name, game and settings are required")
        if not MTT_ID.match(body["id"]):
            raise ApiError(
                400, "bad_field", "id: 1 to 48 of a-z, 0-9, - and _, from a letter or digit"
            )
        name = body.get("name", body["id"])
        if not isinstance(name, str) or not TABLE_NAME.match(name):
            raise ApiError(400, "bad_field", "name: 1 to 100 characters, no control characters")
        seed = body.get("seed")
        if seed is not None and (not isinstance(seed, str) or not SEED.match(seed)):
            raise ApiError(400, "bad_field", "seed: 1 to 64 printable ASCII characters, no space")
        verifiable = body.get("verifiable", True)
        if type(verifiable) is not bool:
            raise ApiError(400, "bad_field", "verifiable must be true or false")
        game = body.get("game", "seven")
        if game not in VARIANTS:
            raise ApiError(400, "bad_game", f"game must be one of {', '.join(VARIANTS)}")
        try:
            made = await director.create(
                body["id"],
                name,
                VARIANTS[game],
                body.get("settings", {}),
                seed,
                verifiable=verifiable,  # deal tickets and players' entropy: on unless off
            )
        except SettingsError as error:
            raise ApiError(400, "bad_settings", str(error)) from None
        if not made:
            raise ApiError(409, "exists", f"a tournament {body['id']!r} exists already")
        return web.json_response({"id": body["id"]}, status=201)

    async def register(request: web.Request) -> web.StreamResponse:
        body = await json_body(request)
        name = validation.player_name(body.get("name") if isinstance(body, dict) else None)
        mtt_id = request.match_info["mtt"]
        answer = await director.register(mtt_id, name)
        resume_token = answer.pop("resume")  # a cookie only the resume route reads
        response = web.json_response(answer, status=201)
        cookie = cookies.cookie_name(mtt_id, cookies.ENTRY_PREFIX)
        cookies.set_cookie(response, request, cookie, resume_token, cookies.ENTRY_SECONDS)
        return response

    async def add_bot(request: web.Request) -> web.StreamResponse:
        require_operator(request)
        body = await json_body(request)
        name = validation.player_name(body.get("name") if isinstance(body, dict) else None)
        kind = str(body.get("bot", "station"))
        answer = await director.register(request.match_info["mtt"], name, bot=kind)
        del answer["resume"]  # a bot's entry has no token and no resume token
        return web.json_response(answer, status=201)

    async def me(request: web.Request) -> web.StreamResponse:
        return web.json_response(
            await pages.my_seat(director, request.match_info["mtt"], token_of(request))
        )

    async def buy(request: web.Request) -> web.StreamResponse:
        what = request.match_info["what"]
        answer = await director.buy(request.match_info["mtt"], token_of(request), what)
        return web.json_response(answer)

    async def operate(request: web.Request) -> web.StreamResponse:
        require_operator(request)
        mtt_id, verb = request.match_info["mtt"], request.match_info["verb"]
        answer: dict[str, Any] = {"id": mtt_id, verb: True}
        if verb == "start":
            answer["seated"] = len(await director.start(mtt_id))
        elif verb == "cancel":
            refunds = await director.cancel(mtt_id)
            answer["refunds"] = {str(p): r for p, r in refunds.items()}
        else:
            await director.row(mtt_id)
            await director.pause(mtt_id, verb == "pause")
        return web.json_response(answer)

    app.router.add_get("/api/tournaments", listing)
    app.router.add_post("/api/tournaments", create)
    app.router.add_get("/api/tournaments/{mtt}", page)
    app.router.add_post("/api/tournaments/{mtt}/register", register)
    app.router.add_post("/api/tournaments/{mtt}/bots", add_bot)
    app.router.add_get("/api/tournaments/{mtt}/me", me)
    app.router.add_post(r"/api/tournaments/{mtt}/{what:rebuy|addon}", buy)
    app.router.add_post(r"/api/tournaments/{mtt}/{verb:start|pause|resume|cancel}", operate)

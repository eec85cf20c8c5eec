"""stud-table's time banks, players away, seats recovered on a new tab and rate limits,
against a real stud-server: a player who never acts goes onto the time bank, times out
twice, sits out (not dealt in) until they come back; a closed tab's seat, or tournament
entry, is recovered with the HttpOnly resume cookie (rotated at each use); join, act,
bots and resume answer 429 with Retry-After past their limits, changing nothing."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from studclients.table import cookies
from support.polling import poll_until
from support.table_harness import call, download, join, table_on_new_engine, view

#: a move no hand is at: 409 (counted by the rate limit all the same)
STALE = {"action": "fold", "hand": "h", "seq": -1}


def test_a_player_who_never_acts_uses_the_bank_sits_out_and_comes_back(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "4", "--bots", "station,station", "--bot-delay", "0.05", "--pause", "0.3",
         "--clock", "1", "--time-bank", "2", "--bank-every", "1", "--metrics-port", "0"],
    )  # fmt: skip
    try:
        seat, token = join(server.url, "Ann")
        assert view(server.url, token)["you"]["time_bank"] == 2

        def page() -> dict[str, Any]:
            return view(server.url, token)

        poll_until(
            lambda: (p := page())["hand"] and p["hand"]["on_time_bank"]
            and p["hand"]["to_act"] == seat,
            what="Ann's clock to run onto her time bank",
        )  # fmt: skip
        poll_until(lambda: page()["you"]["away"], timeout=90, what="Ann marked away")
        assert server.metric("stud_table_players_away_total") == 1
        assert server.metric("stud_table_time_banks_used_total") >= 1  # refilled by a hand
        assert server.metric("stud_table_clock_timeouts_total") >= 2
        away = page()
        assert away["seats"][seat]["away"] is True
        # from the next hand she is not dealt in, and the bots play on without her
        first = poll_until(
            lambda: (p := page())["hand"] and not p["hand"]["over"]
            and p["hand"]["number"] > away["hand"]["number"] and p,
            what="a hand dealt while Ann is away",
        )  # fmt: skip
        assert first["seats"][seat]["in_hand"] is False and first["legal"] == []
        status, answer = call(server.url, "POST", "/api/tables/main/back", {}, token=token)
        assert (status, answer) == (200, {"back": True, "was_away": True})
        assert page()["you"]["away"] is False
        poll_until(
            lambda: (p := page())["hand"] and p["seats"][seat]["in_hand"]
            and p["hand"]["number"] > first["hand"]["number"],
            what="Ann dealt in again",
        )  # fmt: skip
    finally:
        server.stop()


async def with_resume_cookie(tab: aiohttp.ClientSession, path: str, body: Any) -> Any:
    """The answer to a POST that sets a resume cookie, checked to be one only the resume
    route gets (HttpOnly, SameSite=Strict, Path=/api/resume)."""
    async with tab.post(path, json=body) as answer:
        cookie = answer.headers["Set-Cookie"]
        for part in ("HttpOnly", "SameSite=Strict", "Path=/api/resume"):
            assert part.lower() in cookie.lower(), cookie
        return await answer.json()


def test_a_closed_tab_recovers_its_seat_with_the_resume_cookie(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    server = table_on_new_engine(live_server, tmp_path, ["--seats", "4", "--clock", "60"])

    async def run() -> None:
        jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
        async with aiohttp.ClientSession(server.url, cookie_jar=jar) as tab:
            joined = await with_resume_cookie(tab, "/api/tables/main/join", {"name": "Ann"})
            assert set(joined) == {"table", "seat", "token", "history_token"}, "no resume token"
            old_cookie = next(iter(jar)).value
            # a new tab of the same browser: the page has no token, only the cookie
            async with tab.post("/api/resume") as answer:
                resumed = (await answer.json())["seats"]
            assert [(s["table"], s["seat"]) for s in resumed] == [("main", joined["seat"])]
            new_token = resumed[0]["token"]
            assert new_token != joined["token"]
            # the new tab gets a history token of its own for the same sitting
            assert resumed[0]["history_token"] not in (joined["history_token"], new_token)
            assert view(server.url, new_token)["you"]["name"] == "Ann"
            status, _ = call(server.url, "GET", "/api/tables/main/view", token=joined["token"])
            assert status == 401, "the old tab's token is spent"
            assert next(iter(jar)).value != old_cookie, "the resume token rotates"
            # the spent resume token recovers nothing
            async with aiohttp.ClientSession(server.url) as other:
                other.cookie_jar.update_cookies({next(iter(jar)).key: old_cookie})
                async with other.post(
                    "/api/resume", headers={"Cookie": f"{next(iter(jar)).key}={old_cookie}"}
                ) as answer:
                    assert (await answer.json())["seats"] == []
            # leaving clears it
            headers = {"Authorization": f"Bearer {new_token}"}
            async with tab.post("/api/tables/main/leave", json={}, headers=headers) as answer:
                assert answer.status == 200
            async with tab.post("/api/resume") as answer:
                assert (await answer.json())["seats"] == []

    try:
        asyncio.run(run())
    finally:
        server.stop()


def test_a_closed_tab_recovers_its_tournament_entry_and_seat_with_the_resume_cookie(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    (tmp_path / "operator").write_text("operator-token-for-the-resume\n")
    op = "operator-token-for-the-resume"
    server = table_on_new_engine(
        live_server, tmp_path, ["--operator-token-file", str(tmp_path / "operator"),
                                "--clock", "60", "--pause", "30"],
    )  # fmt: skip
    settings = {"levels": [{"ante": 1, "bring_in": 5, "small_bet": 10}], "payouts": [10000],
                "seats": 4, "min_entrants": 2}  # fmt: skip
    made = call(server.url, "POST", "/api/tournaments",
                {"id": "sun", "settings": settings, "verifiable": False}, token=op)  # fmt: skip
    assert made[0] == 201, made

    def me(token: str) -> tuple[int, Any]:
        return call(server.url, "GET", "/api/tournaments/sun/me", token=token)

    def version() -> int:
        with sqlite3.connect(tmp_path / "table.db") as db:
            return int(db.execute("SELECT version FROM mtts WHERE id = 'sun'").fetchone()[0])

    async def resumed(tab: aiohttp.ClientSession, body: Any = None) -> dict[str, Any]:
        async with tab.post("/api/resume", json=body) as answer:
            return dict(await answer.json())

    async def run() -> None:
        jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
        async with aiohttp.ClientSession(server.url, cookie_jar=jar) as tab:
            path = "/api/tournaments/sun/register"
            entry = await with_resume_cookie(tab, path, {"name": "Ann"})
            assert set(entry) == {"tournament", "player", "token"}, "no resume token"
            [kept] = list(jar)
            assert int(kept["max-age"]) == 14 * 24 * 3600  # registration may open days ahead
            # a stray cookie for the tournament changes nothing, not even its version
            at = version()
            async with aiohttp.ClientSession(server.url) as other:
                stray = {"Cookie": f"{kept.key}=not-a-resume-token"}
                async with other.post("/api/resume", headers=stray) as answer:
                    assert (await answer.json()) == {"seats": [], "tournaments": []}
            assert version() == at
            # a new tab before the start: the entry, with a new token; the old one spent
            found = await resumed(tab)
            assert found["seats"] == [] and len(found["tournaments"]) == 1, found
            [before] = found["tournaments"]
            assert before["tournament"] == "sun" and before["player"] == entry["player"]
            assert (before["name"], before["table"], before["seat"]) == ("Ann", None, None)
            assert me(entry["token"])[0] == 401
            assert me(before["token"])[1]["name"] == "Ann"
            for number in range(3):
                bot = {"name": f"Bot {number}", "bot": "station"}
                made = call(server.url, "POST", "/api/tournaments/sun/bots", bot, token=op)
                assert made[0] == 201, made
            assert call(server.url, "POST", "/api/tournaments/sun/start", {}, token=op)[0] == 200
            seated = me(before["token"])[1]
            assert seated["table"] == "sun-1"
            spent = next(iter(jar)).value
            # a new tab once seated: the seat at the table, with a new token
            [after] = (await resumed(tab, {"tournament": "sun"}))["tournaments"]
            assert (after["table"], after["seat"]) == (seated["table"], seated["seat"])
            assert next(iter(jar)).value != spent, "the resume token rotates"
            assert view(server.url, after["token"], "sun-1")["you"]["name"] == "Ann"
            old = call(server.url, "GET", "/api/tables/sun-1/view", token=before["token"])
            assert old[0] == 401, "the old tab's token is spent at the table too"
            rebuy = call(
                server.url, "POST", "/api/tournaments/sun/rebuy", {}, token=before["token"]
            )
            assert rebuy[0] == 401, rebuy
            assert me(after["token"])[1]["table"] == "sun-1"
            # the spent resume token recovers nothing, and its cookie is cleared
            async with aiohttp.ClientSession(server.url) as other:
                name = next(iter(jar)).key
                async with other.post(
                    "/api/resume", headers={"Cookie": f"{name}={spent}"}
                ) as answer:
                    assert (await answer.json())["tournaments"] == []
                    assert "Max-Age=0" in answer.headers["Set-Cookie"]
            # a seat at a cash table too: each call trades one cookie, the one asked for
            # (a tournament's address names its entry), else the seat; the other holds
            cash = await with_resume_cookie(tab, "/api/tables/main/join", {"name": "Ann"})
            [entry_again] = (await resumed(tab, {"tournament": "sun"}))["tournaments"]
            assert view(server.url, cash["token"])["you"]["name"] == "Ann", "the seat holds"
            both = await resumed(tab)
            assert both["tournaments"] == [] and len(both["seats"]) == 1
            assert me(entry_again["token"])[1]["table"] == "sun-1", "the entry holds"
            refused = call(server.url, "POST", "/api/resume", {"tournament": 7})
            assert refused[0] == 400 and refused[1]["error"]["reason"] == "bad_field", refused
            # once the tournament is over for them (here: cancelled) there is nothing to resume
            assert call(server.url, "POST", "/api/tournaments/sun/cancel", {}, token=op)[0] == 200
            assert (await resumed(tab, {"tournament": "sun"}))["tournaments"] == []
            assert [c.key for c in jar] == [cookies.cookie_name("main")], "the entry's is cleared"

    try:
        asyncio.run(run())
    finally:
        server.stop()


def test_rate_limits_answer_429_with_retry_after_and_change_nothing(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    db = tmp_path / "table.db"
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "6", "--clock", "60",
         "--rate-limits", "join=2/60,act=3/60,bots=1/60,download=2/60", "--metrics-port", "0"],
    )  # fmt: skip
    try:
        base = server.url
        _, token = join(base, "Ann")
        join(base, "Bob")
        request = urllib.request.Request(
            base + "/api/tables/main/join", data=b'{"name": "Cy"}', method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 429
        assert int(refused.value.headers["Retry-After"]) >= 1
        assert json.loads(refused.value.read())["error"]["reason"] == "rate_limited"
        assert (
            call(base, "POST", "/api/tables/main/bots", {"kind": "station"}, token=token)[0] == 200
        )
        status, answer = call(
            base, "POST", "/api/tables/main/bots", {"kind": "station"}, token=token
        )
        assert status == 429, answer
        for _ in range(3):
            assert call(base, "POST", "/api/tables/main/act", STALE, token=token)[0] == 409
        status, answer = call(base, "POST", "/api/tables/main/act", STALE, token=token)
        assert status == 429, answer
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT count(*) FROM seats").fetchone() == (3,)
        # a player's history (a table's hands read and packed): its own bucket
        assert [download(base, "/api/tables/main/history", token)[0] for _ in range(3)] == [
            200,
            200,
            429,
        ]
        assert server.metric("stud_table_rate_limited_total", 'route="download"') == 1
        assert server.metric("stud_table_rate_limited_total", 'route="join"') == 1
        assert server.metric("stud_table_rate_limited_total", 'route="act"') == 1
    finally:
        server.stop()

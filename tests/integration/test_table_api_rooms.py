"""stud-table's operator API and hand-history downloads against a real stud-server: only
the operator token creates tables (checked field by field, never logged); a player's
download holds the hands of their own sitting only, in the players' rendering, even when
someone else held the same seat before, and after leaving too (the history token that came
with the seat, which opens nothing else); the operator's holds every hand, audited."""

from __future__ import annotations

import io
import subprocess
import sys
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.polling import poll_until
from support.table_harness import TableServer, call, join, players_rendering, view

OPERATOR = "the-operator-token-of-this-test-0123456789"
PASSIVE = ("check", "call", "bring_in")


def download(base: str, path: str, token: str | None) -> tuple[int, dict[str, str]]:
    """(status, {file name: text}) of a zip download."""
    request = urllib.request.Request(base + path)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert answer.headers["Content-Type"] == "application/zip"
            assert answer.headers["Content-Disposition"].startswith("attachment;")
            with zipfile.ZipFile(io.BytesIO(answer.read())) as archive:
                return answer.status, {n: archive.read(n).decode() for n in archive.namelist()}
    except urllib.error.HTTPError as error:
        return error.code, {}


def play_until(base: str, token: str, hands_over: int) -> set[str]:
    """Plays passively until ``hands_over`` hands this seat acted in are over: their ids."""
    acted: set[str] = set()
    seen: set[str] = set()

    def step() -> bool:
        page = view(base, token)
        hand = page["hand"]
        if hand and hand["over"] and hand["id"] in acted:
            seen.add(hand["id"])
        if page["legal"]:
            move = next(m for m in page["legal"] if m["action"] in PASSIVE)
            body = {"action": move["action"], "hand": hand["id"], "seq": hand["seq"]}
            if "to" in move:
                body["to"] = move["to"]
            if call(base, "POST", "/api/tables/main/act", body, token)[0] == 200:
                acted.add(hand["id"])
        return len(seen) >= hands_over

    poll_until(step, f"{hands_over} hands", 300)  # a bound only: a busy machine is slow
    return seen


def test_operators_create_tables_and_players_download_only_their_own_hands(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    engine = live_server()
    secret = tmp_path / "operator"
    secret.write_text(OPERATOR, encoding="utf-8")
    server = TableServer(
        engine.target, f"sqlite:///{tmp_path / 'table.db'}",
        ["--seats", "2", "--bots", "station", "--clock", "120", "--pause", "0.2",
         "--bot-delay", "0.05", "--operator-token-file", str(secret)],
    )  # fmt: skip
    closed = TableServer(engine.target, f"sqlite:///{tmp_path / 'other.db'}")
    try:
        base = server.url
        level = {"ante": 1, "bring_in": 5, "small_bet": 10}
        body = {"id": "sng-1", "seats": 3, "tournament": {"levels": [level], "payouts": [10000]}}
        assert call(base, "POST", "/api/tables", body)[0] == 401
        assert call(base, "POST", "/api/tables", body, token=OPERATOR + "x")[0] == 401
        status, answer = call(closed.url, "POST", "/api/tables", body, token=OPERATOR)
        assert (status, answer["error"]["reason"]) == (403, "no_operator")
        status, joined = call(base, "POST", "/api/tables/main/join", {"name": "Ann"})
        assert status == 200, joined
        seat_token, ann_receipt = joined["token"], joined["history_token"]
        assert ann_receipt != seat_token
        assert call(base, "POST", "/api/tables", body, token=seat_token)[0] == 401
        bad = {**body, "seats": 11}
        status, answer = call(base, "POST", "/api/tables", bad, token=OPERATOR)
        assert (status, answer["error"]["reason"]) == (400, "bad_field")
        assert "seats" in answer["error"]["message"]
        assert call(base, "POST", "/api/tables", body, token=OPERATOR) == (
            201, {"table": "sng-1", "created": True})  # fmt: skip
        assert call(base, "POST", "/api/tables", body, token=OPERATOR)[0] == 409
        listed = {t["id"]: t for t in call(base, "GET", "/api/tables")[1]["tables"]}
        assert listed["sng-1"]["state"] == "registering"
        assert listed["main"]["kind"] == "cash" and listed["main"]["seated"] == 2

        # Ann plays two hands, downloads them, leaves; Cy takes her seat and plays one
        ann_hands = play_until(base, seat_token, 2)
        status, ann_files = download(base, "/api/tables/main/history", seat_token)
        assert status == 200 and len(ann_files) >= 2
        ann_seat = view(base, seat_token)["you"]["seat"]
        call(base, "POST", "/api/tables/main/leave", {}, seat_token)
        # at the end of the hand in progress (the clock acts for her at once); the bound
        # only keeps a broken run from hanging on a busy machine
        poll_until(lambda: call(base, "GET", "/api/tables/main/view", token=seat_token)[0] == 401,
                   "Ann to leave", 300)  # fmt: skip
        # her seat token is gone; her history token still downloads her sitting's hands
        assert download(base, "/api/tables/main/history", seat_token)[0] == 401
        status, ann_after = download(base, "/api/tables/main/history", ann_receipt)
        assert status == 200 and ann_files.items() <= ann_after.items()
        cy_seat, cy_token = join(base, "Cy")
        assert cy_seat == ann_seat
        cy_hands = play_until(base, cy_token, 1)
        status, cy_files = download(base, "/api/tables/main/history", cy_token)
        assert status == 200 and cy_files
        assert download(base, "/api/tables/main/history", ann_receipt) == (200, ann_after)
        # it opens nothing else: not another table's histories, a seat, or the audit
        for path in ("/api/tables/sng-1/history", "/api/operator/tables/main/history"):
            assert download(base, path, ann_receipt)[0] == 401, path
        status, refused = call(base, "GET", "/api/tables/main/view", token=ann_receipt)
        assert (status, refused["error"]["reason"]) == (401, "bad_token")
        status, refused = call(base, "POST", "/api/tables/main/leave", {}, ann_receipt)
        assert (status, refused["error"]["reason"]) == (401, "bad_token")
        assert download(base, "/api/tables/main/history", None)[0] == 401
        status, audit = download(base, "/api/operator/tables/main/history", OPERATOR)
        assert status == 200
        assert download(base, "/api/operator/tables/main/history", seat_token)[0] == 401
        assert download(base, "/api/operator/tables/main/history?audience=x", OPERATOR)[0] == 400
    finally:
        server.stop()
        closed.stop()
    # the operator's CLI: the same audit histories, written to a file
    out = tmp_path / "audit.zip"
    db = f"sqlite:///{tmp_path / 'table.db'}"
    cli = [sys.executable, "-m", "studclients.table", "--target", engine.target, "--db", db,
           "--table", "main", "--export-history", str(out)]  # fmt: skip
    done = subprocess.run(cli, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as archive:
        exported = {n: archive.read(n).decode() for n in archive.namelist()}
    assert exported == audit and f"{len(audit)} hands of table main (audit)" in done.stdout
    missing = subprocess.run([*cli[:-4], "--table", "none", "--export-history", str(out)],
                             capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert missing.returncode == 1 and "there is no table 'none'" in missing.stderr

    def ids(files: dict[str, str]) -> set[str]:
        return {
            name.split("-", 1)[1].removesuffix(".phh") for name in files if name != "skipped.txt"
        }

    assert ann_hands <= ids(ann_files) and cy_hands <= ids(cy_files)
    assert not ids(ann_after) & ids(cy_files), "a player got another sitting's hands"
    assert ids(ann_files) | ids(cy_files) <= ids(audit)
    for text in [*ann_files.values(), *cy_files.values()]:
        assert players_rendering(text)
    assert all("_deck =" in text for text in audit.values())
    assert OPERATOR not in server.output() and OPERATOR not in closed.output()


def test_a_tournament_is_created_only_from_a_well_formed_request(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    """The operator's create of a multi-table tournament checks the id, name, seed, game
    and settings, field by field (400 naming it), and a refusal creates nothing."""
    engine = live_server()
    secret = tmp_path / "operator"
    secret.write_text(OPERATOR, encoding="utf-8")
    server = TableServer(
        engine.target, f"sqlite:///{tmp_path / 'table.db'}",
        ["--operator-token-file", str(secret)],
    )  # fmt: skip
    try:
        base = server.url
        level = {"ante": 1, "bring_in": 5, "small_bet": 10}
        good = {"id": "sun-1", "name": "Sunday", "game": "razz", "seed": "drawn-by-the-room",
                "settings": {"levels": [level], "payouts": [10000], "seats": 4}}  # fmt: skip
        assert call(base, "POST", "/api/tournaments", good)[0] == 401
        bad_fields = [
            ({"id": "Sun 1"}, "id"), ({"id": "x" * 49}, "id"), ({"id": "-sun"}, "id"),
            ({"name": "tab\there"}, "name"), ({"name": ""}, "name"), ({"name": 7}, "name"),
            ({"seed": "has space"}, "seed"), ({"seed": "s" * 65}, "seed"), ({"seed": 5}, "seed"),
            ({"verifiable": "yes"}, "verifiable"), ({"verifiable": 1}, "verifiable"),
        ]  # fmt: skip
        for change, field in bad_fields:
            status, answer = call(base, "POST", "/api/tournaments", {**good, **change},
                                  token=OPERATOR)  # fmt: skip
            assert (status, answer["error"]["reason"]) == (400, "bad_field"), (change, answer)
            assert answer["error"]["message"].startswith(field), answer
        status, answer = call(base, "POST", "/api/tournaments", {**good, "game": "holdem"},
                              token=OPERATOR)  # fmt: skip
        assert (status, answer["error"]["reason"]) == (400, "bad_game")
        status, answer = call(base, "POST", "/api/tournaments",
                              {**good, "settings": {"levels": []}}, token=OPERATOR)  # fmt: skip
        assert (status, answer["error"]["reason"]) == (400, "bad_settings")
        assert call(base, "GET", "/api/tournaments")[1] == [], "a refusal created nothing"
        assert call(base, "POST", "/api/tournaments", good, token=OPERATOR)[0] == 201
        assert call(base, "POST", "/api/tournaments", good, token=OPERATOR)[0] == 409
        made = call(base, "GET", "/api/tournaments/sun-1")[1]
        assert (made["name"], made["seed"], made["game"]) == ("Sunday", "drawn-by-the-room",
                                                              "Razz"), made  # fmt: skip
        assert made["verifiable"] is True, "verifiable deals unless turned off"
        off = {**good, "id": "sun-2", "verifiable": False}
        assert call(base, "POST", "/api/tournaments", off, token=OPERATOR)[0] == 201
        assert call(base, "GET", "/api/tournaments/sun-2")[1]["verifiable"] is False
    finally:
        server.stop()

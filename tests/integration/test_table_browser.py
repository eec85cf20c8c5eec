"""The web table in a real browser (Debian's chromium, driven by Playwright): two players in
two browser contexts (a desktop and a phone-sized one) join, play full hands against each
other and a bot by clicking and by keyboard, see the showdown, and the chips add up. A
stud-table restart in the middle of a hand is ridden out by the pages (they reconnect).

Every pushed WebSocket message and DOM snapshot of each seat is checked against the deal
read back from the database: it holds no card but the seat's own, the face-up ones, and
(once the hand is over) the hands shown at showdown: never another seat's down card
before the showdown reveals it, never a mucked hand (R-MUCK). Each seat's page at the
showdown is kept as a screenshot in build/test-artifacts/table-browser/ (STUD_ARTIFACTS)."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from stud_api.stud.v1 import stud_engine_pb2 as pb
from support.paths import ARTIFACTS, require_tool
from support.table_harness import TableServer

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")
SCREENSHOTS = ARTIFACTS / "table-browser"
PASSIVE = ("check", "call", "bring_in")
HANDS = 2
PLAYERS = 3  # two people and a station bot
STACK = 1000


def deal_of(db: Path) -> dict[str, dict[str, Any]]:
    """Per hand, from the stored history: each table seat's cards (its own view), every card
    ever face up, the seats revealed at showdown, and the start and final stacks."""
    hands: dict[str, dict[str, Any]] = {}
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT hand_id, seat_map, start_stacks FROM hands").fetchall()
        for hand_id, seat_map_text, start_text in rows:
            seat_map = json.loads(seat_map_text)
            steps = conn.execute(
                'SELECT "update" FROM history WHERE hand_id = ? ORDER BY seq', (hand_id,)
            ).fetchall()
            up: set[str] = set()
            last = pb.HandUpdate()
            for (data,) in steps:
                last = pb.HandUpdate.FromString(data)
                for info in last.spectator.seats:
                    up.update(info.up_cards)
                if last.spectator.HasField("community_card"):
                    up.add(last.spectator.community_card)
            own = {
                seat_map[i]: set(filter(None, last.seats[i].seats[i].cards))
                for i in range(len(seat_map))
            }
            hands[hand_id] = {
                "own": own,
                "up": up,
                "revealed": {seat_map[i] for i in last.result.revealed},
                "over": last.over,
                "start": json.loads(start_text),
                "final": list(last.result.stacks),
            }
    return hands


def leaks(seat: int, text: str, hand_id: str, over: bool, deal: dict[str, Any]) -> set[str]:
    """Cards in ``text`` that table seat ``seat`` may not see in hand ``hand_id``."""
    allowed = set(deal["up"]) | deal["own"].get(seat, set())
    if over:
        for shown in deal["revealed"]:
            allowed |= deal["own"][shown]
    return set(CARD.findall(text)) - allowed


def test_two_players_play_full_hands_in_chromium(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    chromium = require_tool("chromium", "make table-deps (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    engine = live_server()
    db = tmp_path / "table.db"
    server = TableServer(
        engine.target,
        f"sqlite:///{db}",
        ["--seats", "4", "--bots", "station", "--clock", "120", "--pause", "3",
         "--bot-delay", "0.2", "--variant", "seven"],
    )  # fmt: skip
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    frames: dict[str, list[str]] = {"Ann": [], "Bob": []}
    snapshots: dict[str, list[tuple[str, bool, str]]] = {"Ann": [], "Bob": []}
    screenshots: list[Path] = []
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            sizes = {"Ann": {"width": 1280, "height": 900}, "Bob": {"width": 390, "height": 844}}
            pages = {}
            for name, size in sizes.items():
                page = browser.new_context(viewport=size).new_page()
                page.on(
                    "websocket",
                    lambda ws, name=name: ws.on(
                        "framereceived",
                        lambda payload, name=name: frames[name].append(str(payload)),
                    ),
                )
                page.goto(server.url + "/")
                page.get_by_label("Your name").fill(name)
                page.get_by_role("button", name="Sit down").click()
                page.wait_for_selector("#seats li.you")
                pages[name] = page
            seat_of = {
                name: int(page.locator("#seats li.you").get_attribute("data-seat") or -1)
                for name, page in pages.items()
            }
            seen_showdowns: dict[str, set[str]] = {"Ann": set(), "Bob": set()}
            restarted = False
            moves = 0
            deadline = time.monotonic() + 240
            while min(len(s) for s in seen_showdowns.values()) < HANDS:
                assert time.monotonic() < deadline, "the hands did not finish in time"
                for name, page in pages.items():
                    html = page.content()  # one snapshot: its hand and whether it is over
                    found = re.search(r'data-hand="([0-9a-f]*)"', html)
                    hand_id = found.group(1) if found else ""
                    over = re.search(r'<section id="showdown"[^>]*\shidden', html) is None
                    snapshots[name].append((hand_id, over, html))
                    if over and hand_id and hand_id not in seen_showdowns[name]:
                        if page.locator("#shown li").count() == 0:
                            continue  # the showdown list is rendered with the hand's end
                        seen_showdowns[name].add(hand_id)
                        shot = (
                            SCREENSHOTS
                            / f"{name}-seat{seat_of[name]}-hand{len(seen_showdowns[name])}.png"
                        )
                        page.screenshot(path=str(shot), full_page=True)
                        screenshots.append(shot)
                        continue
                    buttons = page.locator("#moves button:not([disabled])")
                    if buttons.count() == 0:
                        continue
                    actions = [
                        buttons.nth(i).get_attribute("data-action") for i in range(buttons.count())
                    ]
                    kind = next(k for k in PASSIVE if k in actions)
                    button = page.locator(f'#moves button[data-action="{kind}"]')
                    if name == "Bob" and moves % 2:
                        key = button.get_attribute("aria-keyshortcuts") or ""
                        page.keyboard.press(key)  # by keyboard on the phone, every other move
                    else:
                        button.click()
                    moves += 1
                    if len(seen_showdowns["Ann"]) == 1 and not restarted and moves > 6:
                        server.restart()  # mid-hand: the pages must reconnect and go on
                        restarted = True
                page = pages["Ann"]
                page.wait_for_timeout(150)
            for page in pages.values():
                assert page.locator("#connection").inner_text() == "live"
            browser.close()
    finally:
        server.stop()

    assert restarted
    deal = deal_of(db)
    finished = [h for h in deal.values() if h["over"]]
    assert len(finished) >= HANDS
    for hand in finished:  # chips add up, hand by hand
        assert sum(hand["final"]) == sum(hand["start"]) == len(hand["start"]) * STACK

    for name, received in frames.items():
        pushes = [json.loads(f) for f in received]
        assert pushes, f"{name}'s page got no pushed update"
        for message in pushes:
            assert '"salt"' not in json.dumps(message) and '"deck"' not in json.dumps(message)
            if message.get("type") != "table" or not message.get("hand"):
                continue
            hand = message["hand"]
            bad = leaks(
                seat_of[name], json.dumps(message), hand["id"], hand["over"], deal[hand["id"]]
            )
            assert not bad, f"{name} was pushed {bad} in hand {hand['id']} seq {hand['seq']}"
            if hand["over"]:
                total = sum(s["stack"] for s in message["seats"] if not s["empty"])
                assert total == PLAYERS * STACK
        for hand_id, over, html in snapshots[name]:
            if hand_id:
                bad = leaks(seat_of[name], html, hand_id, over, deal[hand_id])
                assert not bad, f"{name}'s page showed {bad} in hand {hand_id}"
    mucked_somewhere = any(len(h["revealed"]) < PLAYERS for h in finished)
    print("showdown screenshots:", *screenshots, sep="\n  ")
    print("a hand was mucked at showdown:", mucked_somewhere)
    assert len(screenshots) >= 2 * HANDS

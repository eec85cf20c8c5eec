"""The web table in a real browser (Debian's chromium, driven by Playwright), for what a
card room's players meet: a player who closes the tab times out twice, is sat out, and gets
the seat back on a new tab (the resume cookie) and is dealt in again; a Hi-Lo pot split
between two players shows both halves, the low, and each shown hand's best five; on a
phone (390x844) with four players the moves are on screen on the player's turn, they keep
keyboard focus across a push, and the turn is announced to screen readers; a game server
that goes down is told in plain words, and the page says nothing of it once it is back."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from studengine.cards import FULL_DECK, format_card
from studengine.rules.hand import start_hand
from studengine.rules.types import ActionType, Table, Variant
from support.paths import require_tool
from support.polling import poll_until
from support.server_harness import free_port, new_key_spec
from support.table_harness import TableServer, call, join, table_on_new_engine, view

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}
PASSIVE = ("check", "call", "bring_in")


@pytest.fixture
def browser() -> Iterator[Any]:
    chromium = require_tool("chromium", "make table-deps (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def sit_down(context: Any, url: str, name: str) -> Any:
    page = context.new_page()
    page.goto(url + "/")
    page.wait_for_selector("#join-table option", state="attached")  # the lobby's tables
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Sit down").click()
    page.wait_for_selector("#seats li.you")
    return page


def play_passively(page: Any) -> bool:
    """Clicks the passive move if it is this page's turn (True when it moved)."""
    for kind in PASSIVE:
        button = page.locator(f'#moves button[data-action="{kind}"]:not([disabled])')
        if button.count():
            button.first.click()
            return True
    return False


def split_deck() -> tuple[list[str], tuple[int, int], tuple[int, int]]:
    """A Hi-Lo deck where two players calling down to the showdown split the pot: one
    takes the high half, the other the low. (deck, (high seat, share), (low seat, share))"""
    rng = random.Random(20)
    table = Table(ante=5, bring_in=10, small_bet=20, big_bet=40, open_pair_big_bet=False)
    while True:
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        hand, _ = start_hand(Variant.SEVEN_CARD_STUD_HI_LO, table, [1000, 1000], 0, deck)
        while not hand.is_over:
            kinds = {legal.type for legal in hand.legal_actions()}
            kind = next(
                k for k in (ActionType.CHECK, ActionType.CALL, ActionType.BRING_IN) if k in kinds
            )
            hand.act(hand.to_act, kind)
        pot = hand.result.pots[0]
        if len(pot.winners) == 1 and len(pot.low_winners) == 1 and pot.winners != pot.low_winners:
            high, low = (pot.winners[0], pot.shares[0]), (pot.low_winners[0], pot.low_shares[0])
            return [format_card(c) for c in deck], high, low


def test_a_hi_lo_split_pot_shows_both_halves(
    live_server: Callable[..., Any], tmp_path: Path, browser: Any
) -> None:
    deck, (high_seat, high_share), (low_seat, low_share) = split_deck()
    decks = tmp_path / "decks.json"
    decks.write_text(json.dumps([deck]))
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--variant", "hilo", "--seats", "2", "--clock", "120", "--pause", "60",
         "--test-decks", str(decks)],
        allow_test_decks=True,
    )  # fmt: skip
    try:
        pages = [sit_down(browser.new_context(), server.url, name) for name in ("Ann", "Bob")]
        names = ["Ann", "Bob"]
        first = pages[0]

        def showdown() -> bool:
            for page in pages:
                play_passively(page)
            return first.locator("#showdown:not([hidden]) #pots li").count() > 0

        poll_until(showdown, timeout=120, what="the showdown")
        lines = first.locator("#pots li").all_inner_texts()
        assert lines[0] == f"Main pot of {high_share + low_share}, split:", lines
        high = f"High half: {names[high_seat]} wins {high_share} with "
        low = f"Low half: {names[low_seat]} wins {low_share} with "
        assert any(line.startswith(high) for line in lines), lines
        assert any(line.startswith(low) and line.endswith(" low") for line in lines), lines
        shown = first.locator("#shown li.shown-hand")
        assert shown.count() == 2
        for i in range(2):
            best = shown.nth(i).locator(".best").first.locator(".card")
            assert best.count() == 5, "each shown hand's best five"
        assert first.locator("#shown li.shown-hand .best").count() >= 3, "the low's five too"
    finally:
        server.stop()


def test_on_a_phone_the_moves_are_on_screen_keep_focus_and_are_announced(
    live_server: Callable[..., Any], tmp_path: Path, browser: Any
) -> None:
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "6", "--bots", "station,station,station", "--bot-delay", "0.3",
         "--clock", "120", "--pause", "1"],
    )  # fmt: skip
    try:
        phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        page = sit_down(phone, server.url, "Ann")
        page.wait_for_selector("#moves button", timeout=60_000)
        for button in page.locator("#moves button").all():
            box = button.bounding_box()
            assert box is not None
            assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], box
        assert page.locator("#announce").inner_text().startswith("Your move: ")
        assert page.locator("#announce").get_attribute("aria-live") == "assertive"
        # keyboard focus on a move survives a push (someone joining the table)
        second = page.locator("#moves button").nth(1)
        second.focus()
        focused = second.get_attribute("data-action")
        join(server.url, "Bob")
        page.wait_for_function(
            "() => [...document.querySelectorAll('#seats .seat-name')]"
            ".some((el) => el.textContent.startsWith('Bob'))"
        )
        assert page.evaluate("document.activeElement.dataset.action") == focused
        # two sizes of one kind: the larger on the capital key (as stud-play has it)
        keys = page.evaluate(
            "import('/static/turn.js').then((turn) => turn.moveKeys(["
            "{action: 'fold'}, {action: 'bet', to: 10}, {action: 'bet', to: 20},"
            "{action: 'raise', to: 40}, {action: 'raise', to: 80}]))"
        )
        assert keys == ["f", "b", "B", "r", "R"]
    finally:
        server.stop()


def test_a_closed_tab_times_out_twice_sits_out_and_returns(
    live_server: Callable[..., Any], tmp_path: Path, browser: Any
) -> None:
    server = table_on_new_engine(
        live_server,
        tmp_path,
        ["--seats", "4", "--bots", "station,station", "--bot-delay", "0.1", "--pause", "0.5",
         "--clock", "1", "--time-bank", "1", "--bank-every", "1"],
    )  # fmt: skip
    try:
        context = browser.new_context()
        page = sit_down(context, server.url, "Ann")
        token = json.loads(page.evaluate("sessionStorage.getItem('stud-seat')"))["token"]
        page.close()  # the tab is closed: nobody answers Ann's clock

        away = poll_until(
            lambda: (v := view(server.url, token))["you"]["away"] and v,
            timeout=120,
            what="Ann, gone, marked away",
        )
        seat = away["you"]["seat"]
        dealt_without = poll_until(
            lambda: (v := view(server.url, token))["hand"] and not v["hand"]["over"]
            and v["hand"]["number"] > away["hand"]["number"] and v,
            what="a hand dealt without Ann",
        )  # fmt: skip
        assert not dealt_without["seats"][seat]["in_hand"]

        page = context.new_page()  # a new tab of the same browser
        page.goto(server.url + "/")
        page.wait_for_selector("#away:not([hidden])")
        assert page.locator("#seats li.you .seat-name").inner_text().startswith("Ann")
        status, _ = call(server.url, "GET", "/api/tables/main/view", token=token)
        assert status == 401, "the closed tab's token was rotated away"
        page.get_by_role("button", name="I'm back: deal me in").click()
        page.wait_for_selector("#away", state="hidden")
        page.wait_for_function(
            "() => document.querySelector('#seats li.you .cards .card') !== null && !document"
            ".querySelector('#seats li.you .status').textContent.includes('sitting out')",
            timeout=60_000,
        )
    finally:
        server.stop()


def test_an_engine_down_is_told_plainly_and_cleared_from_the_page_when_back(
    live_server: Callable[..., Any], tmp_path: Path, browser: Any
) -> None:
    port, key = free_port(), new_key_spec()
    engine = live_server(key_specs=[key], args=["--port", str(port)])
    db = f"sqlite:///{tmp_path / 'table.db'}"
    server = TableServer(engine.target, db, ["--seats", "2", "--bots", "station", "--clock", "120"])
    try:
        page = sit_down(browser.new_context(), server.url, "Ann")
        badge = page.locator("#connection")
        page.wait_for_selector("#moves button", timeout=60_000)
        engine.stop()
        assert play_passively(page)  # a move with the engine down
        page.wait_for_function(
            "() => document.querySelector('#connection').textContent !== 'live'", timeout=30_000
        )
        shown = page.locator("body").inner_text()
        assert "cannot be reached" in shown, shown
        for internal in ("127.0.0.1", str(port), "ipv4", "UNAVAILABLE", "StatusCode"):
            assert internal not in shown, f"{internal!r} on the page: {shown}"

        live_server(key_specs=[key], args=["--port", str(port)])  # back, same address and key
        page.wait_for_function(
            "() => document.querySelector('#connection').textContent === 'live'", timeout=30_000
        )
        assert badge.inner_text() == "live"
        shown = page.locator("body").inner_text()
        assert "cannot be reached" not in shown, f"the engine is back, the page says: {shown}"
    finally:
        server.stop()

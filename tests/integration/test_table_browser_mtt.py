"""A multi-table tournament in a real browser (Debian's chromium, driven by Playwright): an
operator creates it from the lobby's form, registers eight bots, pauses it, starts it and
resumes it from its page; one person registers from the tournament's page and plays it
at three tables of three. She rebuys while it is paused (seated, no hand dealt: her stack
is the starting stack, so a rebuy is on sale) and takes the add-on at the break, and the
prize pool grows by both. Her table (table 3, by the seed) breaks at the first bust and
her page follows her to her new seat without a new join (the push says where); it plays
to a winner, and the tournament's page shows the final standings with the prizes adding
up to the pool. A second tournament is cancelled from its page. Small stacks, fast levels,
bots that act at once: it takes well under two minutes, and every wait is bounded."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studclients.table.mtt.seating import draw
from support.paths import ARTIFACTS
from support.polling import poll_until
from support.table_harness import call
from test_table_browser_rooms import OPERATOR, act, browser_tools, launch, operator_file, serve

SCREENSHOTS = ARTIFACTS / "table-mtt"
BOTS = 8
SEATS = 4
#: Until she has moved she folds (she is still there when her table breaks); then she
#: plays on.
FOLDING = ("fold", "check", "bring_in", "call")
#: Clicks the button of that id if it is shown, at once in the page: an offer comes and
#: goes (the add-on with the break), and a check and a click made apart can find it gone
#: in between (CI saw it once: the click then waited its 30 s for a button that did not
#: come back).
CLICK_IF_SHOWN = """id => {
  const button = document.getElementById(id);
  if (button.hidden || button.offsetParent === null) return false;
  button.click();
  return true;
}"""
PLAYING = ("raise", "bet", "complete", "call", "check", "bring_in")


def seed_breaking_her_table() -> str:
    """A seed whose draw seats Ann (player 1, the first to register) at table 3: nine
    players on three tables of four seats, so the first bust breaks table 3."""
    players = list(range(1, BOTS + 2))
    return next(f"s{n}" for n in range(500) if 1 in draw(players, SEATS, f"s{n}")[3].values())


def create_from_the_lobby(page: Any, base: str, mtt_id: str, seed: str) -> None:
    page.goto(base + "/")
    page.get_by_text("Operators: create a multi-table tournament").click()
    fields = {"#mc-token": OPERATOR, "#mc-id": mtt_id, "#mc-name": "Quick stud",
              "#mc-seats": str(SEATS), "#mc-stack": "100",
              "#mc-levels": "1/5/10,5/10/20,10/25/50,25/50/100,50/100/200,100/200/400",
              "#mc-every": "3", "#mc-payouts": "70,30", "#mc-buy-in": "10", "#mc-min": "4",
              "#mc-rebuy-levels": "2", "#mc-rebuy": "10/100", "#mc-breaks": "1",
              "#mc-addon-break": "1", "#mc-addon": "10/100", "#mc-break-seconds": "6",
              "#mc-seed": seed}  # fmt: skip
    for selector, value in fields.items():
        page.fill(selector, value)
    assert page.is_checked("#mc-verifiable")  # verifiable deals unless unticked
    page.get_by_role("button", name="Create the tournament").click()
    page.wait_for_selector(f"#mtt-create-result:has-text('Created tournament {mtt_id}')")
    page.locator(f'#lobby-tournaments tr[data-tournament="{mtt_id}"]').wait_for()


def operate(page: Any, verb: str, done: str) -> None:
    page.locator(f'#mtt-operator button[data-verb="{verb}"]').click()
    page.wait_for_selector(f"#mtt-operator-result:has-text('{done}')")


def pool_of(page: Any) -> int:
    return int(page.get_attribute("#mtt-bar", "data-prize-pool") or 0)


def bought_it(page: Any, before: int, pools: list[int]) -> bool:
    """After a click on the rebuy or add-on button: True when it was bought (refused while
    her table is in a hand), and then the bar's pool before and after go into ``pools``."""
    page.wait_for_selector("#mtt-buy-result:not(:empty)")
    if "your stack is" not in page.inner_text("#mtt-buy-result"):
        return False
    poll_until(lambda: pool_of(page) > before, "a larger pool", 10)
    pools += [before, pool_of(page)]
    return True


def test_a_three_table_tournament_in_chromium_follows_its_player_to_a_winner(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    chromium, sync_api = browser_tools()
    server = serve(live_server, tmp_path, ["--operator-token-file", str(operator_file(tmp_path)),
                                           "--pause", "1", "--bot-delay", "0",
                                           "--clock", "5"])  # fmt: skip
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    pushed: list[dict[str, Any]] = []
    tables_seen: list[str] = []
    notices: list[str] = []  # what her page said at each table
    pools: list[int] = []
    bought = {"rebuy": False, "addon": False}
    playwright, browser = launch(sync_api, chromium)
    try:
        desk = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        create_from_the_lobby(desk, server.url, "quick", seed_breaking_her_table())
        row = desk.locator('#lobby-tournaments tr[data-tournament="quick"]')
        assert "registering" in row.inner_text()
        assert call(server.url, "GET", "/api/tournaments/quick")[1]["verifiable"] is True

        ann = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
        ann.on("websocket", lambda ws: ws.on(
            "framereceived", lambda data: pushed.append(json.loads(data))))  # fmt: skip
        ann.goto(server.url + "/#t/quick")
        ann.fill("#mtt-name", "Ann")
        ann.get_by_role("button", name="Register").click()
        ann.wait_for_selector("#mtt-you-text:has-text('registered as Ann')")

        row.locator("a").click()  # the operator opens the tournament's page from the lobby
        desk.get_by_text("Operators: run this tournament").click()
        desk.fill("#mo-token", OPERATOR)
        desk.fill("#mo-bots", str(BOTS))
        desk.get_by_role("button", name="Register the bots").click()
        desk.wait_for_selector(f"#mtt-operator-result:has-text('{BOTS} bots registered')")
        operate(desk, "pause", "Paused")
        operate(desk, "start", f"Started: {BOTS + 1} players seated")
        desk.wait_for_selector("#mtt-status:has-text('paused by the operator')")
        desk.wait_for_selector("#mtt-tables tbody tr >> nth=2")  # three tables
        assert desk.locator("#mtt-tables tbody tr").count() == 3
        assert "Prize pool 90" in desk.inner_text("#mtt-pool")

        # her page goes to her table by itself when the tournament starts; paused, her
        # table deals nothing, and she rebuys at the starting stack
        ann.wait_for_selector("#seats li.you", timeout=20_000)
        before = poll_until(lambda: pool_of(ann), "the bar's prize pool", 10)
        # the bar asks once a second what is on sale
        poll_until(lambda: ann.evaluate(CLICK_IF_SHOWN, "rebuy"), "a rebuy on sale", 10)
        bought["rebuy"] = bought_it(ann, before, pools)
        assert ann.inner_text("#mtt-buy-result") == "Rebought: your stack is 200."
        operate(desk, "resume", "Resumed")
        desk.wait_for_selector("#mtt-status:not(:has-text('paused'))")
        began = time.monotonic()
        deadline = began + 150
        while desk.get_attribute("#mtt", "data-status") != "finished":
            assert time.monotonic() < deadline, "the tournament did not finish in time"
            if not ann.is_hidden("#table"):
                table = ann.get_attribute("#table", "data-table") or ""
                if table and (not tables_seen or tables_seen[-1] != table):
                    tables_seen.append(table)
                    notices.append(ann.inner_text("#mtt-moved"))
                    shot = SCREENSHOTS / f"ann-at-{table}.png"
                    ann.screenshot(path=str(shot), full_page=True)
                # she risks her chips only once moved: busting at table 3 before it
                # breaks would leave her nowhere to follow (CI saw it once)
                act(ann, PLAYING if len(tables_seen) > 1 else FOLDING)
                before = pool_of(ann)
                if not bought["addon"] and ann.evaluate(CLICK_IF_SHOWN, "addon"):  # the break
                    bought["addon"] = bought_it(ann, before, pools)
            ann.wait_for_timeout(100)
        took = time.monotonic() - began
        desk.wait_for_selector("#mtt-standings tbody tr >> nth=8")
        desk.screenshot(path=str(SCREENSHOTS / "final-standings.png"), full_page=True)
        rows = [desk.locator("#mtt-standings tbody tr").nth(i).inner_text().split("\t")
                for i in range(desk.locator("#mtt-standings tbody tr").count())]  # fmt: skip
        final_pool = desk.inner_text("#mtt-pool")

        # a second tournament, cancelled from its page: every entry refunded
        made = call(server.url, "POST", "/api/tournaments",
                    {"id": "spare", "name": "Spare", "settings": {
                        "levels": [{"ante": 0, "bring_in": 5, "small_bet": 10}], "every": 10,
                        "unit": "hands", "payouts": [10000], "buy_in": 10}},
                    token=OPERATOR)  # fmt: skip
        assert made[0] == 201, made
        desk.goto(server.url + "/#t/spare")  # the same page: its operator panel is open
        desk.wait_for_selector("#mtt-title:has-text('Spare')")
        operate(desk, "cancel", "Cancelled")
        desk.wait_for_selector("#mtt-status:has-text('Cancelled')")
        desk.goto(server.url + "/")
        desk.locator('#lobby-tournaments tr[data-tournament="quick"]').wait_for()
        listed = desk.inner_text('#lobby-tournaments tr[data-tournament="quick"]')
    finally:
        browser.close()
        playwright.stop()
        server.stop()
    print(f"tables {tables_seen}, notices {notices}, pools {pools}, played in {took:.0f} s")
    assert bought == {"rebuy": True, "addon": True}, bought
    assert pools == [90, 100, 100, 110], pools  # the bar's pool before and after each
    assert "Prize pool 110: 1st 77, 2nd 33" in final_pool, final_pool
    # her page followed her from table 3, the first to break, with no new join
    assert tables_seen[0] == "quick-3" and len(tables_seen) > 1, tables_seen
    assert notices[0] == "" and "your table broke" in notices[1], notices
    moves = [m for m in pushed if m.get("type") == "moved"]  # the push that moved her page
    assert moves and moves[0]["why"] == "break" and moves[0]["table"] == tables_seen[1], moves
    assert len(rows) == BOTS + 1 and [r[0] for r in rows[:2]] == ["1st", "2nd"], rows
    assert sum(int(r[5] or 0) for r in rows) == 110, rows  # the pool, all paid out
    assert "finished" in listed and "110" in listed, listed
    # her tables dealt verifiably: her browser's entropy went into her hands
    contributions = [
        c
        for m in pushed
        if m.get("type") == "table" and m.get("hand")
        for c in (m["hand"].get("deal") or {}).get("contributions") or []
    ]
    assert any(c["from"] == "player" and c["name"] == "Ann" for c in contributions), pushed[-1]


def test_a_new_tab_gets_a_tournament_entry_back_and_then_its_seat(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    """The resume cookie (HttpOnly, rotated at each use) brings a tournament player's entry
    back to a tab opened after closing hers: the tournament's page with her registration
    while it has not started, then her table, where she is the seat marked as hers. A tab
    opened at the tournament's address takes back that entry and nothing else: the seat
    she holds at a cash table in another tab stays hers there."""
    chromium, sync_api = browser_tools()
    server = serve(live_server, tmp_path, ["--operator-token-file", str(operator_file(tmp_path)),
                                           "--clock", "60", "--pause", "30"])  # fmt: skip
    settings = {"levels": [{"ante": 1, "bring_in": 5, "small_bet": 10}], "payouts": [10000],
                "seats": 4, "min_entrants": 2}  # fmt: skip
    made = call(server.url, "POST", "/api/tournaments",
                {"id": "sun", "name": "Sunday", "settings": settings}, token=OPERATOR)  # fmt: skip
    assert made[0] == 201, made
    playwright, browser = launch(sync_api, chromium)
    try:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        first = context.new_page()
        first.goto(server.url + "/#t/sun")
        first.fill("#mtt-name", "Ann")
        first.get_by_role("button", name="Register").click()
        first.wait_for_selector("#mtt-you-text:has-text('registered as Ann')")
        first.close()

        # a new tab on the lobby's address: to the tournament's page, registered
        second = context.new_page()
        second.goto(server.url + "/")
        second.wait_for_selector("#mtt-you-text:has-text('registered as Ann')")
        assert second.evaluate("location.hash") == "#t/sun"
        # she sits down at a cash table too (another tab's, as the page would): its cookie
        # lands beside the tournament's
        joined = context.request.post(server.url + "/api/tables/main/join",
                                      data={"name": "Ann"}).json()  # fmt: skip
        for number in range(3):
            bot = {"name": f"Bot {number}", "bot": "station"}
            assert (
                call(server.url, "POST", "/api/tournaments/sun/bots", bot, token=OPERATOR)[0] == 201
            )
        assert call(server.url, "POST", "/api/tournaments/sun/start", {}, token=OPERATOR)[0] == 200
        second.wait_for_selector("#seats li.you", timeout=20_000)  # it follows her to her table
        second.close()

        # a new tab at the tournament's address once seated: her tournament table
        third = context.new_page()
        third.goto(server.url + "/#t/sun")
        third.wait_for_selector("#table[data-table='sun-1'] #seats li.you", timeout=20_000)
        assert "Ann" in third.inner_text("#seats li.you")
        cash = call(server.url, "GET", "/api/tables/main/view", token=joined["token"])
        assert cash[0] == 200, "the cash seat's token is not traded by the tournament's tab"
        assert {c["name"]: c["httpOnly"] for c in context.cookies()} == {
            "stud_mtt_resume_c3Vu": True,  # base64url("sun")
            "stud_resume_bWFpbg": True,  # base64url("main")
        }
    finally:
        browser.close()
        playwright.stop()
        server.stop()

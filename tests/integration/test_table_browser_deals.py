"""A verifiable deal in a real browser (Debian's chromium, driven by Playwright): the
player's page shows the deck's commitment before the deal and sends its own entropy
(``crypto.getRandomValues``), the hand is dealt with it, and after the hand the player
opens its proof, downloads it, and ``stud-verify`` accepts the downloaded history; a copy
with two cards swapped is refused, naming the field."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.paths import require_tool
from support.table_harness import TableServer
from test_table_browser import CHROMIUM_ARGS, PASSIVE

STUD_VERIFY = str(Path(sys.executable).parent / "stud-verify")
#: Each state of the deal's section, recorded by the page itself as it changes (a
#: MutationObserver), so a state shown for a moment is not missed between two looks.
RECORD_DEAL = """
window.dealStates = [];
document.addEventListener("DOMContentLoaded", () => {
  const record = () => {
    const deal = document.getElementById("deal");
    const entry = {
      commitment: document.getElementById("deal-commitment").textContent,
      phase: deal.dataset.phase || "",
      shown: !deal.hidden,
      hand: document.getElementById("table").dataset.hand || "",
    };
    const last = window.dealStates[window.dealStates.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(entry)) window.dealStates.push(entry);
  };
  new MutationObserver(record).observe(document.body, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
});
"""


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([STUD_VERIFY, str(path)], capture_output=True, text=True, timeout=120)


def test_a_player_sees_the_commitment_first_and_stud_verify_accepts_the_downloaded_proof(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    chromium = require_tool("chromium", "make table-deps (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    engine = live_server()
    # a long wait: the hand is dealt at once only if Ann's browser sent its entropy
    server = TableServer(
        engine.target,
        f"sqlite:///{tmp_path / 'table.db'}",
        ["--seats", "3", "--bots", "station", "--clock", "120", "--pause", "30",
         "--bot-delay", "0.2", "--deal-wait", "120"],
    )  # fmt: skip
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            context = browser.new_context(accept_downloads=True)
            context.add_init_script(RECORD_DEAL)
            page = context.new_page()
            page.goto(server.url + "/")
            page.get_by_label("Your name").fill("Ann")
            page.get_by_role("button", name="Sit down").click()
            page.wait_for_selector("#seats li.you")
            seat = int(page.locator("#seats li.you").get_attribute("data-seat") or -1)
            page.wait_for_selector('#table:not([data-hand=""])', timeout=60_000)
            while not page.locator('#deal[data-phase="over"]').count():
                passive = [
                    f'#moves button[data-action="{kind}"]:not([disabled])' for kind in PASSIVE
                ]
                button = page.locator(", ".join(passive))
                if button.count():
                    button.first.click()
                page.wait_for_timeout(150)
            states: list[dict[str, Any]] = page.evaluate("window.dealStates")
            mine = page.inner_text("#deal-mine")
            sources = page.locator("#deal-sources li")
            froms = {
                int(sources.nth(i).get_attribute("data-seat") or -1): sources.nth(i).get_attribute(
                    "data-from"
                )
                for i in range(sources.count())
            }
            with page.expect_download() as waiting:
                page.get_by_role("button", name=re.compile("Download the proof of hand 1")).click()
            proof = tmp_path / waiting.value.suggested_filename
            waiting.value.save_as(proof)
            browser.close()
    finally:
        server.stop()

    # the commitment was on the page, with no hand yet, before the hand it committed to
    committed = next(i for i, s in enumerate(states) if s["phase"] == "committed" and s["shown"])
    commitment = states[committed]["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment) and states[committed]["hand"] == ""
    dealt = next(i for i, s in enumerate(states) if s["hand"])
    assert committed < dealt and states[dealt]["commitment"] == commitment
    # Ann's browser sent its entropy, and the table drew the bot's
    assert froms[seat] == "player" and set(froms.values()) == {"player", "table"}
    entropy = mine.rsplit(" ", 1)[-1]
    assert re.fullmatch(r"[0-9a-f]{64}", entropy), mine

    assert re.fullmatch(r"0001-[0-9a-f]{32}\.phh", proof.name)
    result = verify(proof)
    assert result.returncode == 0, result.stdout + result.stderr
    fields = tomllib.loads(proof.read_text(encoding="utf-8"))
    assert fields["_deal_commitment"] == commitment
    assert entropy in fields["_contributions"]
    deck = fields["_deck"]
    tampered = tmp_path / "tampered.phh"
    tampered.write_text(
        proof.read_text(encoding="utf-8").replace(deck, deck[2:4] + deck[:2] + deck[4:])
    )
    result = verify(tampered)
    assert result.returncode == 1 and "_deck" in result.stdout, result.stdout

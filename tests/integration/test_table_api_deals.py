"""Verifiable deals at stud-table over its HTTP API against a real stud-server: the
commitment is on the players' pages before the deal, the contribution route refuses bad
requests with a reason, the hand is dealt with both players' entropy (their hex in the
proof), and the proof of the finished hand, downloaded by a player of it, passes
``stud-verify``; a tampered copy does not, nor does the proof go to anyone else."""

from __future__ import annotations

import secrets
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.polling import poll_until
from support.table_harness import TableServer, call, download, join, view

STUD_VERIFY = str(Path(sys.executable).parent / "stud-verify")


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([STUD_VERIFY, str(path)], capture_output=True, text=True, timeout=120)


def verified_proof(base: str, path: str, token: str, proof: Path) -> tuple[bytes, Any]:
    """The hand's proof downloaded with ``token`` into ``proof``, which ``stud-verify``
    accepts: its bytes and its fields."""
    status, phh = download(base, path, token)
    assert status == 200, phh
    proof.write_bytes(phh)
    result = verify(proof)
    assert result.returncode == 0, result.stdout + result.stderr
    return phh, tomllib.loads(phh.decode())


def contribute(base: str, token: str | None, body: Any = None, raw: bytes | None = None) -> Any:
    return call(base, "POST", "/api/tables/main/contribute", body, token=token, raw=raw)


def test_players_entropy_goes_into_the_deal_and_its_proof_passes_stud_verify(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    engine = live_server()
    server = TableServer(
        engine.target,
        f"sqlite:///{tmp_path / 'table.db'}",
        ["--seats", "3", "--clock", "120", "--pause", "30", "--deal-wait", "120"],
    )
    try:
        base = server.url
        seats = dict([join(base, "Ann"), join(base, "Bob")])
        ann, bob = seats[0], seats[1]
        pending = poll_until(lambda: view(base, ann)["deal"], "the deal's commitment", 60, 0.1)
        assert view(base, ann)["hand"] is None  # shown before the deal
        assert len(pending["commitment"]) == 64 and pending["needed"]
        assert view(base, bob)["deal"]["commitment"] == pending["commitment"]
        mine = {ann: secrets.token_hex(32), bob: secrets.token_hex(16)}
        body = {"hand": pending["hand"], "entropy": mine[ann]}
        refusals = [
            (None, body, None, 401, "no_token"),
            ("x" * 43, body, None, 401, "bad_token"),
            (ann, None, b"\xff\xfe{", 400, "malformed_json"),
            (ann, {"hand": pending["hand"], "entropy": "00" * 8}, None, 400, "bad_entropy"),
            (ann, {"hand": pending["hand"], "entropy": "0g" * 16}, None, 400, "bad_entropy"),
            (ann, {"hand": "0" * 32, "entropy": mine[ann]}, None, 409, "stale"),
        ]
        for token, sent, raw, status, reason in refusals:
            got = contribute(base, token, sent, raw)
            assert got == (
                status,
                {"error": {"reason": reason, "message": got[1]["error"]["message"]}},
            )
        assert not view(base, ann)["deal"]["contributed"]
        assert contribute(base, ann, body) == (200, {"ok": True, "hand": pending["hand"]})
        assert contribute(base, ann, body)[1]["error"]["reason"] == "already_contributed"
        assert view(base, ann)["hand"] is None  # Bob's entropy is awaited
        assert contribute(base, bob, {**body, "entropy": mine[bob]})[0] == 200
        page = poll_until(lambda: (v := view(base, ann))["hand"] and v, "the deal", 60, 0.1)
        deal = page["hand"]["deal"]
        assert page["hand"]["id"] == pending["hand"]
        assert deal["commitment"] == pending["commitment"]
        assert [c["from"] for c in deal["contributions"]] == ["player", "player"]
        hand_path = f"/api/tables/main/hands/{page['hand']['id']}/proof"
        assert download(base, hand_path, ann)[0] == 404  # not over yet: no proof
        while not (page := view(base, ann))["hand"]["over"]:  # folds (or the bring-in)
            for token in seats.values():
                moves = view(base, token)
                kinds = [m["action"] for m in moves["legal"]]
                if kinds:
                    action = "fold" if "fold" in kinds else kinds[0]
                    call(base, "POST", "/api/tables/main/act",
                         {"action": action, "hand": moves["hand"]["id"],
                          "seq": moves["hand"]["seq"]}, token=token)  # fmt: skip
        assert page["hand"]["deal"]["proof"]
        phh, fields = verified_proof(base, hand_path, bob, tmp_path / "proof.phh")
        assert fields["_deal_commitment"] == pending["commitment"]
        assert fields["_contributions"] == [mine[ann], mine[bob]]
        seed = fields["_server_seed"]
        (tmp_path / "bad.phh").write_text(phh.decode().replace(seed, seed[::-1]))
        result = verify(tmp_path / "bad.phh")
        assert result.returncode == 1 and "_server_seed" in result.stdout, result.stdout
        _, carl = join(base, "Carl")  # not dealt into that hand
        assert download(base, hand_path, carl)[0] == 403
        assert download(base, hand_path, None)[0] == 401
    finally:
        server.stop()


def test_a_tournament_hand_is_dealt_verifiably_and_its_proof_passes_stud_verify(
    live_server: Callable[..., Any], tmp_path: Path
) -> None:
    """A multi-table tournament's table deals like a cash table: the commitment before
    the deal, the person's entropy in it (the bots' drawn by the table), and the proof of
    the finished hand, downloaded with the tournament token, passes ``stud-verify``."""
    engine = live_server()
    (tmp_path / "operator").write_text("operator-token-for-the-mtt-deal\n")
    server = TableServer(
        engine.target,
        f"sqlite:///{tmp_path / 'table.db'}",
        ["--operator-token-file", str(tmp_path / "operator"), "--clock", "1",
         "--pause", "30", "--bot-delay", "0", "--deal-wait", "120"],
    )  # fmt: skip
    op = "operator-token-for-the-mtt-deal"
    try:
        base = server.url
        settings = {"levels": [{"ante": 1, "bring_in": 5, "small_bet": 10}],
                    "payouts": [10000], "seats": 4, "min_entrants": 2}  # fmt: skip
        made = call(base, "POST", "/api/tournaments",
                    {"id": "sun", "game": "seven", "settings": settings}, token=op)  # fmt: skip
        assert made[0] == 201, made
        assert call(base, "GET", "/api/tournaments/sun")[1]["verifiable"] is True
        status, ann = call(base, "POST", "/api/tournaments/sun/register", {"name": "Ann"})
        assert status == 201, ann
        token = ann["token"]
        for number in range(3):
            bot = {"name": f"Bot {number}", "bot": "station"}
            assert call(base, "POST", "/api/tournaments/sun/bots", bot, token=op)[0] == 201
        assert call(base, "POST", "/api/tournaments/sun/start", {}, token=op)[0] == 200
        table = call(base, "GET", "/api/tournaments/sun/me", token=token)[1]["table"]
        pending = poll_until(lambda: view(base, token, table)["deal"], "the commitment", 60, 0.1)
        assert pending["needed"] and view(base, token, table)["hand"] is None
        mine = secrets.token_hex(32)
        sent = call(base, "POST", f"/api/tables/{table}/contribute",
                    {"hand": pending["hand"], "entropy": mine}, token=token)  # fmt: skip
        assert sent[0] == 200, sent

        def over() -> Any:
            hand = view(base, token, table)["hand"]
            return hand if hand and hand["over"] and hand["id"] == pending["hand"] else None

        hand = poll_until(over, "the hand, over (Ann's clock acts)", 120, 0.2)
        assert hand["deal"]["proof"]
        assert sorted(c["from"] for c in hand["deal"]["contributions"]) == [
            "player", "table", "table", "table"
        ]  # fmt: skip
        proof_path = f"/api/tables/{table}/hands/{hand['id']}/proof"
        _, fields = verified_proof(base, proof_path, token, tmp_path / "mtt-proof.phh")
        assert fields["_deal_commitment"] == pending["commitment"]
        assert mine in fields["_contributions"]
    finally:
        server.stop()

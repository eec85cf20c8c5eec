"""stud-table's refusals of what a body holds, against a real stud-server: a body that is
not UTF-8 (stray bytes, UTF-16) is 400 ``malformed_json`` on every route that reads JSON,
never a 500; and a route that takes a token checks it before the body, so a request
without a seat learns nothing of the body's shape (401 before any 400)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.table_harness import TableServer, call, join

OPERATOR = "the-operator-token-of-this-test-0123456789"
#: Bodies that are not UTF-8: a stray byte, UTF-16 with its byte-order mark, UTF-16 without.
NOT_UTF8 = (
    b'{"name": "Ann\xff"}',
    '{"name": "Ann"}'.encode("utf-16"),
    '{"name": "Ann"}'.encode("utf-16-le"),
)
#: Bodies that a seated player would get a 400 for: not JSON, not UTF-8, the wrong shape.
BAD_BODIES = (b"{", b"\xff\xfe", b"[]", b'{"action": "dance"}', b'{"kind": 7}', b"")


@pytest.fixture
def server(live_server: Callable[..., Any], tmp_path: Path) -> Iterator[TableServer]:
    secret = tmp_path / "operator"
    secret.write_text(OPERATOR, encoding="utf-8")
    table = TableServer(
        live_server().target,
        f"sqlite:///{tmp_path / 'table.db'}",
        ["--seats", "4", "--clock", "120", "--operator-token-file", str(secret),
         "--rate-limits", "join=0/1,act=0/1,bots=0/1"],  # the refusals, not the limits
    )  # fmt: skip
    yield table
    table.stop()


def rows(db: Path) -> tuple[Any, ...]:
    """What a refused request must leave alone: tables, seats, hands."""
    with sqlite3.connect(db) as conn:
        return tuple(
            conn.execute(f"SELECT * FROM {name} ORDER BY 1").fetchall()
            for name in ("tables", "seats", "hands")
        )


def test_a_body_that_is_not_utf8_is_malformed_json_on_every_json_route(
    server: TableServer, tmp_path: Path
) -> None:
    base = server.url
    _, token = join(base, "Ann")
    before = rows(tmp_path / "table.db")
    routes = (
        ("/api/tables", OPERATOR),
        ("/api/tables/main/join", None),
        ("/api/tables/main/act", token),
        ("/api/tables/main/bots", token),
    )
    for path, key in routes:
        for raw in NOT_UTF8:
            status, answer = call(base, "POST", path, token=key, raw=raw)
            assert (status, answer["error"]["reason"]) == (400, "malformed_json"), (path, raw)
    assert rows(tmp_path / "table.db") == before
    assert "Traceback" not in server.output(), server.output()


def test_a_token_is_checked_before_the_body(server: TableServer, tmp_path: Path) -> None:
    base = server.url
    join(base, "Ann")
    before = rows(tmp_path / "table.db")
    for path in ("/api/tables/main/act", "/api/tables/main/bots"):
        for key, reason in ((None, "no_token"), ("not-a-seat-token", "bad_token")):
            for raw in BAD_BODIES:
                status, answer = call(base, "POST", path, token=key, raw=raw)
                assert (status, answer["error"]["reason"]) == (401, reason), (path, key, raw)
    for raw in BAD_BODIES:  # the operator's route: its token first too
        status, answer = call(base, "POST", "/api/tables", token="not-the-operator", raw=raw)
        assert (status, answer["error"]["reason"]) == (401, "not_operator"), raw
    assert rows(tmp_path / "table.db") == before

"""stud-table's rate limits (token buckets) and its resume cookies' names, without a
network: a bucket lets its burst through, refuses the next with the seconds to wait, and
refills at its rate; limits parse from the command line or name what is wrong."""

from __future__ import annotations

import pytest
from studclients.table import cookies
from studclients.table.ratelimit import RateLimited, RateLimits


def test_a_bucket_lets_its_burst_through_then_says_how_long_to_wait() -> None:
    limits = RateLimits.parse("join=3/60")
    for _ in range(3):
        limits.check("join", "1.2.3.4", now=100.0)
    with pytest.raises(RateLimited) as refused:
        limits.check("join", "1.2.3.4", now=100.0)
    assert (refused.value.status, refused.value.reason) == (429, "rate_limited")
    assert refused.value.retry_after == 20  # one request every 20 s
    limits.check("join", "5.6.7.8", now=100.0)  # another client has its own bucket
    with pytest.raises(RateLimited):
        limits.check("join", "1.2.3.4", now=119.0)
    limits.check("join", "1.2.3.4", now=120.0)  # refilled by one


def test_zero_requests_is_no_limit_and_bad_limits_name_the_part() -> None:
    limits = RateLimits.parse("act=0/1")
    for _ in range(1000):
        limits.check("act", "token", now=0.0)
    for text, words in (
        ("walk=1/1", "'walk' is not one of"),
        ("join=x/1", "is not ROUTE=REQUESTS/SECONDS"),
        ("join=1/0", "seconds > 0"),
    ):
        with pytest.raises(ValueError, match=words):
            RateLimits.parse(text)


def test_idle_buckets_are_forgotten_past_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("studclients.table.ratelimit.MAX_BUCKETS", 10)
    limits = RateLimits.parse("join=2/10")
    for client in range(10):
        limits.check("join", str(client), now=0.0)
    limits.check("join", "late", now=100.0)  # all ten have refilled: forgotten
    assert list(limits.buckets) == [("join", "late")]


@pytest.mark.parametrize("table_id", ["main", "Table 2/é", "a" * 64])
def test_resume_cookie_names_carry_the_table_or_tournament_id(table_id: str) -> None:
    name = cookies.cookie_name(table_id)
    assert name.startswith("stud_resume_") and all(c.isalnum() or c in "_-" for c in name)
    assert cookies.table_of(name) == table_id
    assert cookies.table_of("session") is None and cookies.table_of("stud_resume_%%") is None
    # a tournament entry's cookie: its own prefix, never read as a table's, nor one as its
    entry = cookies.cookie_name(table_id, cookies.ENTRY_PREFIX)
    assert cookies.table_of(entry, cookies.ENTRY_PREFIX) == table_id
    assert cookies.table_of(entry) is None and cookies.table_of(name, cookies.ENTRY_PREFIX) is None

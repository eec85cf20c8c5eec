"""stud-table's seat tokens: unguessable, stored only as a hash, checked in constant time,
read only from a bearer header."""

from __future__ import annotations

from studclients.table.tokens import bearer, find_seat, new_token, token_hash


def test_tokens_are_long_random_and_distinct() -> None:
    made = {new_token() for _ in range(200)}
    assert len(made) == 200
    assert all(len(t) >= 43 for t in made)


def test_only_the_hash_is_compared_and_every_seat_is_checked() -> None:
    ann, bob = new_token(), new_token()
    seats = [(0, token_hash(ann)), (1, None), (3, token_hash(bob))]
    assert find_seat(ann, seats) == 0
    assert find_seat(bob, seats) == 3
    assert find_seat(ann[:-1], seats) is None
    assert find_seat("", seats) is None
    assert token_hash(ann) != ann.encode()


def test_bearer_header() -> None:
    assert bearer("Bearer abc") == "abc"
    assert bearer("bearer  abc ") == "abc"
    assert bearer("Basic abc") is None
    assert bearer("Bearer ") is None
    assert bearer(None) is None

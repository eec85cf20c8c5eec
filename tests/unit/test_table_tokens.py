"""stud-table's seat tokens: unguessable, stored only as a hash, checked in constant time,
read only from a bearer header."""

from __future__ import annotations

from pathlib import Path

import pytest
from studclients.table.tokens import (
    OPERATOR_ENV,
    bearer,
    find_seat,
    is_operator,
    new_token,
    operator_token,
    token_hash,
)


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


def test_the_operator_token_comes_from_a_file_or_the_environment_and_is_checked(
    tmp_path: Path,
) -> None:
    secret = "an-operator-token-long-enough-1234"
    path = tmp_path / "operator"
    path.write_text(secret + "\n", encoding="utf-8")
    from_file = operator_token(str(path), environ={})
    assert from_file == token_hash(secret)
    assert operator_token(None, environ={OPERATOR_ENV: secret}) == from_file
    assert operator_token(None, environ={}) is None  # no operator API
    assert is_operator(secret, from_file)
    assert not is_operator(secret[:-1], from_file) and not is_operator(None, from_file)
    assert not is_operator(secret, None)
    with pytest.raises(ValueError, match="at least 24") as short:
        operator_token(None, environ={OPERATOR_ENV: "short-token"})
    assert "short-token" not in str(short.value)  # never quoted
    with pytest.raises(ValueError, match="cannot read"):
        operator_token(str(tmp_path / "missing"), environ={})

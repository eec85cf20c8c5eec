"""Seat tokens: an unguessable bearer secret per seated player. Only its SHA-256 is stored;
a presented token is checked against every seat of the table with a constant-time compare,
so neither the database nor the timing tells anything about a token. The operator token
(creating tables, the audit histories) comes from a file or the environment, never the
command line, and is compared the same way."""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Iterable
from pathlib import Path

#: 32 random bytes, URL-safe base64 (43 characters).
TOKEN_BYTES = 32
#: Where the operator token is read from when no file is named.
OPERATOR_ENV = "STUD_TABLE_OPERATOR_TOKEN"
OPERATOR_MIN_CHARS = 24


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def find_seat(token: str, seats: Iterable[tuple[int, bytes | None]]) -> int | None:
    """The seat whose stored hash matches ``token`` (None when none does). Every seat is
    compared, with ``hmac.compare_digest``, whichever matches."""
    presented = token_hash(token)
    found: int | None = None
    for seat_no, stored in seats:
        if stored is not None and hmac.compare_digest(presented, stored):
            found = seat_no
    return found


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header (None when absent or not
    of that form)."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    value = value.strip()
    if scheme.lower() != "bearer" or not value:
        return None
    return value


def operator_token(path: str | None, environ: dict[str, str] | None = None) -> bytes | None:
    """The SHA-256 of the operator token in the file ``path`` (else in the environment's
    ``STUD_TABLE_OPERATOR_TOKEN``), or None when neither is set (the operator API is
    then closed). A token under 24 characters is refused (ValueError, never quoting it)."""
    if path:
        try:
            token = Path(path).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
            raise ValueError(f"cannot read the operator token file {path}: {reason}") from None
    else:
        token = (os.environ if environ is None else environ).get(OPERATOR_ENV, "").strip()
        if not token:
            return None
    if len(token) < OPERATOR_MIN_CHARS:
        raise ValueError(f"the operator token must have at least {OPERATOR_MIN_CHARS} characters")
    return token_hash(token)


def is_operator(presented: str | None, expected: bytes | None) -> bool:
    """Whether ``presented`` is the operator token, in constant time (hashes compared)."""
    if presented is None or expected is None:
        return False
    return hmac.compare_digest(token_hash(presented), expected)

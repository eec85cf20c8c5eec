"""Seat tokens: an unguessable bearer secret per seated player. Only its SHA-256 is stored;
a presented token is checked against every seat of the table with a constant-time compare,
so neither the database nor the timing tells anything about a token."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

#: 32 random bytes, URL-safe base64 (43 characters).
TOKEN_BYTES = 32


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

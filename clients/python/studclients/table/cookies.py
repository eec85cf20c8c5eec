"""The resume cookies (resume.py trades them): HttpOnly, SameSite=Strict, scoped to
``/api/resume`` (never in a URL, never readable by the page's scripts), one per table a
browser holds a seat at and one per tournament it entered, each named by its id."""

from __future__ import annotations

import base64
import binascii

from aiohttp import web

#: Cookie names: a prefix and the table's id (URL-safe base64), one cookie per table; a
#: tournament entry's, the other prefix and the tournament's id.
COOKIE_PREFIX = "stud_resume_"
ENTRY_PREFIX = "stud_mtt_resume_"
COOKIE_PATH = "/api/resume"
#: How long a browser keeps its resume token (seconds): a seat's, and a tournament entry's
#: (registration may open days before the start)
COOKIE_SECONDS = 12 * 3600
ENTRY_SECONDS = 14 * 24 * 3600


def cookie_name(table_id: str, prefix: str = COOKIE_PREFIX) -> str:
    """The cookie of ``table_id`` (or, with ``ENTRY_PREFIX``, of a tournament's id)."""
    encoded = base64.urlsafe_b64encode(table_id.encode()).decode().rstrip("=")
    return prefix + encoded


def table_of(name: str, prefix: str = COOKIE_PREFIX) -> str | None:
    """The table (or tournament) id of a resume cookie's name (None when it is not one)."""
    if not name.startswith(prefix):
        return None
    encoded = name.removeprefix(prefix)
    try:
        padded = encoded + "=" * (-len(encoded) % 4)
        table_id = base64.b64decode(padded, altchars=b"-_", validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return table_id or None


def set_cookie(
    response: web.StreamResponse,
    request: web.Request,
    name: str,
    value: str,
    seconds: int = COOKIE_SECONDS,
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=seconds,
        path=COOKIE_PATH,
        httponly=True,
        samesite="Strict",
        secure=request.secure,
    )


def clear_cookie(response: web.StreamResponse, name: str) -> None:
    response.del_cookie(name, path=COOKIE_PATH)

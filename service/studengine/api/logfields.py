"""The call's log fields: what the handlers know of a call (``hand_id``, ``seq``, ``seat``,
``action``) for its one log line, which the server writes when the call ends
(``server.logging`` merges them into every line written in the call's context).

One ``ContextVar`` holds them all, a dict per call: each call runs in a context of its
own (a task per gRPC call; the HTTP port gives each call a fresh ``contextvars.Context``),
so the fields go away with the call and never reach another's line. A dict once set is
never changed: ``bind`` sets a new one, since a task started inside the call would share
the dict. Cheaper than structlog's ``bind_contextvars`` (a ContextVar per field, and a
copy of the whole context to merge them). Compiled (mypyc) with the handlers that bind.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Final

#: The current call's log fields (never changed in place: ``bind`` sets a new dict).
CALL_FIELDS: Final[ContextVar[dict[str, Any]]] = ContextVar("studengine_call_log_fields")


def bind(**fields: Any) -> None:
    """Add ``fields`` to the current call's log fields (a later value replaces an earlier)."""
    bind_fields(fields)


def bind_fields(fields: dict[str, Any]) -> None:
    """``bind(**fields)`` for a dict of the caller's, which it never changes afterwards
    (it may become the call's)."""
    bound = CALL_FIELDS.get(None)
    CALL_FIELDS.set(fields if bound is None else {**bound, **fields})


def bound() -> dict[str, Any]:
    """A copy of the current call's log fields."""
    return dict(CALL_FIELDS.get({}))


def clear() -> None:
    """Forget the current context's log fields (tests that call handlers one after another)."""
    CALL_FIELDS.set({})

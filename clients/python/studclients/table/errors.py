"""stud-table's two kinds of refusal: ``ApiError``, a refused request (its HTTP status and
machine-readable reason), and ``SettingsError``, settings that cannot be played (a
rotation's or a tournament schedule's), naming the field that is wrong."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """A refused request: HTTP ``status``, a machine-readable ``reason`` and a message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message

    def body(self) -> dict[str, Any]:
        return {"error": {"reason": self.reason, "message": self.message}}


class SettingsError(ValueError):
    """Settings that cannot be played (a rotation, a schedule); ``field`` names what is
    wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
